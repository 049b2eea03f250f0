import { useState } from 'preact/hooks';
import { api } from '../api';
import type { HeldCredit, HoldsQueue, TierLimits } from '../api-types';
import { PageTitle, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { naira, when } from '../format';
import { useCan } from '../session';

const LIMITS: Record<HeldCredit['limit'], string> = { single_credit: 'single credit', balance: 'balance' };

/** One credit's release: the reason is required, and kept in the audit log with the operator's name. */
function ReleaseButton(props: { hold: HeldCredit; onReleased: (text: string) => void }) {
  const { hold } = props;
  const [note, setNote] = useState('');
  return (
    <ConfirmButton
      small
      label="Release"
      title={`Release ${naira(hold.held)} held for ${hold.customerName}?`}
      description={
        <>
          <p>
            {hold.customerName} may then pay this money out, although it is over the tier {hold.tier} {LIMITS[hold.limit]} limit of {naira(hold.limitAmount)}.
          </p>
          <label>
            Why (recorded in the audit log)
            <textarea value={note} onInput={(event) => setNote(event.currentTarget.value)} rows={3} maxLength={500} />
          </label>
        </>
      }
      action={async () => {
        const result = await api<{ released: string }>('POST', `/auth/holds/${encodeURIComponent(hold.entryId)}/release`, { body: { note } });
        props.onReleased(`${hold.customerName}: ${naira(result.released)} released.`);
      }}
    />
  );
}

/**
 * Pays the held money back to the payer (a settlement to the account the payment came from). The payer's
 * bank is found from the payment's bank name; when the answer names several banks, or none, the operator
 * types the bank code it asks for.
 */
function ReturnButton(props: { hold: HeldCredit; onReturned: (text: string) => void }) {
  const { hold } = props;
  const [note, setNote] = useState('');
  const [bankCode, setBankCode] = useState('');
  return (
    <ConfirmButton
      small
      label="Return to sender"
      title={`Return ${naira(hold.held)} to ${hold.senderName}?`}
      description={
        <>
          <p>
            {naira(hold.held)} is paid back to the account this payment came from, as a settlement of {hold.accountRef}. If the payout fails, the money comes back and is held again.
          </p>
          <label>
            Why (recorded in the audit log)
            <textarea value={note} onInput={(event) => setNote(event.currentTarget.value)} rows={3} maxLength={500} />
          </label>
          <label>
            Payer's bank code (only when asked: the payment's bank name matched several banks, or none)
            <input value={bankCode} onInput={(event) => setBankCode(event.currentTarget.value)} maxLength={20} />
          </label>
        </>
      }
      action={async () => {
        const body = bankCode.trim() === '' ? { note } : { note, bankCode: bankCode.trim() };
        const result = await api<{ returned: string; merchantTxRef: string }>('POST', `/auth/holds/${encodeURIComponent(hold.entryId)}/return`, { body });
        props.onReturned(`${hold.customerName}: ${naira(result.returned)} being returned to ${hold.senderName} (transfer ${result.merchantTxRef}).`);
      }}
    />
  );
}

export function HeldMoneyPage() {
  const canAct = useCan('operator');
  const queue = useResource(() => api<HoldsQueue>('GET', '/auth/holds'), []);
  const limits = useResource(() => api<TierLimits>('GET', '/auth/kyc-limits'), []);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  return (
    <>
      <PageTitle title="Held money" />
      <p class="muted">
        Parts of payments over a customer's KYC tier limits, oldest first. The money is in the account's ledger balance, but no payout can spend it until the customer's tier rises, an operator
        releases it, or an operator returns it to the sender.
      </p>
      <Notice notice={notice} />
      <Loaded resource={queue} what="the held money">
        {(data) => (
          <>
            <p>
              Held in all: <strong data-testid="total-held">{naira(data.totalHeld)}</strong>
            </p>
            {data.holds.length === 0 ? (
              <Empty>
                <p>No money is held.</p>
              </Empty>
            ) : (
              <TableWrap label="Credits with held money">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Customer</th>
                      <th scope="col">Account</th>
                      <th scope="col">Tier</th>
                      <th scope="col">Payment</th>
                      <th scope="col">Held</th>
                      <th scope="col">Limit</th>
                      <th scope="col">Since</th>
                      {canAct ? <th scope="col">Decision</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {data.holds.map((hold) => (
                      <tr key={hold.entryId}>
                        <td>
                          <a href={`/dashboard/customers/${hold.customerId}`}>{hold.customerName}</a>
                        </td>
                        <td>
                          <a class="mono" href={`/dashboard/accounts/${hold.accountRef}`}>
                            {hold.accountRef}
                          </a>
                        </td>
                        <td>{hold.tier}</td>
                        <td>
                          {naira(hold.creditAmount)} from {hold.senderName}
                        </td>
                        <td>{naira(hold.held)}</td>
                        <td>
                          {LIMITS[hold.limit]} {naira(hold.limitAmount)}
                        </td>
                        <td>{when(hold.since)}</td>
                        {canAct ? (
                          <td class="row-actions">
                            <ReleaseButton
                              hold={hold}
                              onReleased={(text) => {
                                setNotice({ kind: 'success', text });
                                queue.reload();
                              }}
                            />
                            <ReturnButton
                              hold={hold}
                              onReturned={(text) => {
                                setNotice({ kind: 'success', text });
                                queue.reload();
                              }}
                            />
                          </td>
                        ) : null}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </>
        )}
      </Loaded>
      <section aria-labelledby="limits-title">
        <h2 id="limits-title">Limits per KYC tier</h2>
        <p class="muted">
          Judged on what lands in the account (a credit's net amount, a payout's amount). A tenant admin sets the tenant's own limits for a tier through the API; an operator may set one customer's.
        </p>
        <Loaded resource={limits} what="the tier limits">
          {(data) => (
            <TableWrap label="Limits of each tier">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Tier</th>
                    <th scope="col" class="num">
                      Single credit
                    </th>
                    <th scope="col" class="num">
                      Balance held
                    </th>
                    <th scope="col" class="num">
                      Payouts per day
                    </th>
                    <th scope="col">Set by</th>
                  </tr>
                </thead>
                <tbody>
                  {data.tiers.map((tier) => (
                    <tr key={tier.tier}>
                      <td>{tier.tier}</td>
                      <td class="num">{limitText(tier.singleCredit)}</td>
                      <td class="num">{limitText(tier.balance)}</td>
                      <td class="num">{limitText(tier.dailyDebits)}</td>
                      <td>{tier.source === 'tenant' ? 'this tenant' : 'the platform'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </Loaded>
      </section>
    </>
  );
}

const limitText = (amount: string | null): string => (amount === null ? 'no limit' : naira(amount));
