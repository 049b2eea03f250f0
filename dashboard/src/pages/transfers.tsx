import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { InternalTransferList } from '../api-types';
import { Badge, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { MetadataFilterFields, MetadataList, metadataFilterOf, metadataFilterParams, metadataQuery } from '../components/metadata';
import { Empty, Loaded, useResource } from '../components/state';
import { naira, when } from '../format';

/** The tenant's transfers between its accounts, newest first, searchable by metadata (GET /auth/transfers/internal). */
export function TransfersPage() {
  const location = useLocation();
  const filter = metadataFilterOf(location.query);
  const [filterDraft, setFilterDraft] = useState(filter);
  const pages = useCursorPages([filter.key, filter.value]);
  const transfers = useResource(
    () => api<InternalTransferList>('GET', `/auth/transfers/internal${query({ after: pages.cursor, ...metadataQuery(filter) })}`),
    [filter.key, filter.value, pages.cursor],
  );

  function applyFilter(event: Event): void {
    event.preventDefault();
    location.route(`/dashboard/transfers${query(metadataFilterParams(filterDraft))}`);
  }

  return (
    <>
      <PageTitle title="Transfers" />
      <p class="muted">Money moved between the tenant's own accounts. Start a transfer from an account's page.</p>
      <form class="toolbar" role="search" onSubmit={applyFilter}>
        <MetadataFilterFields filter={filterDraft} onChange={setFilterDraft} />
        <button type="submit" class="button secondary">
          Filter
        </button>
        {filter.key ? (
          <a class="button secondary" href="/dashboard/transfers">
            Clear
          </a>
        ) : null}
      </form>
      <Loaded resource={transfers} what="transfers">
        {(data) =>
          data.transfers.length === 0 ? (
            <Empty>
              <p>{filter.key ? `No transfer carries metadata ${filter.key} = “${filter.value}”.` : 'No transfers yet.'}</p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Transfers">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Created</th>
                      <th scope="col">From</th>
                      <th scope="col">To</th>
                      <th scope="col" class="num">
                        Amount
                      </th>
                      <th scope="col">Narration</th>
                      <th scope="col">Status</th>
                      <th scope="col">Metadata</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.transfers.map((transfer) => (
                      <tr key={transfer.id}>
                        <td>{when(transfer.createdAt)}</td>
                        <td>
                          <a href={`/dashboard/accounts/${encodeURIComponent(transfer.fromAccountRef)}`}>{transfer.fromAccountRef}</a>
                        </td>
                        <td>
                          <a href={`/dashboard/accounts/${encodeURIComponent(transfer.toAccountRef)}`}>{transfer.toAccountRef}</a>
                        </td>
                        <td class="num">{naira(transfer.amount)}</td>
                        <td>{transfer.narration || '—'}</td>
                        <td>
                          <Badge status={transfer.status} />
                        </td>
                        <td>
                          <MetadataList metadata={transfer.metadata} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Transfer pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
