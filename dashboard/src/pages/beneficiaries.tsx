import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { Banks, Beneficiary, BeneficiaryList } from '../api-types';
import { Field, PageTitle, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { MetadataList } from '../components/metadata';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { when } from '../format';
import { useCan } from '../session';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;

/** The most the page shows; more are listed through the API. */
const SHOWN = 200;

/** Saving looks the name up at the provider (a destination already saved takes the name again): the page shows that name. */
function AddBeneficiaryForm(props: { banks: Banks['banks']; onSaved: (saved: Beneficiary) => void }) {
  const [bankCode, setBankCode] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const [nickname, setNickname] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function save(event: Event): Promise<void> {
    event.preventDefault();
    setError(null);
    if (!bankCode) return setError('Choose the bank.');
    if (!/^\d{10}$/.test(accountNumber)) return setError('The account number is 10 digits.');
    setSaving(true);
    try {
      const saved = await api<Beneficiary>('POST', '/auth/beneficiaries', {
        body: { bankCode, accountNumber, ...(nickname.trim() ? { nickname: nickname.trim() } : {}) },
      });
      setAccountNumber('');
      setNickname('');
      props.onSaved(saved);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 404 ? 'The bank has no account with that number.' : (failure as Error).message,
      );
    } finally {
      setSaving(false);
    }
  }

  return (
    <form class="form" aria-label="Add a beneficiary" onSubmit={save}>
      <h2>Add a beneficiary</h2>
      <Field label="Bank">
        <select name="bankCode" required value={bankCode} onChange={(event) => setBankCode(event.currentTarget.value)}>
          <option value="">Choose a bank</option>
          {props.banks.map((bank) => (
            <option key={bank.Code} value={bank.Code}>
              {bank.Name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Account number">
        <input
          name="accountNumber"
          inputMode="numeric"
          required
          maxLength={10}
          value={accountNumber}
          onInput={(event) => setAccountNumber(event.currentTarget.value.trim())}
        />
      </Field>
      <Field label="Nickname (optional)">
        <input name="nickname" maxLength={100} value={nickname} onInput={(event) => setNickname(event.currentTarget.value)} />
      </Field>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      <div>
        <button type="submit" class="button secondary" disabled={saving}>
          {saving ? 'Looking the name up…' : 'Look up and save'}
        </button>
      </div>
    </form>
  );
}

export function BeneficiariesPage() {
  const canChange = useCan('move_money');
  const list = useResource(() => api<BeneficiaryList>('GET', `/auth/beneficiaries?limit=${SHOWN}`), []);
  const banks = useResource(() => api<Banks>('GET', '/auth/settlements/banks'), []);
  const [notice, setNotice] = useState<NoticeState>(null);
  const bankName = (code: string) => banks.data?.banks.find((bank) => bank.Code === code)?.Name ?? code;

  return (
    <>
      <PageTitle title="Beneficiaries" />
      <p>
        Saved payout destinations, each with the name the bank gave it. A settlement can pay one by picking it; a name checked more than a
        day ago is checked with the bank again first.
      </p>
      <Notice notice={notice} />
      <Loaded resource={list} what="the beneficiaries">
        {(data) =>
          data.beneficiaries.length === 0 ? (
            <Empty>No beneficiaries yet.</Empty>
          ) : (
            <TableWrap label="Beneficiaries">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Account name (from the bank)</th>
                    <th scope="col">Nickname</th>
                    <th scope="col">Account</th>
                    <th scope="col">Name checked</th>
                    <th scope="col">Metadata</th>
                    {canChange ? <th scope="col">Actions</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {data.beneficiaries.map((beneficiary) => (
                    <tr key={beneficiary.id} data-testid="beneficiary-row">
                      <td>
                        <strong>{beneficiary.accountName}</strong>
                      </td>
                      <td>{beneficiary.nickname ?? <span class="muted">none</span>}</td>
                      <td>
                        <span class="mono">{beneficiary.accountNumber}</span> {bankName(beneficiary.bankCode)}
                      </td>
                      <td>{when(beneficiary.nameCheckedAt)}</td>
                      <td>
                        <MetadataList metadata={beneficiary.metadata} />
                      </td>
                      {canChange ? (
                        <td>
                          <ConfirmButton
                            small
                            danger
                            label="Delete"
                            title={`Delete ${beneficiary.accountName}?`}
                            description={<p>No new settlement can pay it; settlements already made to it still show it.</p>}
                            action={async () => {
                              await api('DELETE', `/auth/beneficiaries/${beneficiary.id}`);
                              setNotice({ kind: 'success', text: `Deleted ${beneficiary.accountName}.` });
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
      {canChange ? (
        banks.status === 'error' ? (
          <ErrorBox message={`The bank list is unavailable: ${banks.error}`} onRetry={banks.reload} />
        ) : (
          <AddBeneficiaryForm
            banks={banks.data?.banks ?? []}
            onSaved={(saved) => {
              setNotice({ kind: 'success', text: `Saved ${saved.accountName} (${saved.accountNumber}, ${bankName(saved.bankCode)}).` });
              list.reload();
            }}
          />
        )
      ) : null}
    </>
  );
}
