import type { HeldBatch, HeldBatchList, HeldBatchStatus } from '../api-types';
import { Badge, Summary } from '../components/bits';
import { HeldItems, makerAndWhenColumns, noneHeld } from '../components/held-items';
import { humanize, naira } from '../format';

/**
 * Settlement batches the approval policy holds (docs/approvals.md#settlement-batches), on the Approvals page: each with
 * its item count, total, maker, expiry and the items the dry run flagged; approved or rejected as a whole, never by
 * their maker.
 */
export function HeldBatchesSection(props: { status: HeldBatchStatus }) {
  const { status } = props;
  return (
    <section class="panel" aria-label="Held settlement batches">
      <h2>Settlement batches</h2>
      <HeldItems<HeldBatch, HeldBatchList>
        status={status}
        path="/auth/batch-approvals"
        items={(list) => list.batches}
        idOf={(batch) => batch.id}
        rowAttributes={(batch) => ({ 'data-batch': batch.id })}
        columns={[
          {
            header: 'Batch',
            cell: (batch) => (
              <a class="mono" href={`/dashboard/settlement-batches/${encodeURIComponent(batch.id)}`}>
                {batch.id.slice(0, 8)}
              </a>
            ),
          },
          { header: 'Items', cell: (batch) => batch.items, class: 'num' },
          { header: 'Total', cell: (batch) => naira(batch.total), class: 'num' },
          { header: 'Why it waits', cell: (batch) => batch.reasons.map(humanize).join(', ') },
          ...makerAndWhenColumns<HeldBatch>(status),
          { header: 'Flagged by the dry run', cell: (batch) => <FlaggedItems batch={batch} /> },
          {
            header: 'Status',
            cell: (batch) => (
              <Badge
                status={batch.status === 'awaiting_approval' ? 'pending' : status === 'approved' ? 'success' : 'failed'}
                label={humanize(status)}
              />
            ),
          },
        ]}
        words={{
          what: 'the held settlement batches',
          empty: noneHeld(status, 'No batch is waiting for approval.', 'batches'),
          table: 'Held settlement batches',
          pager: 'Held batch pages',
        }}
        approval={(batch) => ({
          title: `Approve a batch of ${batch.items} items, ${naira(batch.total)}?`,
          description: (
            <>
              <Summary
                items={[
                  ['Items', String(batch.items)],
                  ['Total set aside', naira(batch.total)],
                  ['Made by', batch.maker],
                ]}
              />
              {batch.flaggedCount > 0 ? (
                <p>
                  Flagged items fail at their turn: <FlaggedItems batch={batch} />
                </p>
              ) : null}
            </>
          ),
          done: `Batch of ${batch.items} items (${naira(batch.total)}) approved: it is being paid.`,
        })}
        rejection={(batch) => ({
          title: `Reject a batch of ${batch.items} items?`,
          description: <p>No item is paid; the {naira(batch.total)} set aside can be spent again.</p>,
          done: `Batch of ${batch.items} items rejected: its ${naira(batch.total)} is released.`,
        })}
      />
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
