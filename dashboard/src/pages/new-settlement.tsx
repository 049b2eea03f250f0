import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { Banks, BeneficiaryList, DashboardAccount, Lookup, SettleAccepted } from '../api-types';
import { Field, PageTitle, Summary } from '../components/bits';
import { ConfirmDialog } from '../components/confirm';
import { MoneyForm } from '../components/money-form';
import { ErrorBox, Loaded, useResource } from '../components/state';
import { naira, newIdempotencyKey, twoDecimals } from '../format';
import { useCan } from '../session';

interface Draft {
  amount: string;
  /** A saved beneficiary to pay ('' : the bank account entered below). */
  beneficiaryId: string;
  bankCode: string;
  accountNumber: string;
  narration: string;
}

/** The destination the operator saw named by the provider (or saved with that name), and the one key for paying it. */
interface Checked {
  draft: Draft;
  name: string;
  idempotencyKey: string;
}

const AMOUNT_RE = /^\d+(\.\d{1,2})?$/;

export function NewSettlementPage() {
  const { params } = useRoute();
  const location = useLocation();
  const accountRef = params.accountRef ?? '';
  const allowed = useCan('move_money');
  const account = useResource(() => api<DashboardAccount>('GET', `/auth/accounts/${encodeURIComponent(accountRef)}`), [accountRef]);
  const banks = useResource(() => api<Banks>('GET', '/auth/settlements/banks'), []);
  const beneficiaries = useResource(() => api<BeneficiaryList>('GET', '/auth/beneficiaries?limit=200'), []);
  const [draft, setDraft] = useState<Draft>({ amount: '', beneficiaryId: '', bankCode: '', accountNumber: '', narration: '' });
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
    const beneficiary = beneficiaries.data?.beneficiaries.find((saved) => saved.id === draft.beneficiaryId);
    if (beneficiary) {
      // Its saved name: the service checks it with the bank again before paying when it is more than a day old.
      const destination = { bankCode: beneficiary.bankCode, accountNumber: beneficiary.accountNumber };
      return setChecked({ draft: { ...draft, ...destination }, name: beneficiary.accountName, idempotencyKey: newIdempotencyKey() });
    }
    if (!/^\d{10}$/.test(draft.accountNumber)) return setLookupError('The account number is 10 digits.');
    if (!draft.bankCode) return setLookupError('Choose the bank.');
    setLooking(true);
    try {
      const found = await api<Lookup>('POST', '/auth/settlements/lookup', {
        body: { accountNumber: draft.accountNumber, bankCode: draft.bankCode },
      });
      setChecked({ draft, name: found.AccountName, idempotencyKey: newIdempotencyKey() });
    } catch (failure) {
      setLookupError(
        failure instanceof ApiError && failure.status === 404 ? 'The bank has no account with that number.' : (failure as Error).message,
      );
    } finally {
      setLooking(false);
    }
  }

  async function pay(): Promise<void> {
    if (!checked) return;
    const { draft: sent } = checked;
    const accepted = await api<SettleAccepted>('POST', `/auth/accounts/${encodeURIComponent(accountRef)}/settle`, {
      headers: { 'Idempotency-Key': checked.idempotencyKey },
      body: {
        amount: sent.amount,
        ...(sent.beneficiaryId ? { beneficiaryId: sent.beneficiaryId } : { bankCode: sent.bankCode, accountNumber: sent.accountNumber }),
        ...(sent.narration.trim() ? { narration: sent.narration.trim() } : {}),
        confirmedAccountName: checked.name,
      },
    });
    // A payout the approval policy holds is no settlement yet: it waits on the approvals page.
    location.route(
      accepted.status === 'awaiting_approval'
        ? '/dashboard/approvals'
        : `/dashboard/settlements/${encodeURIComponent(accepted.merchantTxRef)}`,
    );
  }

  const bankName = (code: string) => banks.data?.banks.find((bank) => bank.Code === code)?.Name ?? code;

  if (!allowed) {
    return (
      <>
        <PageTitle title="New settlement" />
        <ErrorBox message="Your role can read settlements but not start them." />
      </>
    );
  }

  return (
    <>
      <PageTitle title="New settlement" />
      <Loaded resource={account} what="the account">
        {(data) => (
          <>
            <p>
              From <a href={`/dashboard/accounts/${encodeURIComponent(accountRef)}`}>{accountRef}</a> ({data.CustomerName}), can be settled
              now: <strong data-testid="settleable">{naira(data.balances.settleable)}</strong>{' '}
              <span class="muted small">
                ({data.balances.settlesFrom === 'ledger' ? 'the ledger balance' : 'the available balance: confirmed credits only'})
              </span>
            </p>
            {data.InDeficit ? (
              <p class="notice notice-error" role="alert">
                This account is in deficit: a settlement from it is refused until payments bring it back above zero.
              </p>
            ) : null}
          </>
        )}
      </Loaded>
      <MoneyForm
        draft={draft}
        update={update}
        onLookUp={lookUp}
        lookupError={lookupError}
        looking={looking}
        lookUpLabel={draft.beneficiaryId ? 'Review the payment' : 'Look up the account name'}
      >
        {/* Labelled apart from its options, whose bank names would otherwise be part of its label. */}
        <div class="field">
          <label class="field-label" for="pay-to">
            Pay to
          </label>
          <select
            id="pay-to"
            name="beneficiaryId"
            value={draft.beneficiaryId}
            onChange={(event) => update({ beneficiaryId: event.currentTarget.value })}
          >
            <option value="">A bank account (enter it below)</option>
            {(beneficiaries.data?.beneficiaries ?? []).map((saved) => (
              <option key={saved.id} value={saved.id}>
                {saved.accountName}
                {saved.nickname ? ` (${saved.nickname})` : ''}, {saved.accountNumber} {bankName(saved.bankCode)}
              </option>
            ))}
          </select>
        </div>
        {draft.beneficiaryId ? null : (
          <>
            <Field label="Bank">
              <select name="bankCode" required value={draft.bankCode} onChange={(event) => update({ bankCode: event.currentTarget.value })}>
                <option value="">{banks.status === 'loading' ? 'Loading banks…' : 'Choose a bank'}</option>
                {(banks.data?.banks ?? []).map((bank) => (
                  <option key={bank.Code} value={bank.Code}>
                    {bank.Name}
                  </option>
                ))}
              </select>
            </Field>
            {banks.status === 'error' ? <ErrorBox message={`The bank list is unavailable: ${banks.error}`} onRetry={banks.reload} /> : null}
            <Field label="Account number">
              <input
                name="accountNumber"
                inputMode="numeric"
                required
                maxLength={10}
                value={draft.accountNumber}
                onInput={(event) => update({ accountNumber: event.currentTarget.value.trim() })}
              />
            </Field>
          </>
        )}
      </MoneyForm>
      {checked ? (
        <section class="lookup-result" aria-labelledby="lookup-title">
          <h2 id="lookup-title">Confirm the destination</h2>
          <Summary
            items={[
              [
                checked.draft.beneficiaryId ? 'Account name (saved beneficiary)' : 'Account name (from the bank)',
                <strong data-testid="lookup-name">{checked.name}</strong>,
              ],
              ['Account number', checked.draft.accountNumber],
              ['Bank', bankName(checked.draft.bankCode)],
              ['Amount', naira(twoDecimals(checked.draft.amount))],
            ]}
          />
          <p>Pay only if this is the name you expect. The provider's transfer fee is not taken from the account.</p>
          <button type="button" class="button primary" onClick={() => setConfirming(true)}>
            Pay {checked.name}
          </button>
        </section>
      ) : null}
      {confirming && checked ? (
        <ConfirmDialog title="Pay this settlement?" confirmLabel="Pay now" onConfirm={pay} onClose={() => setConfirming(false)}>
          <p>
            Pay <strong>{naira(twoDecimals(checked.draft.amount))}</strong> from {accountRef} to <strong>{checked.name}</strong> (
            {checked.draft.accountNumber}, {bankName(checked.draft.bankCode)}).
          </p>
          <p class="muted small">Sent once: retrying this request can never pay twice (Idempotency-Key {checked.idempotencyKey}).</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
