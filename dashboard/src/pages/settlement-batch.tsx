import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { SettlementBatch, SettlementBatchSummary } from '../api-types';
import { Badge, PageTitle, Pager, Summary, TableWrap, useCursorPages } from '../components/bits';
import { ConfirmDialog } from '../components/confirm';
import { MetadataList } from '../components/metadata';
import { Loaded, useResource } from '../components/state';
import { naira, when } from '../format';
import { useCan } from '../session';

const FINAL = ['completed', 'completed_with_failures', 'cancelled'];

export function SettlementBatchPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const canCancel = useCan('move_money');
  const pages = useCursorPages([id]);
  const [cancelling, setCancelling] = useState(false);
  const batch = useResource(
    () => api<SettlementBatch>('GET', `/auth/settlement-batches/${encodeURIComponent(id)}${query({ after: pages.cursor })}`),
    [id, pages.cursor],
    3_000,
  );
  const open = batch.data !== undefined && batch.data.status !== 'cancelled' && !FINAL.includes(batch.data.status);

  return (
    <>
      <PageTitle title="Bulk payout">
        {canCancel && open && batch.data!.counts.queued > 0 ? (
          <button type="button" class="button danger" onClick={() => setCancelling(true)}>
            Cancel the rest
          </button>
        ) : null}
      </PageTitle>
      <p>
        <a href="/dashboard/settlement-batches">← All batches</a>
      </p>
      <Loaded resource={batch} what="the batch">
        {(data) => (
          <>
            <Summary
              items={[
                ['Batch', <span class="mono">{data.id}</span>],
                ['Status', <Badge status={data.status} />],
                ['Created', when(data.createdAt)],
                ['Waiting', <span data-testid="count-queued">{data.counts.queued}</span>],
                ['Settling', data.counts.pending + data.counts.processing],
                ['Paid', <span data-testid="count-success">{data.counts.success}</span>],
                ['Failed', <span data-testid="count-failed">{data.counts.failed}</span>],
                ['Refunded', data.counts.refunded],
                ['Metadata', <MetadataList metadata={data.metadata} />],
              ]}
            />
            <TableWrap label="Items">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Reference</th>
                    <th scope="col">Account</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Settlement or reason</th>
                    <th scope="col">Metadata</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((item) => (
                    <tr key={item.reference}>
                      <td class="mono">{item.reference}</td>
                      <td class="mono">{item.accountRef}</td>
                      <td class="num">{/^\d+\.\d{2}$/.test(item.amount) ? naira(item.amount) : item.amount}</td>
                      <td>
                        <Badge status={item.status} />
                      </td>
                      <td>
                        {item.merchantTxRef ? (
                          <a href={`/dashboard/settlements/${encodeURIComponent(item.merchantTxRef)}`} class="mono">
                            {item.merchantTxRef}
                          </a>
                        ) : null}
                        {item.failureReason ? <span class="muted small block">{item.failureReason}</span> : null}
                      </td>
                      <td>
                        <MetadataList metadata={item.metadata} />
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
              label="Item pages"
            />
          </>
        )}
      </Loaded>
      {cancelling ? (
        <ConfirmDialog
          title="Cancel the items not yet paid?"
          confirmLabel="Cancel them"
          danger
          onClose={() => setCancelling(false)}
          onConfirm={async () => {
            await api<SettlementBatchSummary>('POST', `/auth/settlement-batches/${encodeURIComponent(id)}/cancel`);
            setCancelling(false);
            batch.reload();
          }}
        >
          <p>Items waiting for their turn fail with the reason “cancelled”. Items already settling go on to their end.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
