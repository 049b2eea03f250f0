import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { HeldBatch, HeldBatchList, HeldBatchStatus } from '../api-types';
import { Badge, Pager, Summary, TableWrap, useCursorPages } from '../components/bits';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { humanize, naira, when } from '../format';
import { useCan, useSession } from '../session';
import { DecisionButton } from './approvals';

/**
 * Settlement batches the approval policy holds (docs/approvals.md#settlement-batches), on the Approvals page: each with
 * its item count, total, maker, expiry and the items the dry run flagged; approved or rejected as a whole, never by
 * their maker.
 */
export function HeldBatchesSection(props: { status: HeldBatchStatus }) {
  const { status } = props;
  const session = useSession();
  const canApprove = useCan('approve_money');
  const pages = useCursorPages([status]);
  const list = useResource(
    () => api<HeldBatchList>('GET', `/auth/batch-approvals${query({ status, after: pages.cursor })}`),
    [status, pages.cursor],
  );
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const deciding = canApprove && status === 'awaiting_approval';

  const approve = (batch: HeldBatch) => async () => {
    await api('POST', `/auth/batch-approvals/${encodeURIComponent(batch.id)}/approve`);
    setNotice({ kind: 'success', text: `Batch of ${batch.items} items (${naira(batch.total)}) approved: it is being paid.` });
    list.reload();
  };
  const reject = (batch: HeldBatch) => async () => {
    await api('POST', `/auth/batch-approvals/${encodeURIComponent(batch.id)}/reject`, { body: {} });
    setNotice({ kind: 'success', text: `Batch of ${batch.items} items rejected: its ${naira(batch.total)} is released.` });
    list.reload();
  };

  return (
    <section class="panel" aria-label="Held settlement batches">
      <h2>Settlement batches</h2>
      <Notice notice={notice} />
      <Loaded resource={list} what="the held settlement batches">
        {(data) =>
          data.batches.length === 0 ? (
            <Empty>
              <p>
                {status === 'awaiting_approval' ? 'No batch is waiting for approval.' : `No ${humanize(status).toLowerCase()} batches.`}
              </p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Held settlement batches">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Batch</th>
                      <th scope="col">Items</th>
                      <th scope="col">Total</th>
                      <th scope="col">Why it waits</th>
                      <th scope="col">Maker</th>
                      <th scope="col">{status === 'awaiting_approval' ? 'Expires' : 'Decided'}</th>
                      <th scope="col">Flagged by the dry run</th>
                      <th scope="col">Status</th>
                      {deciding ? <th scope="col">Decision</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {data.batches.map((batch) => {
                      const own = batch.makerUserId === session.user.id;
                      const flagged = <FlaggedItems batch={batch} />;
                      return (
                        <tr key={batch.id} data-batch={batch.id}>
                          <td>
                            <a class="mono" href={`/dashboard/settlement-batches/${encodeURIComponent(batch.id)}`}>
                              {batch.id.slice(0, 8)}
                            </a>
                          </td>
                          <td class="num">{batch.items}</td>
                          <td class="num">{naira(batch.total)}</td>
                          <td>{batch.reasons.map(humanize).join(', ')}</td>
                          <td>{batch.maker}</td>
                          <td>
                            {status === 'awaiting_approval'
                              ? when(batch.expiresAt)
                              : `${when(batch.decidedAt)}${batch.decidedBy ? ` by ${batch.decidedBy}` : ''}`}
                          </td>
                          <td>{flagged}</td>
                          <td>
                            <Badge
                              status={batch.status === 'awaiting_approval' ? 'pending' : status === 'approved' ? 'success' : 'failed'}
                              label={humanize(status)}
                            />
                          </td>
                          {deciding ? (
                            <td class="row-actions">
                              {own ? (
                                <span class="muted small">Yours: another user approves it</span>
                              ) : (
                                <DecisionButton
                                  label="Approve"
                                  title={`Approve a batch of ${batch.items} items, ${naira(batch.total)}?`}
                                  description={
                                    <>
                                      <Summary
                                        items={[
                                          ['Items', String(batch.items)],
                                          ['Total set aside', naira(batch.total)],
                                          ['Made by', batch.maker],
                                        ]}
                                      />
                                      {batch.flaggedCount > 0 ? <p>Flagged items fail at their turn: {flagged}</p> : null}
                                    </>
                                  }
                                  action={approve(batch)}
                                />
                              )}
                              <DecisionButton
                                danger
                                label="Reject"
                                title={`Reject a batch of ${batch.items} items?`}
                                description={<p>No item is paid; the {naira(batch.total)} set aside can be spent again.</p>}
                                action={reject(batch)}
                              />
                            </td>
                          ) : null}
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Held batch pages"
              />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

/** The items the dry run flagged when the batch was made, with its reasons (the first 100; the count names them all). */
function FlaggedItems(props: { batch: HeldBatch }) {
  const { flagged, flaggedCount } = props.batch;
  if (flaggedCount === 0) return <span class="muted">none</span>;
  return (
    <ul class="flagged-items">
      {flagged.map((item) => (
        <li key={item.reference}>
          <span class="mono">{item.reference}</span> ({item.accountRef}, {item.amount}): {item.reason}
        </li>
      ))}
      {flaggedCount > flagged.length ? <li class="muted">and {flaggedCount - flagged.length} more</li> : null}
    </ul>
  );
}
