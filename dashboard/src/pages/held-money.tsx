import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { HeldCredit, HoldReturned, HoldsQueue, ReturnDestination, TierLimits } from '../api-types';
import { PageTitle, TableWrap } from '../components/bits';
import { ConfirmButton, ConfirmDialog } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { naira, when } from '../format';
import { useCan } from '../session';

const LIMITS: Record<HeldCredit['limit'], string> = {
  single_credit: 'single credit',
  balance: 'balance',
  amount_mismatch: 'amount mismatch (to return)',
  velocity_rule: 'velocity rule',
};

/** Why a credit is held, in a few words: a velocity rule's own message, or the limit and its amount. */
const heldBecause = (hold: HeldCredit): string =>
  hold.limit === 'velocity_rule' ? `velocity rule: ${hold.reason ?? ''}` : `${LIMITS[hold.limit]} ${naira(hold.limitAmount)}`;

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
            {hold.limit === 'velocity_rule' ? (
              <>
                {hold.customerName} may then pay this money out, although the credit went past a velocity rule ({hold.reason}).
              </>
            ) : (
              <>
                {hold.customerName} may then pay this money out, although it is over the tier {hold.tier} {LIMITS[hold.limit]} limit of{' '}
                {naira(hold.limitAmount)}.
              </>
            )}
          </p>
          <label>
            Why (recorded in the audit log)
            <textarea value={note} onInput={(event) => setNote(event.currentTarget.value)} rows={3} maxLength={500} />
          </label>
        </>
      }
      action={async () => {
        const result = await api<{ released: string }>('POST', `/auth/holds/${encodeURIComponent(hold.entryId)}/release`, {
          body: { note },
        });
        props.onReleased(`${hold.customerName}: ${naira(result.released)} released.`);
      }}
    />
  );
}

/**
 * Pays the held money back to the payer (a settlement to the account the payment came from). The dialog
 * looks the payer's account up at the provider as it opens and shows the provider's name for it: a return
 * goes ahead when that is the payer's name, or when the operator confirms paying the name shown. The payer's
 * bank is found from the payment's bank name; when that names several banks, or none, the operator types the
 * bank code asked for and looks up again.
 */
function ReturnDialog(props: { hold: HeldCredit; onReturned: (text: string) => void; onClose: () => void }) {
  const { hold } = props;
  const [note, setNote] = useState('');
  const [bankCode, setBankCode] = useState('');
  const [destination, setDestination] = useState<ReturnDestination | null>(null);
  const [lookupError, setLookupError] = useState<string | null>(null);
  const [looking, setLooking] = useState(false);
  const [confirmed, setConfirmed] = useState(false);

  async function lookUp(): Promise<void> {
    setLooking(true);
    setLookupError(null);
    setDestination(null);
    setConfirmed(false);
    try {
      const body = bankCode.trim() === '' ? {} : { bankCode: bankCode.trim() };
      setDestination(await api<ReturnDestination>('POST', `/auth/holds/${encodeURIComponent(hold.entryId)}/return/lookup`, { body }));
    } catch (failure) {
      setLookupError((failure as Error).message);
    } finally {
      setLooking(false);
    }
  }

  useEffect(() => {
    void lookUp();
  }, []);

  async function returnToSender(): Promise<void> {
    if (!destination) return;
    const body = {
      note,
      bankCode: destination.bankCode,
      ...(destination.namesMatch ? {} : { confirmedAccountName: destination.accountName }),
    };
    const result = await api<HoldReturned>('POST', `/auth/holds/${encodeURIComponent(hold.entryId)}/return`, { body });
    props.onReturned(
      `${hold.customerName}: ${naira(result.returned)} being returned to ${result.accountName} (settlement ${result.merchantTxRef}).`,
    );
  }

  return (
    <ConfirmDialog
      title={`Return ${naira(hold.held)} to ${hold.senderName}?`}
      confirmLabel="Return to sender"
      confirmDisabled={!destination || (!destination.namesMatch && !confirmed)}
      onConfirm={returnToSender}
      onClose={props.onClose}
    >
      <p>
        {naira(hold.held)} is paid back to the account this payment came from, as a settlement of {hold.accountRef}. If the payout fails,
        the money comes back and is held again.
      </p>
      {looking ? <p class="muted">Looking up the payer's account…</p> : null}
      {lookupError ? (
        <p class="notice notice-error" role="alert">
          {lookupError}
        </p>
      ) : null}
      {destination ? (
        <div data-testid="return-destination">
          <p>
            The provider names account {destination.accountNumber} (bank {destination.bankCode}){' '}
            <strong data-testid="return-account-name">{destination.accountName}</strong>.
          </p>
          {destination.namesMatch ? (
            <p>That is the payer's name on the payment.</p>
          ) : (
            <>
              <p class="notice notice-error">
                The payment names the payer <strong>{destination.payerName}</strong>: the names differ. Return the money only if{' '}
                {destination.accountName} is the payer.
              </p>
              <label>
                <input type="checkbox" checked={confirmed} onChange={(event) => setConfirmed(event.currentTarget.checked)} /> Pay{' '}
                {destination.accountName} (recorded in the audit log)
              </label>
            </>
          )}
        </div>
      ) : null}
      <label>
        Why (recorded in the audit log)
        <textarea value={note} onInput={(event) => setNote(event.currentTarget.value)} rows={3} maxLength={500} />
      </label>
      <label>
        Payer's bank code (only when asked: the payment's bank name matched several banks, or none)
        <input
          value={bankCode}
          onInput={(event) => {
            setBankCode(event.currentTarget.value);
            setDestination(null);
          }}
          maxLength={20}
        />
      </label>
      <button type="button" class="button secondary small" onClick={lookUp} disabled={looking}>
        Look up the payer's account
      </button>
    </ConfirmDialog>
  );
}

function ReturnButton(props: { hold: HeldCredit; onReturned: (text: string) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="button secondary small" onClick={() => setOpen(true)}>
        Return to sender
      </button>
      {open ? <ReturnDialog hold={props.hold} onReturned={props.onReturned} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

export function HeldMoneyPage() {
  const canAct = useCan('operate');
  const queue = useResource(() => api<HoldsQueue>('GET', '/auth/holds'), []);
  const limits = useResource(() => api<TierLimits>('GET', '/auth/kyc-limits'), []);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  return (
    <>
      <PageTitle title="Held money" />
      <p class="muted">
        Parts of payments over a customer's KYC tier limits, oldest first. The money is in the account's ledger balance, but no payout can
        spend it until the customer's tier rises, an operator releases it, or an operator returns it to the sender.
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
                        <td>{heldBecause(hold)}</td>
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
          Judged on what lands in the account (a credit's net amount, a payout's amount). A tenant admin sets the tenant's own limits for a
          tier through the API; an operator may set one customer's.
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
