import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { BalanceSweep, Beneficiary, BeneficiaryList } from '../api-types';
import { Badge, Field, Summary, TableWrap } from './bits';
import { ConfirmButton } from './confirm';
import { Empty, Loaded, Notice, useResource } from './state';
import { naira, when } from '../format';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;
type Form = { beneficiaryId: string; kind: 'dailyAt' | 'whenAbove'; dailyAt: string; whenAbove: string; keep: string };

const OUTCOMES: Record<BalanceSweep['runs'][number]['outcome'], string> = {
  settled: 'Settled',
  nothing_to_move: 'Nothing to move',
  paused: 'Paused',
  refused: 'Refused',
};

function formOf(sweep: BalanceSweep | null): Form {
  const schedule = sweep?.schedule;
  return {
    beneficiaryId: sweep?.beneficiaryId ?? '',
    kind: schedule && 'whenAbove' in schedule ? 'whenAbove' : 'dailyAt',
    dailyAt: schedule && 'dailyAt' in schedule ? schedule.dailyAt : '17:00',
    whenAbove: schedule && 'whenAbove' in schedule ? schedule.whenAbove : '',
    keep: sweep?.keep ?? '0.00',
  };
}

function describeSchedule(sweep: BalanceSweep): string {
  return 'dailyAt' in sweep.schedule
    ? `Every day at ${sweep.schedule.dailyAt} (Lagos time)`
    : `Whenever more than ${naira(sweep.schedule.whenAbove)} can be settled`;
}

/** The sweep's beneficiary as the Beneficiaries page names it (its id until the list has arrived). */
function describePayee(beneficiaryId: string, beneficiaries: Beneficiary[]) {
  const payee = beneficiaries.find((beneficiary) => beneficiary.id === beneficiaryId);
  if (!payee) return <span class="mono">{beneficiaryId}</span>;
  return `${payee.accountName}${payee.nickname ? ` (${payee.nickname})` : ''}, ${payee.accountNumber} (${payee.bankCode})`;
}

function SweepForm(props: {
  accountRef: string;
  sweep: BalanceSweep | null;
  beneficiaries: Beneficiary[];
  onSaved: (text: string) => void;
}) {
  const [form, setForm] = useState<Form>(formOf(props.sweep));
  const set = (change: Partial<Form>) => setForm({ ...form, ...change });
  const chosen = props.beneficiaries.find((beneficiary) => beneficiary.id === form.beneficiaryId);
  return (
    <form class="form" aria-label="Balance sweep settings" onSubmit={(event) => event.preventDefault()}>
      <Field label="Pay to" hint="A saved beneficiary (Beneficiaries page).">
        <select name="beneficiaryId" value={form.beneficiaryId} onChange={(event) => set({ beneficiaryId: event.currentTarget.value })}>
          <option value="">Choose a beneficiary</option>
          {props.beneficiaries.map((beneficiary) => (
            <option key={beneficiary.id} value={beneficiary.id}>
              {beneficiary.nickname ?? beneficiary.accountName} — {beneficiary.accountNumber} ({beneficiary.bankCode})
            </option>
          ))}
        </select>
      </Field>
      <fieldset class="checks">
        <legend class="field-label">When</legend>
        <label>
          <input type="radio" name="kind" checked={form.kind === 'dailyAt'} onChange={() => set({ kind: 'dailyAt' })} /> Every day at
        </label>
        <label>
          <input type="radio" name="kind" checked={form.kind === 'whenAbove'} onChange={() => set({ kind: 'whenAbove' })} /> Whenever above
          an amount
        </label>
      </fieldset>
      {form.kind === 'dailyAt' ? (
        <Field label="Time (Lagos)">
          <input
            type="time"
            name="dailyAt"
            required
            value={form.dailyAt}
            onInput={(event) => set({ dailyAt: event.currentTarget.value })}
          />
        </Field>
      ) : (
        <Field label="Above (₦)" hint="Checked regularly; a check sweeps only when more than this can be settled.">
          <input
            type="text"
            inputMode="decimal"
            name="whenAbove"
            required
            value={form.whenAbove}
            onInput={(event) => set({ whenAbove: event.currentTarget.value })}
          />
        </Field>
      )}
      <Field label="Keep (₦)" hint="Left in the account by every sweep.">
        <input
          type="text"
          inputMode="decimal"
          name="keep"
          value={form.keep}
          onInput={(event) => set({ keep: event.currentTarget.value })}
        />
      </Field>
      <div>
        <ConfirmButton
          label={props.sweep ? 'Save sweep' : 'Set up sweep'}
          title={`Sweep ${props.accountRef}?`}
          disabled={!form.beneficiaryId || (form.kind === 'dailyAt' ? !form.dailyAt : !form.whenAbove)}
          description={
            <p>
              {form.kind === 'dailyAt'
                ? `Every day at ${form.dailyAt} (Lagos time)`
                : `Whenever more than ₦${form.whenAbove} can be settled`}
              , what the account can settle less ₦{form.keep || '0'} is paid to {chosen ? chosen.accountName : 'the beneficiary'} as a
              settlement.
            </p>
          }
          action={async () => {
            await api<BalanceSweep>('PUT', `/auth/accounts/${encodeURIComponent(props.accountRef)}/sweep`, {
              body: {
                beneficiaryId: form.beneficiaryId,
                schedule: form.kind === 'dailyAt' ? { dailyAt: form.dailyAt } : { whenAbove: form.whenAbove },
                keep: form.keep || '0',
              },
            });
            props.onSaved('Balance sweep saved.');
          }}
        />
      </div>
    </form>
  );
}

