import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { SettlementList } from '../api-types';
import { Badge, Field, PageTitle, Pager, TableWrap, useCursorPages } from '../components/bits';
import { MetadataFilterFields, metadataFilterOf, metadataFilterParams, metadataQuery } from '../components/metadata';
import { Empty, Loaded, useResource } from '../components/state';
import { naira, when } from '../format';

const STATUSES = ['pending', 'processing', 'success', 'failed', 'refunded'] as const;

export function SettlementsPage() {
  const location = useLocation();
  const status = location.query.status ?? '';
  const filter = metadataFilterOf(location.query);
  const [filterDraft, setFilterDraft] = useState(filter);
  const pages = useCursorPages([status, filter.key, filter.value]);
  const settlements = useResource(
    () => api<SettlementList>('GET', `/auth/settlements${query({ status, after: pages.cursor, ...metadataQuery(filter) })}`),
    [status, filter.key, filter.value, pages.cursor],
    5_000,
  );

  function applyFilter(event: Event): void {
    event.preventDefault();
    location.route(`/dashboard/settlements${query({ status, ...metadataFilterParams(filterDraft) })}`);
  }

  return (
    <>
      <PageTitle title="Settlements" />
      <p class="muted">Start a settlement from an account's page. This list refreshes itself.</p>
      <form class="toolbar" role="search" onSubmit={applyFilter}>
        <Field label="Status">
          <select
            name="status"
            value={status}
            onChange={(event) =>
              location.route(`/dashboard/settlements${query({ status: event.currentTarget.value, ...metadataFilterParams(filter) })}`)
            }
          >
            <option value="">All</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </Field>
        <MetadataFilterFields filter={filterDraft} onChange={setFilterDraft} />
        <button type="submit" class="button secondary">
          Filter
        </button>
        {filter.key ? (
          <a class="button secondary" href={`/dashboard/settlements${query({ status })}`}>
            Clear
          </a>
        ) : null}
      </form>
      <Loaded resource={settlements} what="settlements">
        {(data) =>
          data.settlements.length === 0 ? (
            <Empty>
              <p>
                {filter.key
                  ? `No ${status ? `${status} ` : ''}settlement carries metadata ${filter.key} = “${filter.value}”.`
                  : status
                    ? `No ${status} settlements.`
                    : 'No settlements yet.'}
              </p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Settlements">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Reference</th>
                      <th scope="col">From account</th>
                      <th scope="col" class="num">
                        Amount
                      </th>
                      <th scope="col">To</th>
                      <th scope="col">Status</th>
                      <th scope="col" class="num">
                        Attempts
                      </th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.settlements.map((row) => (
                      <tr key={row.ID}>
                        <td>
                          <a href={`/dashboard/settlements/${encodeURIComponent(row.MerchantTxRef)}`} class="mono">
                            {row.MerchantTxRef}
                          </a>
                        </td>
                        <td>
                          <a href={`/dashboard/accounts/${encodeURIComponent(row.AccountRef)}`}>{row.AccountRef}</a>
                        </td>
                        <td class="num">{naira(row.Amount)}</td>
                        <td>
                          {row.AccountName ?? '—'}
                          <span class="muted small block mono">
                            {row.AccountNumber} · bank {row.BankCode}
                          </span>
                        </td>
                        <td>
                          <Badge status={row.Status} />
                        </td>
                        <td class="num">{row.AttemptCount}</td>
                        <td>{when(row.CreatedAt)}</td>
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
                label="Settlement pages"
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
