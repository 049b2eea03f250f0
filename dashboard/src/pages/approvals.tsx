import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api, query } from '../api';
import type { ApprovalPolicy, HeldPayout, HeldPayoutList } from '../api-types';
import { Badge, Field, PageTitle, Pager, Summary, TableWrap, useCursorPages } from '../components/bits';
import { ConfirmButton, ConfirmDialog } from '../components/confirm';
import { Empty, Loaded, Notice, useResource } from '../components/state';
import { humanize, naira, when } from '../format';
import { useCan, useSession } from '../session';
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
  const session = useSession();
  const canApprove = useCan('approve_money');
  const [status, setStatus] = useState<Status>('awaiting_approval');
  const pages = useCursorPages([status]);
  const list = useResource(
    () => api<HeldPayoutList>('GET', `/auth/approvals${query({ status, after: pages.cursor })}`),
    [status, pages.cursor],
  );
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const approve = (payout: HeldPayout) => async () => {
    await api('POST', `/auth/approvals/${encodeURIComponent(payout.merchantTxRef)}/approve`);
    setNotice({ kind: 'success', text: `${naira(payout.amount)} to ${payout.accountNumber} approved: it is being paid.` });
    list.reload();
  };
  const reject = (payout: HeldPayout) => async () => {
    await api('POST', `/auth/approvals/${encodeURIComponent(payout.merchantTxRef)}/reject`, { body: {} });
    setNotice({ kind: 'success', text: `${naira(payout.amount)} to ${payout.accountNumber} rejected: its money is released.` });
    list.reload();
  };

  return (
    <>
      <PageTitle title="Approvals" />
      <p class="muted">
        Payouts the approval policy holds wait here with their money set aside, until someone other than their maker approves or rejects
        them, or they expire. Every decision is recorded with your name and the time.
      </p>
      <PolicySection />
      <Notice notice={notice} />
      <Field label="Status">
        <select value={status} onChange={(event) => setStatus((event.target as HTMLSelectElement).value as Status)}>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {humanize(value)}
            </option>
          ))}
        </select>
      </Field>
      <Loaded resource={list} what="the held payouts">
        {(data) =>
          data.payouts.length === 0 ? (
            <Empty>
              <p>{status === 'awaiting_approval' ? 'Nothing is waiting for approval.' : `No ${humanize(status).toLowerCase()} payouts.`}</p>
            </Empty>
          ) : (
            <>
              <TableWrap label="Held payouts">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Amount</th>
                      <th scope="col">To</th>
                      <th scope="col">Why it waits</th>
                      <th scope="col">Maker</th>
                      <th scope="col">{status === 'awaiting_approval' ? 'Expires' : 'Decided'}</th>
                      <th scope="col">Status</th>
                      {canApprove && status === 'awaiting_approval' ? <th scope="col">Decision</th> : null}
                    </tr>
                  </thead>
                  <tbody>
                    {data.payouts.map((payout) => {
                      const own = payout.makerUserId === session.user.id;
                      return (
                        <tr key={payout.merchantTxRef} data-ref={payout.merchantTxRef}>
                          <td>
                            <a href={`/dashboard/accounts/${encodeURIComponent(payout.accountRef)}`}>{payout.accountRef}</a>
                          </td>
                          <td class="num">{naira(payout.amount)}</td>
                          <td>
                            {payout.accountName ?? '—'} <span class="mono">{payout.accountNumber}</span> ({payout.bankCode})
                          </td>
                          <td>
                            {payout.reasons.map(humanize).join(', ')}
                            {payout.reasons.includes('balance_sweep') ? ' (from a sweep)' : ''}
                          </td>
                          <td>{payout.maker}</td>
                          <td>
                            {status === 'awaiting_approval'
                              ? when(payout.expiresAt)
                              : `${when(payout.decidedAt)}${payout.decidedBy ? ` by ${payout.decidedBy}` : ''}`}
                          </td>
                          <td>
                            {payout.status === 'approved' ? (
                              <a href={`/dashboard/settlements/${encodeURIComponent(payout.merchantTxRef)}`}>
                                <Badge status="success" label="Approved" />
                              </a>
                            ) : (
                              <Badge
                                status={payout.status === 'awaiting_approval' ? 'pending' : 'failed'}
                                label={humanize(payout.status)}
                              />
                            )}
                          </td>
                          {canApprove && status === 'awaiting_approval' ? (
                            <td class="row-actions">
                              {own ? (
                                <span class="muted small">Yours: another user approves it</span>
                              ) : (
                                <DecisionButton
                                  label="Approve"
                                  title={`Approve ${naira(payout.amount)}?`}
                                  description={
                                    <Summary
                                      items={[
                                        ['From', payout.accountRef],
                                        ['To', `${payout.accountName ?? ''} ${payout.accountNumber} (${payout.bankCode})`],
                                        ['Amount', naira(payout.amount)],
                                        ['Made by', payout.maker],
                                      ]}
                                    />
                                  }
                                  action={approve(payout)}
                                />
                              )}
                              <DecisionButton
                                danger
                                label="Reject"
                                title={`Reject ${naira(payout.amount)}?`}
                                description={<p>No money leaves; the {naira(payout.amount)} set aside can be spent again.</p>}
                                action={reject(payout)}
                              />
                            </td>
                          ) : null}
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                page={pages.page}
                nextCursor={data.pagination.nextCursor}
                onNext={pages.next}
                onPrevious={pages.previous}
                label="Held payout pages"
              />
            </>
          )
        }
      </Loaded>
      <HeldTransfersSection status={status} />
      <HeldBatchesSection status={status} />
    </>
  );
}

/**
 * Approve or reject after a confirmation. A user with two-factor sign-in is asked for a code of the last 5 minutes
 * (the service answers `fresh_code_required`): the dialog then asks for one, confirms it as a step-up and decides again.
 */
export function DecisionButton(props: {
  label: string;
  title: string;
  danger?: boolean;
  description: ComponentChildren;
  action: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [askingCode, setAskingCode] = useState(false);
  const [code, setCode] = useState('');

  async function decide(): Promise<void> {
    if (askingCode) await api('POST', '/auth/two-factor/step-up', { body: { code } });
    try {
      await props.action();
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.code === 'fresh_code_required')) throw failure;
      setAskingCode(true);
      setCode('');
      throw new Error('Give the code your authenticator app shows now to confirm this decision.');
    }
  }

  return (
    <>
      <button type="button" class={`button small ${props.danger ? 'danger' : 'secondary'}`} onClick={() => setOpen(true)}>
        {props.label}
      </button>
      {open ? (
        <ConfirmDialog
          title={props.title}
          confirmLabel={props.label}
          {...(props.danger ? { danger: true } : {})}
          confirmDisabled={askingCode && !/^\d{6}$/.test(code)}
          onConfirm={decide}
          onClose={() => {
            setOpen(false);
            setAskingCode(false);
            setCode('');
          }}
        >
          {props.description}
          {askingCode ? (
            <Field label="Code from the app">
              <input
                name="step-up-code"
                inputMode="numeric"
                autocomplete="one-time-code"
                maxLength={6}
                value={code}
                onInput={(event) => setCode(event.currentTarget.value)}
              />
            </Field>
          ) : null}
        </ConfirmDialog>
      ) : null}
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
