import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ScheduledPayoutList } from '../api-types';
import { PageTitle, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { naira, when } from '../format';
import { useCan } from '../session';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;

/** The most the page shows; more are listed through the API. */
const SHOWN = 200;

/** Payouts asked for now and paid at a later time (docs/scheduled-payouts.md): soonest first, each cancellable by an operator until it starts. */
export function ScheduledPayoutsPage() {
  const canCancel = useCan('move_money');
  const list = useResource(() => api<ScheduledPayoutList>('GET', `/auth/scheduled-payouts?limit=${SHOWN}`), []);
  const [notice, setNotice] = useState<NoticeState>(null);

  return (
    <>
      <PageTitle title="Scheduled payouts" />
      <p>
        Payouts that start at a later time (Lagos time below), their amounts already set aside on their accounts. Cancelling one before it
        starts releases its money; once it starts it is an ordinary settlement.
      </p>
      <Notice notice={notice} />
      <Loaded resource={list} what="the scheduled payouts">
        {(data) =>
          data.transfers.length === 0 ? (
            <Empty>No payout is scheduled.</Empty>
          ) : (
            <TableWrap label="Scheduled payouts">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Starts (Lagos)</th>
                    <th scope="col">From</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">To</th>
                    <th scope="col">Reference</th>
                    {canCancel ? <th scope="col">Actions</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {data.transfers.map((payout) => (
                    <tr key={payout.merchantTxRef} data-testid="scheduled-payout-row" data-ref={payout.merchantTxRef}>
                      <td>{when(payout.schedule?.scheduledFor)}</td>
                      <td>
                        <a href={`/dashboard/accounts/${encodeURIComponent(payout.accountRef)}`}>{payout.accountRef}</a>
                      </td>
                      <td class="num">{naira(payout.amount)}</td>
                      <td>
                        <span class="mono">{payout.accountNumber}</span> ({payout.bankCode})
                      </td>
                      <td class="mono">{payout.merchantTxRef}</td>
                      {canCancel ? (
                        <td>
                          <ConfirmButton
                            small
                            danger
                            label="Cancel"
                            title={`Cancel the payout of ${naira(payout.amount)}?`}
                            description={<p>It will not be paid; the {naira(payout.amount)} set aside can be spent again.</p>}
                            confirmLabel="Cancel payout"
                            action={async () => {
                              await api('POST', `/auth/scheduled-payouts/${encodeURIComponent(payout.merchantTxRef)}/cancel`);
                              setNotice({ kind: 'success', text: `Payout of ${naira(payout.amount)} cancelled: its money is released.` });
                              list.reload();
                            }}
                          />
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
              {data.pagination.hasMore ? <p class="muted small">Showing the first {SHOWN}.</p> : null}
            </TableWrap>
          )
        }
      </Loaded>
    </>
  );
}