/** The account page's balance sweep: the setting and its recent runs; an operator sets, changes or stops it. */
export function BalanceSweepSection(props: { accountRef: string; canEdit: boolean }) {
  const { accountRef, canEdit } = props;
  const [notice, setNotice] = useState<NoticeState>(null);
  const sweep = useResource(
    () =>
      api<BalanceSweep>('GET', `/auth/accounts/${encodeURIComponent(accountRef)}/sweep`).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404 && error.message === 'balance sweep not found') return null;
        throw error;
      }),
    [accountRef],
  );
  // Where the sweep pays is shown by name to every role; the form offers the same list.
  const beneficiaries = useResource(() => api<BeneficiaryList>('GET', '/auth/beneficiaries?limit=200'), []);
  const saved = (text: string) => {
    setNotice({ kind: 'success', text });
    sweep.reload();
  };
  return (
    <section aria-labelledby="sweep-title">
      <h2 id="sweep-title">Balance sweep</h2>
      <Notice notice={notice} />
      <Loaded resource={sweep} what="the balance sweep">
        {(data) => (
          <>
            {data ? (
              <>
                <Summary
                  items={[
                    ['Pay to', describePayee(data.beneficiaryId, beneficiaries.data?.beneficiaries ?? [])],
                    ['Schedule', describeSchedule(data)],
                    ['Keep', naira(data.keep)],
                    ['Since', when(data.createdAt)],
                  ]}
                />
                {canEdit ? (
                  <ConfirmButton
                    label="Stop sweep"
                    title="Stop the balance sweep?"
                    danger
                    description={<p>No further sweeps run; settlements already made continue.</p>}
                    action={async () => {
                      await api('DELETE', `/auth/accounts/${encodeURIComponent(accountRef)}/sweep`);
                      saved('Balance sweep stopped.');
                    }}
                  />
                ) : null}
                {data.runs.length === 0 ? (
                  <Empty>
                    <p>No runs yet.</p>
                  </Empty>
                ) : (
                  <TableWrap label="Balance sweep runs">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">Period</th>
                          <th scope="col">Outcome</th>
                          <th scope="col" class="num">
                            Amount
                          </th>
                          <th scope="col">Settlement</th>
                        </tr>
                      </thead>
                      <tbody>
                        {data.runs.map((run) => (
                          <tr key={run.period}>
                            <td>{run.period.length === 10 ? run.period : when(run.period)}</td>
                            <td>
                              <Badge status={run.outcome} label={OUTCOMES[run.outcome]} />
                              {run.reason ? <span class="muted small block">{run.reason}</span> : null}
                            </td>
                            <td class="num">{run.amount ? naira(run.amount) : ''}</td>
                            <td>
                              {run.merchantTxRef ? (
                                <a class="mono" href={`/dashboard/settlements/${run.merchantTxRef}`}>
                                  {run.merchantTxRef}
                                </a>
                              ) : null}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </TableWrap>
                )}
              </>
            ) : (
              <p class="muted">No balance sweep: the balance stays in the account until it is settled.</p>
            )}
            {canEdit ? (
              <SweepForm
                key={data?.updatedAt ?? 'new'}
                accountRef={accountRef}
                sweep={data}
                beneficiaries={beneficiaries.data?.beneficiaries ?? []}
                onSaved={saved}
              />
            ) : null}
          </>
        )}
      </Loaded>
    </section>
  );
}
