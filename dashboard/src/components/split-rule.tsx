import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { SplitRule } from '../api-types';
import { Field, TableWrap } from './bits';
import { ConfirmButton } from './confirm';
import { Notice, useResource } from './state';
import { naira } from '../format';
import { useCan } from '../session';

interface DraftPart {
  toAccountRef: string;
  by: 'percent' | 'amount';
  value: string;
}

const emptyPart = (): DraftPart => ({ toAccountRef: '', by: 'percent', value: '' });

/** The account's split rule (docs/split-rules.md): shown to every role; an admin sets or removes it (audited). */
export function SplitRuleSection(props: { accountRef: string }) {
  const path = `/auth/accounts/${encodeURIComponent(props.accountRef)}/split-rule`;
  const canChange = useCan('set_money_rules');
  const rule = useResource(
    () =>
      api<SplitRule>('GET', path).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    [path],
  );
  const [editing, setEditing] = useState(false);
  const [parts, setParts] = useState<DraftPart[]>([emptyPart()]);
  const [feeBearer, setFeeBearer] = useState<'account' | 'split'>('account');
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  function edit(): void {
    const current = rule.data;
    setParts(
      current
        ? current.parts.map((part) => ({
            toAccountRef: part.toAccountRef,
            by: part.percent !== null ? 'percent' : 'amount',
            value: part.percent !== null ? String(part.percent) : (part.amount ?? ''),
          }))
        : [emptyPart()],
    );
    setFeeBearer(current?.feeBearer ?? 'account');
    setEditing(true);
  }

  async function save(event: Event): Promise<void> {
    event.preventDefault();
    try {
      await api<SplitRule>('PUT', path, {
        body: {
          feeBearer,
          parts: parts.map((part) =>
            part.by === 'percent'
              ? { toAccountRef: part.toAccountRef.trim(), percent: Number(part.value) }
              : { toAccountRef: part.toAccountRef.trim(), amount: part.value.trim() },
          ),
        },
      });
      setNotice({ kind: 'success', text: 'Split rule saved.' });
      setEditing(false);
      rule.reload();
    } catch (error) {
      setNotice({ kind: 'error', text: error instanceof Error ? error.message : String(error) });
    }
  }

  const setPart = (index: number, change: Partial<DraftPart>) =>
    setParts(parts.map((part, at) => (at === index ? { ...part, ...change } : part)));

  return (
    <section aria-labelledby="split-rule-title" aria-busy={rule.status === 'loading'}>
      <h2 id="split-rule-title">Split rule</h2>
      <Notice notice={notice} />
      {rule.data ? (
        <>
          <p class="muted small">
            When a payment into this account is confirmed, these parts move to the accounts named, in order (the{' '}
            {rule.data.feeBearer === 'account'
              ? 'account bears the provider fee: shares are of the gross payment'
              : 'fee is shared: shares are of the net credit'}
            ).
          </p>
          <TableWrap label="Split parts">
            <table>
              <thead>
                <tr>
                  <th scope="col">To account</th>
                  <th scope="col" class="num">
                    Part
                  </th>
                </tr>
              </thead>
              <tbody>
                {rule.data.parts.map((part) => (
                  <tr key={part.toAccountRef}>
                    <td>
                      <a href={`/dashboard/accounts/${encodeURIComponent(part.toAccountRef)}`}>{part.toAccountRef}</a>
                    </td>
                    <td class="num">{part.percent !== null ? `${part.percent}%` : naira(part.amount ?? '0.00')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      ) : rule.status === 'ready' ? (
        <p class="muted">No split rule: payments stay whole in this account.</p>
      ) : null}
      {canChange && !editing && rule.status === 'ready' ? (
        <div class="toolbar">
          <button type="button" class="button secondary" onClick={edit}>
            {rule.data ? 'Change split rule' : 'Add a split rule'}
          </button>
          {rule.data ? (
            <ConfirmButton
              label="Remove split rule"
              title="Remove the split rule?"
              danger
              description={<p>Payments confirmed from now on stay whole in this account.</p>}
              action={async () => {
                await api('DELETE', path);
                setNotice({ kind: 'success', text: 'Split rule removed.' });
                rule.reload();
              }}
            />
          ) : null}
        </div>
      ) : null}
      {editing ? (
        <form onSubmit={save} aria-label="Split rule">
          {parts.map((part, index) => (
            <fieldset key={index} class="toolbar">
              <legend class="small">Part {index + 1}</legend>
              <Field label="To account (accountRef)">
                <input
                  value={part.toAccountRef}
                  required
                  onInput={(event) => setPart(index, { toAccountRef: event.currentTarget.value })}
                />
              </Field>
              <Field label="By">
                <select value={part.by} onChange={(event) => setPart(index, { by: event.currentTarget.value as DraftPart['by'] })}>
                  <option value="percent">Percent</option>
                  <option value="amount">Fixed amount (₦)</option>
                </select>
              </Field>
              <Field label={part.by === 'percent' ? 'Percent' : 'Amount (₦)'}>
                <input
                  value={part.value}
                  required
                  inputMode="decimal"
                  onInput={(event) => setPart(index, { value: event.currentTarget.value })}
                />
              </Field>
              {parts.length > 1 ? (
                <button type="button" class="button secondary small" onClick={() => setParts(parts.filter((_, at) => at !== index))}>
                  Remove part
                </button>
              ) : null}
            </fieldset>
          ))}
          <div class="toolbar">
            <button type="button" class="button secondary" onClick={() => setParts([...parts, emptyPart()])}>
              Add a part
            </button>
            <Field label="Provider fee borne by">
              <select value={feeBearer} onChange={(event) => setFeeBearer(event.currentTarget.value as 'account' | 'split')}>
                <option value="account">This account (shares of the gross)</option>
                <option value="split">Everyone (shares of the net)</option>
              </select>
            </Field>
            <button type="submit" class="button primary">
              Save split rule
            </button>
            <button type="button" class="button secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
