import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { PaymentRefunds, Refund, RefundLookup } from '../api-types';
import { naira, newIdempotencyKey, twoDecimals, when } from '../format';
import { Badge, TableWrap } from './bits';
import { ConfirmDialog } from './confirm';

/** The refunds of a payment made so far, oldest first. */
function RefundList(props: { refunds: Refund[] }) {
  if (props.refunds.length === 0) return <p class="muted small">No refunds of this payment yet.</p>;
  return (
    <TableWrap label="Refunds of this payment">
      <table data-testid="payment-refunds">
        <thead>
          <tr>
            <th scope="col">Made</th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {props.refunds.map((refund) => (
            <tr key={refund.refundId}>
              <td>{when(refund.createdAt)}</td>
              <td class="num">{naira(refund.amount)}</td>
              <td>
                <Badge status={refund.status} />
              </td>
              <td>{refund.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/**
 * Refunds part or all of a confirmed payment to its payer (docs/refunds.md). As it opens, the dialog looks the payer's
 * account up at the provider and shows the provider's name for it beside the payer's, with what may still be refunded
 * (the amount's default) and the payment's refunds so far; it refunds only when the names match (there is no override).
 */
function RefundDialog(props: { transactionGroupId: string; onRefunded: (text: string) => void; onClose: () => void }) {
  const path = `/auth/payments/${encodeURIComponent(props.transactionGroupId)}/refunds`;
  const [destination, setDestination] = useState<RefundLookup | null>(null);
  const [made, setMade] = useState<PaymentRefunds | null>(null);
  const [lookupError, setLookupError] = useState<string | null>(null);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  // One key per dialog: a retry of the same refund never pays twice.
  const [idempotencyKey] = useState(newIdempotencyKey);

  useEffect(() => {
    api<PaymentRefunds>('GET', path).then(setMade, (failure: Error) => setLookupError(failure.message));
    api<RefundLookup>('POST', `${path}/lookup`, { body: {} }).then(
      (found) => {
        setDestination(found);
        setAmount(found.refundable);
      },
      (failure: Error) => setLookupError(failure.message),
    );
  }, [path]);

  async function refund(): Promise<void> {
    const body = { amount: twoDecimals(amount.trim()), reason: reason.trim() };
    const result = await api<Refund>('POST', path, { body, headers: { 'Idempotency-Key': idempotencyKey } });
    props.onRefunded(
      `${naira(result.amount)} being refunded to ${destination?.accountName ?? 'the payer'} (settlement ${result.merchantTxRef}).`,
    );
  }

  const ready =
    destination !== null && destination.namesMatch && destination.refundable !== '0.00' && reason.trim() !== '' && amount.trim() !== '';
  return (
    <ConfirmDialog title="Refund this payment?" confirmLabel="Refund" confirmDisabled={!ready} onConfirm={refund} onClose={props.onClose}>
      <p>
        The refund is paid to the account this payment came from, as a settlement of this account. If the payout fails, the money comes back
        and may be refunded again.
      </p>
      {destination === null && lookupError === null ? <p class="muted">Looking up the payer's account…</p> : null}
      {lookupError ? (
        <p class="notice notice-error" role="alert">
          {lookupError}
        </p>
      ) : null}
      {destination ? (
        <div data-testid="refund-destination">
          <p>
            The provider names account {destination.accountNumber} (bank {destination.bankCode}){' '}
            <strong data-testid="refund-account-name">{destination.accountName}</strong>; the payment names the payer{' '}
            <strong>{destination.payerName}</strong>.
          </p>
          {destination.namesMatch ? (
            <p>The names match.</p>
          ) : (
            <p class="notice notice-error">The names differ: a refund pays only an account the provider names as the payer.</p>
          )}
          <p>
            Refundable now: <strong data-testid="refund-refundable">{naira(destination.refundable)}</strong>
          </p>
        </div>
      ) : null}
      <label>
        Amount (naira)
        <input name="refund-amount" inputMode="decimal" value={amount} onInput={(event) => setAmount(event.currentTarget.value)} />
      </label>
      <label>
        Reason
        <textarea name="refund-reason" value={reason} onInput={(event) => setReason(event.currentTarget.value)} rows={2} maxLength={500} />
      </label>
      {made ? <RefundList refunds={made.refunds} /> : null}
    </ConfirmDialog>
  );
}

/** The Refund action of a confirmed payment line. */
export function RefundButton(props: { transactionGroupId: string; onRefunded: (text: string) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="button secondary small" onClick={() => setOpen(true)}>
        Refund
      </button>
      {open ? (
        <RefundDialog transactionGroupId={props.transactionGroupId} onRefunded={props.onRefunded} onClose={() => setOpen(false)} />
      ) : null}
    </>
  );
}
