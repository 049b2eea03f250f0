import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import type { DashboardAccount, Statement, StatementLine } from '../api-types';
import { BalanceHistorySection } from '../components/balance-history';
import { BalanceSweepSection } from '../components/balance-sweep';
import { FreezeSection, LiensSection } from '../components/freeze-and-liens';
import { Badge, Field, PageTitle, Pager, Summary, TableWrap, useCursorPages } from '../components/bits';
import { MetadataList } from '../components/metadata';
import { SplitRuleSection } from '../components/split-rule';
import { RefundButton } from '../components/refund';
import { Empty, ErrorBox, Loaded, Notice, useResource } from '../components/state';
import { endOfLagosDay, naira, startOfLagosDay, when } from '../format';
import { useCan } from '../session';

const STATEMENT_PAGE = 50;

const POLICIES = { exact: 'exactly', at_least: 'at least', at_most: 'at most', any: 'any amount' } as const;
const MISMATCH_HANDLING = { credit_and_flag: 'credit and flag', return: 'return to the payer' } as const;
const VARIANCES = { exact: 'exact', under: 'under', over: 'over', after_expiry: 'after expiry' } as const;
const ACTIONS = { none: 'accepted', flagged: 'flagged', return: 'held to return' } as const;

/**
 * A reservation kind's name as a label ("kyc_limit" → "KYC limit", "payment_mismatch" → "Payment mismatch"): the
 * API answers the kinds by name only, so any kind the ledger declares is shown without the dashboard knowing it. A
 * word of three letters or fewer is taken for an abbreviation.
 */
