import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { DashboardAccount, InternalTransfer } from '../api-types';
import { Field, PageTitle, Summary } from '../components/bits';
import { ConfirmDialog } from '../components/confirm';
import { MoneyForm } from '../components/money-form';
import { ErrorBox, Loaded, useResource } from '../components/state';
import { naira, newIdempotencyKey, twoDecimals } from '../format';
import { useCan } from '../session';

interface Draft {
  amount: string;
  toAccountRef: string;
  narration: string;
}

/** The receiving account the operator saw named, and the one key for this transfer. */
interface Checked {
  draft: Draft;
  customerName: string;
  accountName: string;
  idempotencyKey: string;
}

const AMOUNT_RE = /^\d+(\.\d{1,2})?$/;

export function NewTransferPage() {
  const { params } = useRoute();
  const location = useLocation();
  const accountRef = params.accountRef ?? '';
  const allowed = useCan('move_money');
  const account = useResource(() => api<DashboardAccount>('GET', `/auth/accounts/${encodeURIComponent(accountRef)}`), [accountRef]);
  const [draft, setDraft] = useState<Draft>({ amount: '', toAccountRef: '', narration: '' });
  const [checked, setChecked] = useState<Checked | null>(null);
  const [lookupError, setLookupError] = useState<string | null>(null);
  const [looking, setLooking] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const update = (change: Partial<Draft>) => {
    setDraft({ ...draft, ...change });
    // Any change after the lookup needs a new lookup (and a new key: it is another request).
    setChecked(null);
  };

  async function lookUp(event: Event): Promise<void> {
    event.preventDefault();
    setLookupError(null);
    if (!AMOUNT_RE.test(draft.amount) || Number(draft.amount) <= 0)
      return setLookupError('Enter an amount in naira, with at most two decimals.');
    if (!draft.toAccountRef) return setLookupError('Enter the receiving account’s reference.');
    if (draft.toAccountRef === accountRef) return setLookupError('Choose another account: this is the account the money leaves.');
    setLooking(true);
    try {
      const found = await api<DashboardAccount>('GET', `/auth/accounts/${encodeURIComponent(draft.toAccountRef)}`);
      setChecked({ draft, customerName: found.CustomerName, accountName: found.BankAccountName, idempotencyKey: newIdempotencyKey() });
    } catch (failure) {
      setLookupError(
        failure instanceof ApiError && failure.status === 404
          ? 'No account of this tenant has that reference.'
          : (failure as Error).message,
      );
    } finally {
      setLooking(false);
    }
  }

  async function send(): Promise<void> {
    if (!checked) return;
    const { draft: sent } = checked;
    const made = await api<InternalTransfer>('POST', `/auth/accounts/${encodeURIComponent(accountRef)}/transfers`, {
      headers: { 'Idempotency-Key': checked.idempotencyKey },
      body: {
        toAccountRef: sent.toAccountRef,
        amount: sent.amount,
        ...(sent.narration.trim() ? { narration: sent.narration.trim() } : {}),
      },
    });
    // A transfer the approval policy holds has moved nothing yet: it waits on the approvals page.
    location.route(made.status === 'awaiting_approval' ? '/dashboard/approvals' : `/dashboard/accounts/${encodeURIComponent(accountRef)}`);
  }

  if (!allowed) {
    return (
      <>
        <PageTitle title="Transfer" />
        <ErrorBox message="Your role can read accounts but not move money between them." />
      </>
    );
  }

  return (
    <>
      <PageTitle title="Transfer to another account" />
      <Loaded resource={account} what="the account">
        {(data) => (
          <p>
            From <a href={`/dashboard/accounts/${encodeURIComponent(accountRef)}`}>{accountRef}</a> ({data.CustomerName}), can be moved now:{' '}
            <strong data-testid="transferable">{naira(data.balances.transferable)}</strong>
          </p>
        )}
      </Loaded>
      <MoneyForm
        draft={draft}
        update={update}
        onLookUp={lookUp}
        lookupError={lookupError}
        looking={looking}
        lookUpLabel="Look up the receiving account"
      >
        <Field label="Receiving account (AccountRef)">
          <input
            name="toAccountRef"
            required
            maxLength={100}
            value={draft.toAccountRef}
            onInput={(event) => update({ toAccountRef: event.currentTarget.value.trim() })}
          />
        </Field>
      </MoneyForm>
      {checked ? (
        <section class="lookup-result" aria-labelledby="recipient-title">
          <h2 id="recipient-title">Confirm the receiving account</h2>
          <Summary
            items={[
              ['Customer', <strong data-testid="recipient-name">{checked.customerName}</strong>],
              ['Account name', checked.accountName],
              ['Account', checked.draft.toAccountRef],
              ['Amount', naira(twoDecimals(checked.draft.amount))],
            ]}
          />
          <p>The money moves at once, inside the ledger: nothing is paid out to a bank.</p>
          <button type="button" class="button primary" onClick={() => setConfirming(true)}>
            Transfer to {checked.customerName}
          </button>
        </section>
      ) : null}
      {confirming && checked ? (
        <ConfirmDialog title="Make this transfer?" confirmLabel="Transfer now" onConfirm={send} onClose={() => setConfirming(false)}>
          <p>
            Move <strong>{naira(twoDecimals(checked.draft.amount))}</strong> from {accountRef} to <strong>{checked.customerName}</strong> (
            {checked.draft.toAccountRef}).
          </p>
          <p class="muted small">
            Sent once: retrying this request can never move the money twice (Idempotency-Key {checked.idempotencyKey}).
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
