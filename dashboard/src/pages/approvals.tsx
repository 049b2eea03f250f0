import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ApprovalPolicy, HeldPayout, HeldPayoutList } from '../api-types';
import { Badge, Field, PageTitle, Summary } from '../components/bits';
import { ConfirmButton } from '../components/confirm';
import { HeldItems, makerAndWhenColumns, noneHeld } from '../components/held-items';
import { Loaded, Notice, useResource } from '../components/state';
import { humanize, naira } from '../format';
import { useCan } from '../session';
import { HeldTransfersSection } from './held-transfers';
import { HeldBatchesSection } from './held-batches';

type Status = HeldPayout['status'];
const STATUSES: Status[] = ['awaiting_approval', 'approved', 'rejected', 'expired'];

const hours = (seconds: number): string => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`);

/**
 * Payouts the tenant's approval policy holds (docs/approvals.md): a user with approve_money approves or rejects each,
 * never one they made; an admin sets the policy here.
 */
export function ApprovalsPage() {
  const [status, setStatus] = useState<Status>('awaiting_approval');

  return (
    <>
      <PageTitle title="Approvals" />
      <p class="muted">
        Payouts the approval policy holds wait here with their money set aside, until someone other than their maker approves or rejects
        them, or they expire. Every decision is recorded with your name and the time.
      </p>
      <PolicySection />
      <HeldItems<HeldPayout, HeldPayoutList>
        status={status}
        path="/auth/approvals"
        items={(list) => list.payouts}
        idOf={(payout) => payout.merchantTxRef}
        rowAttributes={(payout) => ({ 'data-ref': payout.merchantTxRef })}
        columns={[
          {
            header: 'Account',
            cell: (payout) => <a href={`/dashboard/accounts/${encodeURIComponent(payout.accountRef)}`}>{payout.accountRef}</a>,
          },
          { header: 'Amount', cell: (payout) => naira(payout.amount), class: 'num' },
          {
            header: 'To',
            cell: (payout) => (
              <>
                {payout.accountName ?? '—'} <span class="mono">{payout.accountNumber}</span> ({payout.bankCode})
              </>
            ),
          },
          {
            header: 'Why it waits',
            cell: (payout) => (
              <>
                {payout.reasons.map(humanize).join(', ')}
                {payout.reasons.includes('balance_sweep') ? ' (from a sweep)' : ''}
              </>
            ),
          },
          ...makerAndWhenColumns<HeldPayout>(status),
          {
            header: 'Status',
            cell: (payout) =>
              payout.status === 'approved' ? (
                <a href={`/dashboard/settlements/${encodeURIComponent(payout.merchantTxRef)}`}>
                  <Badge status="success" label="Approved" />
                </a>
              ) : (
                <Badge status={payout.status === 'awaiting_approval' ? 'pending' : 'failed'} label={humanize(payout.status)} />
              ),
          },
        ]}
        words={{
          what: 'the held payouts',
          empty: noneHeld(status, 'Nothing is waiting for approval.', 'payouts'),
          table: 'Held payouts',
          pager: 'Held payout pages',
        }}
        approval={(payout) => ({
          title: `Approve ${naira(payout.amount)}?`,
          description: (
            <Summary
              items={[
                ['From', payout.accountRef],
                ['To', `${payout.accountName ?? ''} ${payout.accountNumber} (${payout.bankCode})`],
                ['Amount', naira(payout.amount)],
                ['Made by', payout.maker],
              ]}
            />
          ),
          done: `${naira(payout.amount)} to ${payout.accountNumber} approved: it is being paid.`,
        })}
        rejection={(payout) => ({
          title: `Reject ${naira(payout.amount)}?`,
          description: <p>No money leaves; the {naira(payout.amount)} set aside can be spent again.</p>,
          done: `${naira(payout.amount)} to ${payout.accountNumber} rejected: its money is released.`,
        })}
      >
        <Field label="Status">
          <select value={status} onChange={(event) => setStatus((event.target as HTMLSelectElement).value as Status)}>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {humanize(value)}
              </option>
            ))}
          </select>
        </Field>
      </HeldItems>
      <HeldTransfersSection status={status} />
      <HeldBatchesSection status={status} />
    </>
  );
}

/** The approval policy: every role reads it; an admin (set_money_rules) sets or turns it off. */
function PolicySection() {
  const canChange = useCan('set_money_rules');
  const policy = useResource(() => api<ApprovalPolicy>('GET', '/auth/approval-policy'), []);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState({
    payoutAtOrAbove: '',
    newDestination: false,
    expiresAfterHours: '24',
    transferAbove: '',
    sweeps: false,
    batchTotalAtOrAbove: '',
    batchItemsAtOrAbove: '',
  });
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  function edit(current: ApprovalPolicy): void {
    setDraft({
      payoutAtOrAbove: current.payoutAtOrAbove ?? '',
      newDestination: current.newDestination,
      expiresAfterHours: String(current.expiresAfterSeconds / 3600),
      transferAbove: current.transferAbove ?? '',
      sweeps: current.sweeps,
      batchTotalAtOrAbove: current.batchTotalAtOrAbove ?? '',
      batchItemsAtOrAbove: current.batchItemsAtOrAbove === null ? '' : String(current.batchItemsAtOrAbove),
    });
    setEditing(true);
  }

  async function save(event: Event): Promise<void> {
    event.preventDefault();
    try {
      await api<ApprovalPolicy>('PUT', '/auth/approval-policy', {
        body: {
          payoutAtOrAbove: draft.payoutAtOrAbove.trim() === '' ? null : draft.payoutAtOrAbove.trim(),
          newDestination: draft.newDestination,
          expiresAfterSeconds: Math.round(Number(draft.expiresAfterHours) * 3600),
          transferAbove: draft.transferAbove.trim() === '' ? null : draft.transferAbove.trim(),
          sweeps: draft.sweeps,
          batchTotalAtOrAbove: draft.batchTotalAtOrAbove.trim() === '' ? null : draft.batchTotalAtOrAbove.trim(),
          batchItemsAtOrAbove: draft.batchItemsAtOrAbove.trim() === '' ? null : Number(draft.batchItemsAtOrAbove.trim()),
        },
      });
      setEditing(false);
      setNotice({ kind: 'success', text: 'Approval policy saved.' });
      policy.reload();
    } catch (error) {
      setNotice({ kind: 'error', text: (error as Error).message });
    }
  }

  const turnOff = async (): Promise<void> => {
    await api('DELETE', '/auth/approval-policy');
    setNotice({ kind: 'success', text: 'Approval policy turned off: payouts run at once.' });
    policy.reload();
  };

  return (
    <section class="panel" aria-label="Approval policy">
      <h2>Approval policy</h2>
      <Notice notice={notice} />
      <Loaded resource={policy} what="the approval policy">
        {(current) =>
          editing ? (
            <form onSubmit={save} aria-label="Approval policy form">
              <Field label="Payouts at or above (₦)" hint="Leave empty for no amount">
                <input
                  inputMode="decimal"
                  value={draft.payoutAtOrAbove}
                  onInput={(event) => setDraft({ ...draft, payoutAtOrAbove: (event.target as HTMLInputElement).value })}
                />
              </Field>
              <label class="field checkbox">
                <input
                  type="checkbox"
                  checked={draft.newDestination}
                  onChange={(event) => setDraft({ ...draft, newDestination: (event.target as HTMLInputElement).checked })}
                />{' '}
                The first payout to a new destination
              </label>
              <Field label="Transfers between accounts above (₦)" hint="Leave empty for no amount">
                <input
                  name="transferAbove"
                  inputMode="decimal"
                  value={draft.transferAbove}
                  onInput={(event) => setDraft({ ...draft, transferAbove: (event.target as HTMLInputElement).value })}
                />
              </Field>
              <label class="field checkbox">
                <input
                  type="checkbox"
                  name="sweeps"
                  checked={draft.sweeps}
                  onChange={(event) => setDraft({ ...draft, sweeps: (event.target as HTMLInputElement).checked })}
                />{' '}
                Every payout a balance sweep makes
              </label>
              <Field label="Settlement batches totalling at or above (₦)" hint="Leave empty for no total">
                <input
                  inputMode="decimal"
                  value={draft.batchTotalAtOrAbove}
                  onInput={(event) => setDraft({ ...draft, batchTotalAtOrAbove: (event.target as HTMLInputElement).value })}
                />
              </Field>
              <Field label="Settlement batches of at least (items)" hint="Leave empty for no count">
                <input
                  inputMode="numeric"
                  value={draft.batchItemsAtOrAbove}
                  onInput={(event) => setDraft({ ...draft, batchItemsAtOrAbove: (event.target as HTMLInputElement).value })}
                />
              </Field>
              <Field label="Expires after (hours)">
                <input
                  inputMode="decimal"
                  value={draft.expiresAfterHours}
                  onInput={(event) => setDraft({ ...draft, expiresAfterHours: (event.target as HTMLInputElement).value })}
                />
              </Field>
              <div class="actions">
                <button type="submit" class="button primary">
                  Save policy
                </button>
                <button type="button" class="button secondary" onClick={() => setEditing(false)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : (
            <>
              {current.enabled ? (
                <Summary
                  items={[
                    ['Payouts at or above', current.payoutAtOrAbove ? naira(current.payoutAtOrAbove) : 'any amount: no'],
                    ['First payout to a new destination', current.newDestination ? 'waits' : 'runs at once'],
                    ['Transfers between accounts above', current.transferAbove ? naira(current.transferAbove) : 'any amount: no'],
                    ["A balance sweep's payouts", current.sweeps ? 'wait' : 'run at once'],
                    ['Settlement batches totalling at or above', current.batchTotalAtOrAbove ? naira(current.batchTotalAtOrAbove) : 'no'],
                    [
                      'Settlement batches of at least',
                      current.batchItemsAtOrAbove === null ? 'no' : `${current.batchItemsAtOrAbove} items`,
                    ],
                    ['Expires after', hours(current.expiresAfterSeconds)],
                  ]}
                />
              ) : (
                <p>Off: every payout runs at once.</p>
              )}
              {canChange ? (
                <div class="actions">
                  <button type="button" class="button secondary small" onClick={() => edit(current)}>
                    {current.enabled ? 'Change policy' : 'Set a policy'}
                  </button>
                  {current.enabled ? (
                    <ConfirmButton
                      small
                      danger
                      label="Turn off"
                      title="Turn the approval policy off?"
                      description={<p>Payouts run at once from now on. Those waiting still wait for a decision.</p>}
                      action={turnOff}
                    />
                  ) : null}
                </div>
              ) : null}
            </>
          )
        }
      </Loaded>
    </section>
  );
}