function reservationKindLabel(kind: string): string {
  const words = kind.split('_').map((word) => (word.length <= 3 ? word.toUpperCase() : word));
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/**
 * The account's held money and, beneath it, the kinds of reservation holding it: only the kinds with money, so the
 * card stays short however many kinds the ledger declares.
 */
function HeldCard(props: { balances: DashboardAccount['balances'] }) {
  const held = Object.entries(props.balances.reserved).filter(([, amount]) => amount !== '0.00');
  return (
    <div class="card">
      <span class="card-label">Held</span>
      <span class="card-value" data-testid="account-held">
        {naira(props.balances.heldBalance)}
      </span>
      {held.length > 0 ? (
        <ul class="card-breakdown small" data-testid="account-reserved" aria-label="Held by kind">
          {held.map(([kind, amount]) => (
            <li key={kind}>{`${reservationKindLabel(kind)}: ${naira(amount)}`}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A dynamic account's judgement of a payment line: what was expected, what came, and what became of it. */
function Judgement(props: { entry: StatementLine['entry'] }) {
  const { entry } = props;
  if (entry.Variance === undefined || entry.MismatchAction === undefined) return null;
  const expected = entry.ExpectedAmount ? `expected ${naira(entry.ExpectedAmount)}, ` : '';
  const received = entry.AmountReceived ? `received ${naira(entry.AmountReceived)}: ` : '';
  return (
    <span class={`small block${entry.MismatchAction === 'none' ? ' muted' : ''}`}>
      {`${expected}${received}${VARIANCES[entry.Variance]}, ${ACTIONS[entry.MismatchAction]}`}
    </span>
  );
}

function describe(line: StatementLine): string {
  const { entry } = line;
  if (entry.Kind === 'reversal') return `Reversal${entry.Narration ? ` — ${entry.Narration}` : ''}`;
  if (entry.Kind === 'transfer') {
    const other = `${entry.Direction === 'debit' ? 'Transfer to' : 'Transfer from'} ${entry.CounterpartAccountRef ?? 'another account'}`;
    return entry.Narration ? `${other} — ${entry.Narration}` : other;
  }
  // An adjustment answers an earlier entry: a credit reconciliation restored, or an operator's compensating debit.
  const kind = entry.Kind === 'payment' ? 'Payment received' : entry.Kind === 'adjustment' ? 'Adjustment' : 'Settlement';
  return entry.Narration ? `${kind} — ${entry.Narration}` : kind;
}

/** A payment line the provider confirmed: a refund of it may be made (docs/refunds.md). */
const refundable = (line: StatementLine): boolean =>
  line.entry.Kind === 'payment' && line.entry.Direction === 'credit' && line.entry.Status === 'confirmed';

function StatementTable(props: { statement: Statement; onRefunded?: ((text: string) => void) | undefined }) {
  const { lines } = props.statement;
  const { onRefunded } = props;
  return (
    <TableWrap label="Statement entries">
      <table class="statement">
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Description</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Credit
            </th>
            <th scope="col" class="num">
              Debit
            </th>
            <th scope="col" class="num">
              Running balance
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <tr key={line.entry.ID} class={line.entry.Status === 'reversed' ? 'row-reversed' : undefined}>
              <td>{when(line.entry.CreatedAt)}</td>
              <td>
                {describe(line)}
                {line.entry.Fee !== '0.00' ? <span class="muted small"> (provider fee {naira(line.entry.Fee)})</span> : null}
                <Judgement entry={line.entry} />
                <span class="muted small block mono">{line.entry.ProviderTxnRef}</span>
                <a class="small" href={`/dashboard/books${query({ transaction: line.entry.TransactionId })}`}>
                  Transaction in Books
                </a>
                {onRefunded && refundable(line) ? (
                  <span class="block">
                    <RefundButton transactionGroupId={line.entry.TransactionGroupId} onRefunded={onRefunded} />
                  </span>
                ) : null}
              </td>
              <td>
                <Badge status={line.entry.Status} />
              </td>
              <td class="num">{line.entry.Direction === 'credit' ? naira(line.entry.Amount) : ''}</td>
              <td class="num">{line.entry.Direction === 'debit' ? naira(line.entry.Amount) : ''}</td>
              <td class="num">{naira(line.runningBalance)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function AccountPage() {
  const { params } = useRoute();
  const accountRef = params.accountRef ?? '';
  const canSettle = useCan('move_money');
  const canSetRules = useCan('set_money_rules');
  const canOperate = useCan('operate');
  const account = useResource(() => api<DashboardAccount>('GET', `/auth/accounts/${encodeURIComponent(accountRef)}`), [accountRef]);
  const [period, setPeriod] = useState<{ from: string; to: string }>({ from: '', to: '' });
  const [draft, setDraft] = useState(period);
  const [periodError, setPeriodError] = useState<string | null>(null);
  const [refunded, setRefunded] = useState<{ kind: 'success'; text: string } | null>(null);
  const pages = useCursorPages([accountRef, period.from, period.to]);
  const range = { from: period.from ? startOfLagosDay(period.from) : undefined, to: period.to ? endOfLagosDay(period.to) : undefined };
  const statement = useResource(
    () =>
      api<Statement>(
        'GET',
        `/auth/accounts/${encodeURIComponent(accountRef)}/statement${query({ limit: String(STATEMENT_PAGE), after: pages.cursor, ...range })}`,
      ),
    [accountRef, period.from, period.to, pages.cursor],
  );

  function applyPeriod(event: Event): void {
    event.preventDefault();
    if (draft.from && draft.to && draft.from > draft.to) {
      setPeriodError('The start of the period must not be after its end.');
      return;
    }
    setPeriodError(null);
    setPeriod(draft);
  }

  const csvHref = `/auth/accounts/${encodeURIComponent(accountRef)}/statement.csv${query(range)}`;

  return (
    <>
      <PageTitle title={`Account ${accountRef}`}>
        {canSettle && account.status === 'ready' ? (
          <a class="button primary" href={`/dashboard/accounts/${encodeURIComponent(accountRef)}/settle`}>
            New settlement
          </a>
        ) : null}
        {canSettle && account.status === 'ready' ? (
          <a class="button secondary" href={`/dashboard/accounts/${encodeURIComponent(accountRef)}/transfer`}>
            Transfer
          </a>
        ) : null}
      </PageTitle>
      {account.status === 'error' && !account.data ? (
        <ErrorBox message={account.error === 'account not found' ? 'Account not found.' : account.error} onRetry={account.reload} />
      ) : (
        <Loaded resource={account} what="the account">
          {(data) => (
            <>
              {data.InDeficit ? (
                <div class="notice notice-error" data-testid="deficit-notice">
                  <p>
                    <strong>In deficit</strong>
                    {data.DeficitSince ? ` since ${when(data.DeficitSince)}` : ''}: the ledger balance is below zero because a credit was
                    taken back after the money had been settled (a provisional credit the provider reversed, or a confirmed one compensated
                    after the provider refunded it). Settlements from this account are refused until payments bring it back above zero.
                  </p>
                </div>
              ) : null}
              <div class="cards">
                <div class="card">
                  <span class="card-label">Ledger balance</span>
                  <span class={`card-value${data.InDeficit ? ' bad' : ''}`} data-testid="account-ledger">
                    {naira(data.balances.ledgerBalance)}
                  </span>
                </div>
                <div class="card">
                  <span class="card-label">Available</span>
                  <span class="card-value" data-testid="account-available">
                    {naira(data.balances.availableBalance)}
                  </span>
                </div>
                <div class="card">
                  <span class="card-label">Spendable</span>
                  <span class="card-value" data-testid="account-spendable">
                    {naira(data.balances.settleable)}
                  </span>
                </div>
                <div class="card">
                  <span class="card-label">Pending</span>
                  <span class="card-value">{naira(data.balances.pendingCredits)}</span>
                </div>
                <HeldCard balances={data.balances} />
              </div>
              <Summary
                items={[
                  ['Account number', <span class="mono">{data.BankAccountNumber}</span>],
                  ['Bank', data.BankName],
                  ['Account name', data.BankAccountName],
                  ['Customer', <a href={`/dashboard/customers/${data.CustomerID}`}>{data.CustomerName}</a>],
                  ['externalRef', data.CustomerExternalRef],
                  ['Status', <Badge status={data.Status} />],
                  ['Callback URL', data.CallbackURL ?? '—'],
                  ['Expected amount', data.ExpectedAmount ? naira(data.ExpectedAmount) : '—'],
                  ['Expires', data.ExpiresAt ? when(data.ExpiresAt) : '—'],
                  ['Amount policy', data.AmountPolicy ? POLICIES[data.AmountPolicy] : '—'],
                  ['On mismatch', data.OnMismatch ? MISMATCH_HANDLING[data.OnMismatch] : '—'],
                  ['Metadata', <MetadataList metadata={data.Metadata} />],
                  ['Created', when(data.CreatedAt)],
                ]}
              />
            </>
          )}
        </Loaded>
      )}
      {account.data ? (
        <FreezeSection accountRef={accountRef} freeze={account.data.freeze} canEdit={canOperate} onChange={account.reload} />
      ) : null}
      {account.data ? <LiensSection accountRef={accountRef} canEdit={canOperate} onChange={account.reload} /> : null}
      {account.status === 'ready' ? <SplitRuleSection accountRef={accountRef} /> : null}
      {account.status === 'ready' ? <BalanceSweepSection accountRef={accountRef} canEdit={canSetRules} /> : null}
      {account.status === 'ready' ? <BalanceHistorySection accountRef={accountRef} /> : null}
      {account.status !== 'error' || account.data ? (
        <section aria-labelledby="statement-title">
          <h2 id="statement-title">Statement</h2>
          <form class="toolbar" onSubmit={applyPeriod} aria-label="Statement period">
            <Field label="From (day)">
              <input
                type="date"
                name="from"
                value={draft.from}
                onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })}
              />
            </Field>
            <Field label="To (day, included)">
              <input type="date" name="to" value={draft.to} onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })} />
            </Field>
            <button type="submit" class="button secondary">
              Show period
            </button>
            <a class="button secondary" href={csvHref} download>
              Export CSV
            </a>
          </form>
          <Notice notice={refunded} />
          {periodError ? (
            <p class="notice notice-error" role="alert">
              {periodError}
            </p>
          ) : null}
          <Loaded resource={statement} what="the statement">
            {(data) => (
              <>
                <Summary
                  items={[
                    ['Opening balance', naira(data.openingBalance)],
                    ['Credits', naira(data.totalCredits)],
                    ['Debits', naira(data.totalDebits)],
                    ['Closing balance', naira(data.closingBalance)],
                  ]}
                />
                <p class="muted small">
                  {account.data?.balances.settlesFrom === 'available'
                    ? "Provisional credits await the provider's confirmation and cannot be settled until then"
                    : "Provisional credits await the provider's confirmation; they can already be settled (not transferred), and if the provider reverses one that was spent, the account goes into deficit"}
                  ; a reversed entry stays listed, with its reversal as a separate debit.
                </p>
                {data.lines.length === 0 ? (
                  <Empty>
                    <p>{pages.page === 1 ? 'No entries in this period.' : 'No more entries.'}</p>
                  </Empty>
                ) : (
                  <StatementTable
                    statement={data}
                    onRefunded={
                      canSettle
                        ? (text) => {
                            setRefunded({ kind: 'success', text });
                            account.reload();
                            statement.reload();
                          }
                        : undefined
                    }
                  />
                )}
                <Pager
                  page={pages.page}
                  nextCursor={data.pagination.nextCursor}
                  onNext={pages.next}
                  onPrevious={pages.previous}
                  label="Statement pages"
                />
              </>
            )}
          </Loaded>
        </section>
      ) : null}
    </>
  );
}
