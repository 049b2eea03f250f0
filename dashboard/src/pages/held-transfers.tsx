import type { HeldPayout, HeldTransfer, HeldTransferList } from '../api-types';
import { Badge, Summary } from '../components/bits';
import { HeldItems, makerAndWhenColumns, noneHeld } from '../components/held-items';
import { humanize, naira } from '../format';

/**
 * Transfers between the tenant's accounts its approval policy holds (docs/approvals.md), of the status the page shows:
 * approved or rejected as payouts are, with the same fresh-code flow, never by their maker.
 */
export function HeldTransfersSection(props: { status: HeldPayout['status'] }) {
  const { status } = props;
  const accountLink = (accountRef: string) => <a href={`/dashboard/accounts/${encodeURIComponent(accountRef)}`}>{accountRef}</a>;
  return (
    <section aria-label="Transfers between accounts">
      <h2>Transfers between accounts</h2>
      <HeldItems<HeldTransfer, HeldTransferList>
        status={status}
        path="/auth/transfer-approvals"
        items={(list) => list.transfers}
        idOf={(transfer) => transfer.id}
        rowAttributes={(transfer) => ({ 'data-transfer': transfer.id })}
        columns={[
          { header: 'From', cell: (transfer) => accountLink(transfer.fromAccountRef) },
          { header: 'To', cell: (transfer) => accountLink(transfer.toAccountRef) },
          { header: 'Amount', cell: (transfer) => naira(transfer.amount), class: 'num' },
          ...makerAndWhenColumns<HeldTransfer>(status),
          {
            header: 'Status',
            cell: (transfer) => (
              <Badge
                status={transfer.status === 'approved' ? 'success' : transfer.status === 'awaiting_approval' ? 'pending' : 'failed'}
                label={humanize(transfer.status)}
              />
            ),
          },
        ]}
        words={{
          what: 'the held transfers',
          empty: noneHeld(status, 'No transfer is waiting for approval.', 'transfers'),
          table: 'Held transfers',
          pager: 'Held transfer pages',
        }}
        approval={(transfer) => ({
          title: `Approve the transfer of ${naira(transfer.amount)}?`,
          description: (
            <Summary
              items={[
                ['From', transfer.fromAccountRef],
                ['To', transfer.toAccountRef],
                ['Amount', naira(transfer.amount)],
                ['Made by', transfer.maker],
              ]}
            />
          ),
          done: `${naira(transfer.amount)} to ${transfer.toAccountRef} approved: it has moved.`,
        })}
        rejection={(transfer) => ({
          title: `Reject the transfer of ${naira(transfer.amount)}?`,
          description: <p>Nothing moves; the {naira(transfer.amount)} set aside can be spent again.</p>,
          done: `${naira(transfer.amount)} to ${transfer.toAccountRef} rejected: its money is released.`,
        })}
      />
    </section>
  );
}
