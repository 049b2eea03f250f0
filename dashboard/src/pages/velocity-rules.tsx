import { useState } from 'preact/hooks';
import { api } from '../api';
import type { VelocityRule, VelocityRuleList } from '../api-types';
import { Field, PageTitle, TableWrap } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { naira } from '../format';
import { useCan } from '../session';

type NoticeState = { kind: 'success' | 'error'; text: string } | null;
type Subject = VelocityRule['subject'];
type Action = VelocityRule['action'];

/** What a rule over each subject may do and whose window it counts (the API refuses anything else, with why). */
const ACTIONS: Record<Subject, Action[]> = { payouts: ['refuse', 'review'], credits: ['hold'] };
const SCOPES: Record<Subject, Array<VelocityRule['scope']>> = {
  payouts: ['account', 'customer', 'destination'],
  credits: ['account', 'customer'],
};
const ACTION_LABELS: Record<Action, string> = {
  refuse: 'Refuse the payout',
  review: 'Send the payout to review (approvals)',
  hold: 'Hold the credit until an operator releases it',
};
const SCOPE_LABELS: Record<VelocityRule['scope'], string> = {
  account: 'Per account',
  customer: "Per customer (all of the customer's accounts)",
  destination: 'Per destination bank account',
};

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** "at most 3 payouts per account in 1 h", in a few words. */
function describe(rule: VelocityRule): string {
  const most = rule.measure === 'count' ? `${rule.maxCount ?? ''} ${rule.subject}` : `${naira(rule.maxAmount ?? '0')} of ${rule.subject}`;
  return `At most ${most} ${SCOPE_LABELS[rule.scope].toLowerCase()} in ${windowText(rule.windowSeconds)}`;
}

function windowText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/**
 * A new rule. Nothing is checked here that the API checks: what it refuses (a credit rule over a destination, a
 * refusing rule without its message, a window out of range) is shown as it words it.
 */
function AddRuleForm(props: { onAdded: (rule: VelocityRule) => void }) {
  const [subject, setSubject] = useState<Subject>('payouts');
  const [measure, setMeasure] = useState<VelocityRule['measure']>('count');
  const [limit, setLimit] = useState('');
  const [scope, setScope] = useState<VelocityRule['scope']>('account');
  const [windowSeconds, setWindowSeconds] = useState('3600');
  const [action, setAction] = useState<Action>('refuse');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function chooseSubject(next: Subject): void {
    setSubject(next);
    setAction(ACTIONS[next][0]!);
  }

  async function add(event: Event): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const added = await api<VelocityRule>('POST', '/auth/velocity-rules', {
        body: {
          subject,
          measure,
          ...(measure === 'count' ? { maxCount: Number(limit) } : { maxAmount: limit }),
          scope,
          windowSeconds: Number(windowSeconds),
          action,
          ...(text.trim() ? { message: text.trim() } : {}),
        },
      });
      setLimit('');
      setText('');
      props.onAdded(added);
    } catch (failure) {
      setError(message(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="form" aria-label="Add a velocity rule" onSubmit={add}>
      <h2>Add a rule</h2>
      {error ? (
        <p class="notice notice-error" role="alert" data-testid="velocity-rule-error">
          {error}
        </p>
      ) : null}
      <Field label="Rule over">
        <select name="subject" value={subject} onChange={(event) => chooseSubject(event.currentTarget.value as Subject)}>
          <option value="payouts">Payouts (money leaving)</option>
          <option value="credits">Credits (payments arriving)</option>
        </select>
      </Field>
      <Field label="Measure">
        <select name="measure" value={measure} onChange={(event) => setMeasure(event.currentTarget.value as VelocityRule['measure'])}>
          <option value="count">How many</option>
          <option value="amount">How much (naira)</option>
        </select>
      </Field>
      <Field label={measure === 'count' ? 'At most (a number)' : 'At most (naira)'}>
        <input name="limit" inputMode="decimal" required value={limit} onInput={(event) => setLimit(event.currentTarget.value)} />
      </Field>
      <Field label="Scope">
        <select name="scope" value={scope} onChange={(event) => setScope(event.currentTarget.value as VelocityRule['scope'])}>
          {SCOPES[subject].map((value) => (
            <option key={value} value={value}>
              {SCOPE_LABELS[value]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Window (seconds)" hint="The rolling window: 3600 is an hour, 86400 a day (at most 30 days).">
        <input
          name="windowSeconds"
          inputMode="numeric"
          required
          value={windowSeconds}
          onInput={(event) => setWindowSeconds(event.currentTarget.value)}
        />
      </Field>
      <Field label="Past the rule">
        <select name="action" value={action} onChange={(event) => setAction(event.currentTarget.value as Action)}>
          {ACTIONS[subject].map((value) => (
            <option key={value} value={value}>
              {ACTION_LABELS[value]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Message" hint="What a refused payout's caller is told, or why a held credit is held; a reviewing rule has none.">
        <input name="message" maxLength={200} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      </Field>
      <div>
        <button type="submit" class="button primary" disabled={busy}>
          Add rule
        </button>
      </div>
    </form>
  );
}

/**
 * The tenant's velocity rules (docs/velocity-rules.md), for a user who may set the rules that move money
 * (set_money_rules): listed, added and deleted, each change audited.
 */
export function VelocityRulesPage() {
  const canChange = useCan('set_money_rules');
  const rules = useResource(
    () => (canChange ? api<VelocityRuleList>('GET', '/auth/velocity-rules') : Promise.resolve({ data: [] })),
    [canChange],
  );
  const [notice, setNotice] = useState<NoticeState>(null);

  if (!canChange) {
    return (
      <>
        <PageTitle title="Velocity rules" />
        <ErrorBox message="Only a user who may set the rules that move money manages velocity rules." />
      </>
    );
  }

  return (
    <>
      <PageTitle title="Velocity rules" />
      <p class="muted">
        Limits on how fast money moves within a rolling window. A payout past a rule is refused with its message or sent to review; a
        payment past a credit rule still arrives, but is held in the held-money queue until an operator releases it.
      </p>
      <Notice notice={notice} />
      <Loaded resource={rules} what="velocity rules">
        {(data) =>
          data.data.length === 0 ? (
            <Empty>
              <p>No velocity rules: payouts and payments move as the API describes.</p>
            </Empty>
          ) : (
            <TableWrap label="Velocity rules">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Rule</th>
                    <th scope="col">Past it</th>
                    <th scope="col">Message</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((rule) => (
                    <tr key={rule.id} data-rule={rule.id}>
                      <td>{describe(rule)}</td>
                      <td>{rule.action}</td>
                      <td>{rule.message ?? ''}</td>
                      <td>
                        <ConfirmButton
                          small
                          danger
                          label="Delete"
                          title="Delete this rule?"
                          description={<p>{describe(rule)}: nothing is judged by it from now on.</p>}
                          action={async () => {
                            await api('DELETE', `/auth/velocity-rules/${rule.id}`);
                            setNotice({ kind: 'success', text: 'Rule deleted.' });
                            rules.reload();
                          }}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
      <AddRuleForm
        onAdded={(rule) => {
          setNotice({ kind: 'success', text: `Rule added: ${describe(rule)}.` });
          rules.reload();
        }}
      />
    </>
  );
}
