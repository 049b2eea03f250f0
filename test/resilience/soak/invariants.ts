import type { Client } from '@temporalio/client';
import type { Db } from '../../../src/db';
import { formatKobo } from '../../../src/money';
import { call, eventually } from '../../helpers/http';
import type { RunningSystem } from '../../helpers/processes';
import { executionsOn, HISTORY_BOUND, inPool, JOB_TYPES, ledgerVerify, RESILIENCE_TIMINGS, sandboxTransfer } from '../scenario-steps';
import { DESTINATIONS, PAYMENTS, type DestinationCase, type PaymentCase } from './catalogue';
import type { Violation } from './driver';
import type { Op } from './schedule';
import { merchantTxRefOfSettlement, settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import { paymentConfirmationBatchWorkflowId } from '../../../src/contracts/payment-confirmation.contract';

export interface SentPayment {
  /** How it arrives and what the provider's lookup says of it. */
  shape: PaymentCase;
  transactionId: string;
  /** The webhook's request id (null: the provider never sent one). */
  requestId: string | null;
  sentAt: number;
  /** The last delivery was answered 200. */
  delivered: boolean;
  /** A delivery failed at least once (the API or its database was down). */
  everFailed: boolean;
}

/** What the driver did, for the checks to judge against. */
export interface SoakWorld {
  seed: number;
  sys: RunningSystem;
  db: Db;
  client: Client;
  accounts: Array<{ AccountRef: string; ID: string; tenant: number; apiKey: string }>;
  ops: Op[];
  /** Settle operation index → merchantTxRef, from the API's answer. */
  settleRefs: Map<number, string>;
  /** Pay, race or dynamic operation index → the payment the sandbox made. */
  payments: Map<number, SentPayment>;
  faultWindows: Array<{ kind: string; index: number; from: number; to: number }>;
  /** "workflowId/runId" of every run an operator action terminated. */
  terminated: Set<string>;
  /** Settle operations whose payout the provider took back on the driver's word. */
  transferRefunds: Set<number>;
  /** A transfer's narration (`soak#<op>`, `race#<op>/<n>`) → its id, from the API's answer. */
  transfers: Map<string, string>;
  /** Race operation index → its new account, and how many of its transfers the API accepted. */
  races: Map<number, { accountId: string; accepted: number }>;
  /** Batch operation index → the batch the API accepted, and whether a cancel of it was answered 200. */
  batches: Map<number, { id: string; cancelled: boolean }>;
  /** Dynamic operation index → its account. */
  dynamicAccounts: Map<number, { AccountRef: string; ID: string }>;
  /** Each tenant's sweep: its account and the account number its beneficiary has. */
  sweeps: Array<{ accountId: string; accountRef: string; accountNumber: string }>;
  /** Pay operations the payer's bank refunded after the fact. */
  payerRefunds: Set<number>;
  /** Failed pay operations the provider turned SUCCESS after the fact. */
  lateSuccesses: Set<number>;
  /** Approval operation index → the payout the policy held, and the decision the approver's answer confirmed. */
  approvals: Map<number, { merchantTxRef: string; decided: 'approved' | 'rejected' | null }>;
  /** Lien operation index → the lien placed, when it expires (ms; null: never) and whether a lift was answered 200. */
  liens: Map<number, { lienId: string; accountId: string; amount: bigint; expiresAt: number | null; lifted: boolean }>;
  /** Each freeze answered 200: its account and side, from its answer until its first unfreeze was sent. */
  freezes: Array<{ index: number; accountId: string; side: 'debits' | 'credits'; from: number; to: number }>;
  /** What the API answered the control operations, by answer. */
  controls: Record<string, number>;
  /** The velocity rules' window and how many payouts to each destination of a tenant it lets pass. */
  velocityWindowSeconds: number;
  velocityMaxPayouts: number;
  lastStarted: number;
}

interface SettlementRow {
  /** The operation that made it (a settle, a batch, a dynamic account's return), or the last one started (a sweep's). */
  index: number;
  /** Made by a settle operation (`soak#<op>`). */
  bySettleOp: boolean;
  merchantTxRef: string;
  accountId: string;
  accountNumber: string;
  narration: string;
  amount: bigint;
  status: string;
  debitStatus: string;
  /** What the destination does (undefined: one of no catalogue entry, a sweep's or a payer's, paid at once). */
  destination: DestinationCase | undefined;
  waits: boolean;
}

const TERMINAL = new Set(['success', 'failed', 'refunded']);
/** How long after a payment a process fault can still explain what its confirmation did. */
const CONFIRMATION_SPAN_MS = Number.parseInt(RESILIENCE_TIMINGS.CONFIRMATION_WINDOW, 10) * 1_000 + 30_000;

export type Invariants = ReturnType<typeof createInvariants>;

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

export function createInvariants(world: SoakWorld) {
  const { db, sys, client } = world;
  const checks: Record<string, number> = {};
  /** Periodic passes a check could not make (a service unreachable just then), by check. */
  const skipped: Record<string, number> = {};
  const violations: Violation[] = [];
  const seen = new Set<string>();
  const findingCounts: Record<string, number> = {};
  const opOfRef = new Map<string, number>();
  const destinationOfRef = new Map<string, DestinationCase | undefined>();
  /** Standing payouts at the sandbox by merchantTxRef, from the last payouts pass. */
  const standing = new Map<string, number>();

  const ran = (check: string): void => void (checks[check] = (checks[check] ?? 0) + 1);
  const violate = (check: string, subject: string, detail: string, opIndex = world.lastStarted): void => {
    const key = `${check}:${subject}`;
    if (seen.has(key)) return;
    seen.add(key);
    violations.push({ check, detail: `${subject}: ${detail}`, seed: world.seed, opIndex });
  };
  const op = (index: number) => world.ops[index]!;
  const accountIds = () => world.accounts.map((account) => account.ID);
  const tenantIds = () => db('virtual_accounts').whereIn('id', accountIds()).distinct('tenant_id');
  const dynamicOpOfAccount = () => new Map([...world.dynamicAccounts].map(([index, account]) => [account.ID, index]));

  /**
   * Every settlement of the soak's tenants (settles, batch items, sweeps, dynamic-account returns), by the
   * operation that asked for it (its narration, or the dynamic account it returns from).
   */
  async function settlementRows(): Promise<SettlementRow[]> {
    const rows: Array<{
      merchant_tx_ref: string;
      account_id: string;
      account_number: string;
      narration: string;
      amount: string;
      status: string;
      debit_status: string;
    }> = await db('settlements')
      .join('ledger_entries', 'ledger_entries.id', 'settlements.debit_entry_id')
      .whereIn('settlements.tenant_id', tenantIds())
      .select(
        'settlements.merchant_tx_ref',
        'settlements.account_id',
        'settlements.account_number',
        'settlements.narration',
        'settlements.amount',
        'settlements.status',
        'ledger_entries.status as debit_status',
      );
    const dynamicOps = dynamicOpOfAccount();
    return rows.map((row) => {
      const named = Number(/^(?:soak|batch|approval|lien|freeze|velocity)#(\d+)(?:\/|$)/.exec(row.narration)?.[1] ?? Number.NaN);
      const index = world.ops[named] ? named : (dynamicOps.get(row.account_id) ?? world.lastStarted);
      const destination = DESTINATIONS.find((candidate) => candidate.accountNumber === row.account_number);
      opOfRef.set(row.merchant_tx_ref, index);
      destinationOfRef.set(row.merchant_tx_ref, destination);
      return {
        index,
        bySettleOp: row.narration === `soak#${index}` && op(index).kind === 'settle',
        merchantTxRef: row.merchant_tx_ref,
        accountId: row.account_id,
        accountNumber: row.account_number,
        narration: row.narration,
        amount: BigInt(row.amount),
        status: row.status,
        debitStatus: row.debit_status,
        destination,
        waits: destination?.waits ?? false,
      };
    });
  }

  async function discoverSettlements(): Promise<Map<number, string>> {
    return new Map((await settlementRows()).filter((row) => row.bySettleOp).map((row) => [row.index, row.merchantTxRef]));
  }

  /**
   * At most one payout per settlement stands, counted at the sandbox; the debit reversed exactly when no
   * payout stands. A payout the provider refunded no longer stands: a reference it reports REFUND is over,
   * and the settlement may pay by its next one (an operator's refund can come before the service saw the
   * SUCCESS, so it only ever sees REFUND).
   */
  async function payouts(final: boolean): Promise<void> {
    const rows = await settlementRows();
    await inPool(rows, 4, async (row) => {
      const view = await sandboxTransfer(sys, row.merchantTxRef);
      standing.set(row.merchantTxRef, view.standingPayouts);
      if (view.standingPayouts > 1)
        violate(
          'at most one payout per settlement',
          row.merchantTxRef,
          `${view.standingPayouts} standing payouts at the sandbox (status ${row.status})`,
          row.index,
        );
      if ((row.status === 'failed' || row.status === 'refunded') && view.standingPayouts > 0) {
        violate(
          'debit reversed exactly when no payout stands',
          row.merchantTxRef,
          `${row.status} (debit ${row.debitStatus}) while ${view.standingPayouts} payout(s) stand`,
          row.index,
        );
      }
      if (!final) return;
      if (TERMINAL.has(row.status)) {
        const expected = view.standingPayouts > 0 ? 'confirmed' : 'reversed';
        if (row.debitStatus !== expected)
          violate(
            'debit reversed exactly when no payout stands',
            row.merchantTxRef,
            `${row.status}, debit ${row.debitStatus}, ${view.standingPayouts} standing payouts`,
            row.index,
          );
      } else if (!row.waits) {
        violate(
          'every job terminal or legitimately waiting',
          row.merchantTxRef,
          `still ${row.status} (${row.destination?.what ?? `to ${row.accountNumber}, ${row.narration || 'no narration'}`})`,
          row.index,
        );
      } else if (row.debitStatus !== 'provisional' || view.standingPayouts > 0) {
        violate(
          'debit reversed exactly when no payout stands',
          row.merchantTxRef,
          `waiting (${row.status}) with debit ${row.debitStatus} and ${view.standingPayouts} standing payouts`,
          row.index,
        );
      }
    });
    ran('at most one payout per settlement');
    ran('debit reversed exactly when no payout stands');
  }

  /** Each account's balance is its standing credits less its standing debits (reversed entries and reversals cancel out). */
  async function balances(): Promise<void> {
    const rows: Array<{ account_ref: string; ledger_balance: string; standing: string }> = (
      await db.raw(
        `SELECT a.account_ref, a.ledger_balance::text,
                coalesce(sum(CASE WHEN e.direction = 'credit' THEN e.amount ELSE -e.amount END) FILTER (WHERE e.kind <> 'reversal' AND e.status <> 'reversed'), 0)::text AS standing
           FROM virtual_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
          GROUP BY a.id`,
      )
    ).rows;
    for (const row of rows) {
      if (row.ledger_balance !== row.standing)
        violate(
          'balance = standing credits - standing debits',
          row.account_ref,
          `balance ${row.ledger_balance}, standing entries sum to ${row.standing}`,
        );
    }
    ran('balance = standing credits - standing debits');
  }

  /**
   * Every tenant's books, read through the API, total 0.00, and its clearing and provider-fee accounts hold
   * what its standing payments and paid settlements imply: clearing is minus the gross of the payment credits
   * that stand (not reversed, not taken back) plus every paid payout and its fee; provider fees are those
   * credits' fees.
   */
  async function books(apiKeys: string[]): Promise<void> {
    for (const [tenant, apiKey] of apiKeys.entries()) {
      const response = await call(sys.apiUrl, 'GET', '/v1/ledger/balances', { apiKey });
      const body = response.body as { accounts: Array<{ code: string; balance: string }>; total: string };
      if (response.status !== 200 || body.total !== '0.00')
        violate("every tenant's books total 0.00", `tenant ${tenant}`, `${response.status} total ${body.total}`);
      const accountId = world.accounts.find((account) => account.tenant === tenant)?.ID;
      if (!accountId) continue;
      const [expected] = (
        await db.raw(
          `WITH accounts AS (
             SELECT id FROM virtual_accounts WHERE tenant_id = (SELECT tenant_id FROM virtual_accounts WHERE id = :account_id)
           ), standing AS (
             SELECT c.amount, c.fee FROM ledger_entries c
              WHERE c.account_id IN (SELECT id FROM accounts) AND c.direction = 'credit' AND c.kind IN ('payment', 'adjustment') AND c.status <> 'reversed'
                AND NOT EXISTS (SELECT 1 FROM ledger_entries j WHERE j.reverses_entry_id = c.id AND j.kind = 'adjustment')
           )
           SELECT ((SELECT coalesce(sum(amount + coalesce(provider_fee, 0)), 0) FROM settlements WHERE account_id IN (SELECT id FROM accounts) AND status = 'success')
                   - (SELECT coalesce(sum(amount + fee), 0) FROM standing))::text AS clearing,
                  (SELECT coalesce(sum(fee), 0) FROM standing)::text AS provider_fees`,
          { account_id: accountId },
        )
      ).rows as Array<{ clearing: string; provider_fees: string }>;
      const balance = (code: string) => body.accounts.find((account) => account.code === code)?.balance;
      for (const code of ['clearing', 'provider_fees'] as const) {
        const naira = formatKobo(BigInt(expected![code]));
        if (balance(code) !== naira)
          violate(
            'clearing and provider fees carry what payments and payouts imply',
            `tenant ${tenant} ${code}`,
            `books ${balance(code)}, expected ${naira}`,
          );
      }
    }
    ran("every tenant's books total 0.00");
    ran('clearing and provider fees carry what payments and payouts imply');
  }

  /**
   * A transfer asked for (and retried under its key through faults) moved its money at most once, and exactly
   * once when the API answered 201 with its id; a split moved each confirmed payment's parts at most once.
   */
  async function transfersOnce(): Promise<void> {
    const made: Array<{ narration: string; ids: string[] }> = (
      await db.raw(
        `SELECT narration, array_agg(id::text) AS ids FROM internal_transfers
          WHERE source <> 'split' AND (narration LIKE 'soak#%' OR narration LIKE 'race#%') GROUP BY narration`,
      )
    ).rows;
    const byNarration = new Map(made.map((row) => [row.narration, row.ids]));
    const opOf = (narration: string) => Number(/#(\d+)/.exec(narration)![1]);
    for (const [narration, ids] of byNarration)
      if (ids.length > 1)
        violate('a transfer moves its money once', narration, `${ids.length} transfers: ${ids.join(', ')}`, opOf(narration));
    for (const [narration, id] of world.transfers)
      if (!byNarration.get(narration)?.includes(id))
        violate('a transfer moves its money once', narration, `answered ${id}, which is not recorded`, opOf(narration));
    const splits: Array<{ payment: string; parts: string }> = (
      await db.raw(
        `SELECT split_of_payment AS payment, count(*)::text AS parts FROM internal_transfers WHERE source = 'split' GROUP BY split_of_payment HAVING count(*) > 2`,
      )
    ).rows;
    for (const row of splits) violate('a payment splits once', row.payment, `${row.parts} split transfers for a two-part rule`);
    ran('a transfer moves its money once');
    ran('a payment splits once');
  }

  /**
   * Money the provider failed never ends confirmed with a receiver. A payment credit the provider fails is
   * reversed from provisional (a credit never goes from confirmed to reversed), so while it stood it was never
   * money safe to act on. For each tenant transfer, the money its sender held just before it (the ledger
   * balance before the debit, by the account's entry sequence) less the credits then standing that were later
   * reversed must cover it, unless its receiving credit was reversed with them. Holds and provisional credits
   * that ended confirmed are not subtracted, so a transfer that spent only confirmed, unheld money always
   * passes; one that spent a credit the provider then failed does not. Split moves are judged by their own rule.
   */
  async function transfersFundedByFailedCredits(): Promise<void> {
    const rows: Array<{ account_id: string; narration: string; amount: string; balance_after: string; failed_later: string }> = (
      await db.raw(
        `SELECT d.account_id::text, t.narration, d.amount::text, d.balance_after::text,
                (SELECT coalesce(sum(c.amount), 0)
                   FROM ledger_entries c JOIN ledger_entries r ON r.reverses_entry_id = c.id AND r.kind = 'reversal'
                  WHERE c.account_id = d.account_id AND c.direction = 'credit' AND c.status = 'reversed'
                    AND c.seq < d.seq AND r.seq > d.seq)::text AS failed_later
           FROM internal_transfers t
           JOIN ledger_entries d ON d.id = t.debit_entry_id
           JOIN ledger_entries k ON k.id = t.credit_entry_id
          WHERE t.source <> 'split' AND k.status <> 'reversed'
            AND t.tenant_id IN (SELECT tenant_id FROM virtual_accounts WHERE id = ANY(:accounts))`,
        { accounts: accountIds() },
      )
    ).rows;
    // One violation per sending account, naming every transfer that spent failed money.
    const bySender = groupBy(
      rows.filter((row) => BigInt(row.balance_after) < BigInt(row.failed_later)),
      (row) => row.account_id,
    );
    for (const [accountId, spent] of bySender) {
      const moved = spent.reduce((sum, row) => sum + BigInt(row.amount), 0n);
      const failed = spent.reduce((most, row) => (BigInt(row.failed_later) > most ? BigInt(row.failed_later) : most), 0n);
      violate(
        'money the provider failed never ends confirmed with a receiver',
        `account ${accountId}`,
        `${spent.length} transfers (${spent.map((row) => row.narration).join(', ')}) moved ${formatKobo(moved)}, confirmed with their receivers, while up to ${formatKobo(failed)} of what the sender held was credits the provider later failed`,
        Number(/#(\d+)/.exec(spent[0]!.narration)?.[1] ?? world.lastStarted),
      );
    }
    ran('money the provider failed never ends confirmed with a receiver');
  }

  /** The standing payouts of settlements, as the last payouts pass counted them at the sandbox (one made since is not counted yet). */
  const standingOf = (rows: SettlementRow[]): number => rows.reduce((sum, row) => sum + (standing.get(row.merchantTxRef) ?? 0), 0);

  /**
   * Each batch item is paid at most once: the settlements carrying its narration (`batch#<op>/<reference>`) have
   * at most one standing payout between them, and an item the batch failed (refused, or cancelled before its
   * turn) has none and no settlement. At the end no item waits for its turn and every batch has ended.
   */
  async function batchItemsOnce(rows: SettlementRow[], final: boolean): Promise<void> {
    const byNarration = groupBy(
      rows.filter((row) => row.narration.startsWith('batch#')),
      (row) => row.narration,
    );
    for (const [index, recorded] of world.batches) {
      const items: Array<{ reference: string; merchant_tx_ref: string | null; failure_reason: string | null }> = await db(
        'settlement_batch_items',
      )
        .where({ batch_id: recorded.id })
        .select('reference', 'merchant_tx_ref', 'failure_reason');
      for (const item of items) {
        const made = byNarration.get(`batch#${index}/${item.reference}`) ?? [];
        const subject = `batch #${index} ${item.reference}`;
        if (made.length > 1 || standingOf(made) > 1)
          violate('each batch item paid at most once', subject, `${made.length} settlements, ${standingOf(made)} standing payouts`, index);
        if (item.failure_reason !== null && made.length > 0)
          violate(
            'each batch item paid at most once',
            subject,
            `failed (${item.failure_reason}) but settled by ${made[0]!.merchantTxRef}`,
            index,
          );
        if (item.merchant_tx_ref !== null && made.length > 0 && !made.some((row) => row.merchantTxRef === item.merchant_tx_ref))
          violate('each batch item paid at most once', subject, `tied to ${item.merchant_tx_ref}, paid by another settlement`, index);
        if (final && item.merchant_tx_ref === null && item.failure_reason === null)
          violate('every job terminal or legitimately waiting', subject, 'still queued', index);
      }
      if (!final) continue;
      const { status } = await db('settlement_batches').where({ id: recorded.id }).first('status');
      if (status === 'validating' || status === 'processing')
        violate('every job terminal or legitimately waiting', `batch #${index} ${recorded.id}`, `still ${status}`, index);
    }
    ran('each batch item paid at most once');
  }

  /**
   * Each sweep period is paid at most once: every payout to a sweep's beneficiary was made under the key of
   * one sweep period (\`service balance-sweep:<accountRef>:<period>\`), the settlements of a period have at most
   * one standing payout between them, and a run recorded as settled names its period's settlement.
   */
  async function sweepPeriodsOnce(rows: SettlementRow[]): Promise<void> {
    for (const sweep of world.sweeps) {
      const paid = rows.filter((row) => row.accountNumber === sweep.accountNumber);
      const keys: Array<{ key: string; resource_ref: string }> = await db('idempotency_keys')
        .where({ scope: 'settlement' })
        .whereIn(
          'resource_ref',
          paid.map((row) => row.merchantTxRef),
        )
        .select('key', 'resource_ref');
      const keyOf = new Map(keys.map((row) => [row.resource_ref, row.key]));
      const prefix = `service balance-sweep:${sweep.accountRef}:`;
      const byPeriod = new Map<string, SettlementRow[]>();
      for (const row of paid) {
        const key = keyOf.get(row.merchantTxRef);
        if (!key?.startsWith(prefix)) {
          violate(
            'each sweep period paid at most once',
            row.merchantTxRef,
            `a payout to the sweep's beneficiary under no sweep period (${key})`,
          );
          continue;
        }
        const period = key.slice(prefix.length);
        byPeriod.set(period, [...(byPeriod.get(period) ?? []), row]);
      }
      for (const [period, made] of byPeriod)
        if (made.length > 1 || standingOf(made) > 1)
          violate(
            'each sweep period paid at most once',
            `${sweep.accountRef} ${period}`,
            `${made.length} settlements, ${standingOf(made)} standing payouts`,
          );
      const settledRuns: Array<{ period: string; merchant_tx_ref: string }> = await db('balance_sweep_runs')
        .where({ account_id: sweep.accountId, outcome: 'settled' })
        .select('period', 'merchant_tx_ref');
      for (const run of settledRuns)
        if (!(byPeriod.get(run.period) ?? []).some((row) => row.merchantTxRef === run.merchant_tx_ref))
          violate(
            'each sweep period paid at most once',
            `${sweep.accountRef} ${run.period}`,
            `the run names ${run.merchant_tx_ref}, which is not its period's payout`,
          );
    }
    ran('each sweep period paid at most once');
  }

  /**
   * Each dynamic-account return is made at most once: a soak's dynamic account takes one payment and pays out
   * only to return it, so its settlements have at most one standing payout between them, pay no more than was
   * credited, and pay nothing when no return was due. At the end every confirmed payment the account's policy
   * sends back has its return made or refused with a reason.
   */
  async function returnsOnce(rows: SettlementRow[], final: boolean): Promise<void> {
    const judged: Array<{ account_id: string; action: string; amount: string; status: string; returned: string | null }> = (
      await db.raw(
        `SELECT e.account_id, v.action, e.amount::text, e.status, r.status AS returned
           FROM ledger_entries e
           JOIN ledger_payment_variances v ON v.entry_id = e.id
           LEFT JOIN dynamic_account_returns r ON r.entry_id = e.id
          WHERE e.account_id = ANY(:accounts)`,
        { accounts: [...world.dynamicAccounts.values()].map((account) => account.ID) },
      )
    ).rows;
    const byAccount = groupBy(judged, (row) => row.account_id);
    for (const [index, account] of world.dynamicAccounts) {
      const made = rows.filter((row) => row.accountId === account.ID);
      const payments = byAccount.get(account.ID) ?? [];
      const due = payments.filter((payment) => payment.action === 'return');
      const subject = `dynamic account #${index} ${account.AccountRef}`;
      if (standingOf(made) > due.length)
        violate(
          'each dynamic-account return made at most once',
          subject,
          `${standingOf(made)} standing payouts for ${due.length} payments to return`,
          index,
        );
      const paidOut = made.filter((row) => (standing.get(row.merchantTxRef) ?? 0) > 0).reduce((sum, row) => sum + row.amount, 0n);
      const credited = due.filter((payment) => payment.status !== 'reversed').reduce((sum, payment) => sum + BigInt(payment.amount), 0n);
      if (paidOut > credited)
        violate(
          'each dynamic-account return made at most once',
          subject,
          `paid out ${formatKobo(paidOut)} for ${formatKobo(credited)} to return`,
          index,
        );
      if (final)
        for (const payment of due)
          if (payment.status === 'confirmed' && payment.returned !== 'returned' && payment.returned !== 'refused')
            violate(
              'every job terminal or legitimately waiting',
              subject,
              `a payment to return is ${payment.returned ?? 'not returned'}`,
              index,
            );
    }
    ran('each dynamic-account return made at most once');
  }

  /** Batches, sweeps and returns, judged on the settlements and standing payouts the payouts pass just read. */
  async function products(final: boolean): Promise<void> {
    const rows = await settlementRows();
    await batchItemsOnce(rows, final);
    await sweepPeriodsOnce(rows);
    await returnsOnce(rows, final);
  }

  /** Work the end phase waits for beside settlements and payments: batches not ended, returns due and not made. */
  async function unsettledProducts(): Promise<number> {
    const batches = await db('settlement_batches')
      .whereIn(
        'id',
        [...world.batches.values()].map((recorded) => recorded.id),
      )
      .whereIn('status', ['validating', 'processing'])
      .count<Array<{ count: string }>>('* as count');
    const returns = await db('ledger_entries')
      .join('ledger_payment_variances', 'ledger_payment_variances.entry_id', 'ledger_entries.id')
      .leftJoin('dynamic_account_returns', 'dynamic_account_returns.entry_id', 'ledger_entries.id')
      .where({ 'ledger_payment_variances.action': 'return', 'ledger_entries.status': 'confirmed' })
      .whereIn(
        'ledger_entries.account_id',
        [...world.dynamicAccounts.values()].map((account) => account.ID),
      )
      .where((query) => query.whereNull('dynamic_account_returns.status').orWhere('dynamic_account_returns.status', 'returning'))
      .count<Array<{ count: string }>>('* as count');
    // Payouts held past their expiry, liens past theirs and credits held by a lifted freeze: the expiry job's and the unfreeze's work.
    const expiring = await db('payout_approvals')
      .where({ status: 'awaiting_approval' })
      .whereIn('account_id', accountIds())
      .where('expires_at', '<', db.raw('now()'))
      .count<Array<{ count: string }>>('* as count');
    const liensDue = await db('ledger_reservations')
      .where({ kind: 'lien' })
      .where('open_amount', '>', 0)
      .whereNotNull('expires_at')
      .where('expires_at', '<', db.raw('now()'))
      .whereIn('account_id', accountIds())
      .count<Array<{ count: string }>>('* as count');
    const creditsHeld = await db('ledger_reservations')
      .join('virtual_accounts', 'virtual_accounts.id', 'ledger_reservations.account_id')
      .where({ kind: 'credit_freeze' })
      .where('open_amount', '>', 0)
      .where((query) => query.whereNull('virtual_accounts.frozen_for').orWhere('virtual_accounts.frozen_for', 'debits'))
      .whereIn('account_id', accountIds())
      .count<Array<{ count: string }>>('* as count');
    return [batches, returns, expiring, liensDue, creditsHeld].reduce((sum, rows) => sum + Number(rows[0]!.count), 0);
  }

  /**
   * A payout held for approval reserves exactly its amount; approved, that reservation is posted by its settlement's
   * debit (which pays at most once, as every settlement); rejected or expired, it is released whole and nothing is paid,
   * at the provider either; still waiting, it holds its amount and no settlement, and at the end only until it expires.
   * A decision the approver was answered is the payout's status.
   */
  async function approvalsHeld(final: boolean): Promise<void> {
    const rows: Array<{
      merchant_tx_ref: string;
      status: string;
      amount: string;
      narration: string;
      overdue: boolean;
      reserved: string | null;
      posted: string | null;
      released: string | null;
      settlement: string | null;
    }> = (
      await db.raw(
        `SELECT pa.merchant_tx_ref, pa.status, pa.amount::text, pa.narration, pa.expires_at < now() - interval '30 seconds' AS overdue,
                r.amount::text AS reserved, r.posted::text, r.released::text, s.status AS settlement
           FROM payout_approvals pa
           LEFT JOIN ledger_reservations r ON r.owner_id = pa.id AND r.kind = 'payout_approval'
           LEFT JOIN settlements s ON s.merchant_tx_ref = pa.merchant_tx_ref
          WHERE pa.tenant_id IN (SELECT tenant_id FROM virtual_accounts WHERE id = ANY(:accounts))`,
        { accounts: accountIds() },
      )
    ).rows;
    const opOf = (narration: string) => Number(/#(\d+)/.exec(narration)?.[1] ?? world.lastStarted);
    const decidedOf = new Map([...world.approvals.values()].map((held) => [held.merchantTxRef, held.decided]));
    await inPool(rows, 4, async (row) => {
      const subject = `held payout ${row.merchant_tx_ref} (${row.narration})`;
      const fail = (check: string, detail: string) => violate(check, subject, `${row.status}: ${detail}`, opOf(row.narration));
      const [amount, posted, released] = [BigInt(row.amount), BigInt(row.posted ?? 0), BigInt(row.released ?? 0)];
      if (row.reserved === null || BigInt(row.reserved) !== amount)
        return fail('a held payout reserves exactly its amount', `reserved ${row.reserved ?? 'nothing'} for ${row.amount}`);
      const decided = decidedOf.get(row.merchant_tx_ref);
      if (decided && decided !== row.status) fail("a decision answered is the payout's status", `the approver was answered ${decided}`);
      if (row.status === 'approved') {
        if (posted !== amount || released !== 0n || row.settlement === null)
          fail(
            'an approved payout pays once, from its reservation',
            `posted ${posted}, released ${released}, settlement ${row.settlement}`,
          );
        return;
      }
      if (row.settlement !== null) fail('a rejected or expired payout never pays', `a settlement was made (${row.settlement})`);
      if (row.status === 'awaiting_approval') {
        if (posted !== 0n || released !== 0n)
          fail('a held payout reserves exactly its amount', `waiting with ${posted} posted, ${released} released`);
        if (final && row.overdue) fail('every job terminal or legitimately waiting', 'still waiting long after it expired');
        return;
      }
      if (posted !== 0n || released !== amount)
        fail('a rejected or expired payout releases exactly its amount', `posted ${posted}, released ${released} of ${amount}`);
      const { submissions } = await sandboxTransfer(sys, row.merchant_tx_ref);
      if (submissions.length > 0) fail('a rejected or expired payout never pays', `${submissions.length} submissions at the provider`);
    });
    ran('a held payout reserves exactly its amount');
    ran('an approved payout pays once, from its reservation');
    ran('a rejected or expired payout releases exactly its amount');
    ran('a rejected or expired payout never pays');
  }

  /**
   * A lien is never posted (its money never leaves), a lift answered 200 released it whole, and at the end one past
   * its expiry has been released whole too; a credit a freeze held is released once its account is no longer frozen
   * for credits. While an account was frozen for debits, no debit was posted to it.
   */
  async function liensAndFreezes(final: boolean): Promise<void> {
    const liens: Array<{ owner_id: string; amount: string; posted: string; released: string }> = await db('ledger_reservations')
      .where({ kind: 'lien' })
      .whereIn(
        'owner_id',
        [...world.liens.values()].map((recorded) => recorded.lienId),
      )
      .select('owner_id', db.raw('amount::text'), db.raw('posted::text'), db.raw('released::text'));
    const byLien = new Map(liens.map((row) => [row.owner_id, row]));
    for (const [index, recorded] of world.liens) {
      const row = byLien.get(recorded.lienId);
      const subject = `lien #${index} ${recorded.lienId}`;
      if (!row || BigInt(row.amount) !== recorded.amount) {
        violate('a lien sets aside exactly its amount', subject, `reserved ${row?.amount ?? 'nothing'} for ${recorded.amount}`, index);
        continue;
      }
      if (BigInt(row.posted) !== 0n) violate("a lien's money never leaves", subject, `${row.posted} posted`, index);
      const due = recorded.lifted || (final && recorded.expiresAt !== null && recorded.expiresAt < Date.now() - 30_000);
      if (due && BigInt(row.released) !== recorded.amount)
        violate(
          'a lifted or expired lien releases exactly its amount',
          subject,
          `released ${row.released} of ${row.amount} (${recorded.lifted ? 'lifted' : 'expired'})`,
          index,
        );
    }
    ran("a lien's money never leaves");
    ran('a lifted or expired lien releases exactly its amount');
    for (const window of world.freezes.filter((candidate) => candidate.side === 'debits')) {
      const debits: Array<{ kind: string; narration: string }> = await db('ledger_entries')
        .where({ account_id: window.accountId, direction: 'debit' })
        .whereIn('kind', ['settlement', 'transfer'])
        .where('created_at', '>', new Date(window.from))
        // A freeze not lifted yet has no end: every debit since it began counts.
        .modify((query) => (Number.isFinite(window.to) ? query.where('created_at', '<', new Date(window.to)) : query))
        .select('kind', 'narration');
      for (const debit of debits)
        violate(
          'a debit-frozen account pays nothing',
          `freeze #${window.index}`,
          `a ${debit.kind} debit (${debit.narration}) posted while frozen`,
          window.index,
        );
    }
    ran('a debit-frozen account pays nothing');
    if (!final) return;
    const stillHeld: Array<{ account_ref: string; open: string }> = (
      await db.raw(
        `SELECT a.account_ref, sum(r.open_amount)::text AS open FROM ledger_reservations r JOIN virtual_accounts a ON a.id = r.account_id
          WHERE r.kind = 'credit_freeze' AND r.open_amount > 0 AND r.account_id = ANY(:accounts)
            AND (a.frozen_for IS NULL OR a.frozen_for = 'debits')
          GROUP BY a.account_ref`,
        { accounts: accountIds() },
      )
    ).rows;
    for (const row of stillHeld)
      violate('an unfrozen account holds no credit for its freeze', row.account_ref, `${formatKobo(BigInt(row.open))} still held`);
    ran('an unfrozen account holds no credit for its freeze');
  }

  /**
   * Money set aside (a lien, a payout awaiting approval, a held credit) is never spent by another debit: a payout or
   * transfer out of a soak account leaves its balance at or above what was set aside when it posted (reservations made
   * before it, less what was released or posted before it, by the database's clock, which each takes under the
   * account's lock). A debit that posts a reservation (an approved payout) spends the money kept for it.
   */
  async function setAsideNeverSpent(): Promise<void> {
    const rows: Array<{ account_ref: string; narration: string; balance_after: string; set_aside: string }> = (
      await db.raw(
        `SELECT a.account_ref, d.narration, d.balance_after::text,
                (SELECT coalesce(sum(r.amount - (SELECT coalesce(sum(c.amount), 0) FROM ledger_reservation_changes c
                                                  WHERE c.reservation_id = r.id AND c.created_at < d.created_at)), 0)
                   FROM ledger_reservations r WHERE r.account_id = d.account_id AND r.created_at < d.created_at)::text AS set_aside
           FROM ledger_entries d JOIN virtual_accounts a ON a.id = d.account_id
          WHERE d.account_id = ANY(:accounts) AND d.direction = 'debit' AND d.kind IN ('settlement', 'transfer')
            AND NOT EXISTS (SELECT 1 FROM ledger_reservation_changes p WHERE p.entry_id = d.id)`,
        { accounts: accountIds() },
      )
    ).rows;
    for (const row of rows)
      if (BigInt(row.balance_after) < BigInt(row.set_aside))
        violate(
          'money set aside is never spent',
          `${row.account_ref} ${row.narration}`,
          `balance after the debit ${formatKobo(BigInt(row.balance_after))}, ${formatKobo(BigInt(row.set_aside))} set aside`,
          Number(/#(\d+)/.exec(row.narration)?.[1] ?? world.lastStarted),
        );
    ran('money set aside is never spent');
  }

  /**
   * Payouts never pass a velocity rule together (each tenant's: `velocityMaxPayouts` a window to each destination): of
   * the paid payouts the rule judged (settles by the API key; an approved payout is not judged again, a batch item, a
   * sweep or a return never) to one destination of a tenant, each is a window after the one `velocityMaxPayouts` before
   * it, less the few seconds a transaction may wait for its locks after it began.
   */
  async function velocityOnce(): Promise<void> {
    const paid: Array<{ tenant_id: string; account_number: string; merchant_tx_ref: string; narration: string; at: Date }> = await db(
      'settlements',
    )
      .where({ status: 'success' })
      .whereIn('account_id', accountIds())
      .where((query) => query.where('narration', 'like', 'soak#%').orWhere('narration', '~', '^(lien|freeze|velocity)#'))
      .orderBy('created_at')
      .select('tenant_id', 'account_number', 'merchant_tx_ref', 'narration', 'created_at as at');
    for (const [destination, payouts] of groupBy(paid, (row) => `${row.tenant_id} ${row.account_number}`))
      for (let i = world.velocityMaxPayouts; i < payouts.length; i += 1) {
        const earlier = payouts[i - world.velocityMaxPayouts]!;
        const apartMs = payouts[i]!.at.getTime() - earlier.at.getTime();
        if (apartMs < (world.velocityWindowSeconds - 5) * 1_000)
          violate(
            'two payouts never both pass a velocity rule',
            `${destination} ${payouts[i]!.merchant_tx_ref}`,
            `paid ${apartMs} ms after ${earlier.merchant_tx_ref} under a rule of ${world.velocityMaxPayouts} payouts in ${world.velocityWindowSeconds} s`,
            Number(/#(\d+)/.exec(payouts[i]!.narration)?.[1] ?? world.lastStarted),
          );
      }
    ran('two payouts never both pass a velocity rule');
  }

  /** Approvals, liens, freezes and velocity rules, judged on the database, the sandbox and what the API answered. */
  async function controls(final: boolean): Promise<void> {
    await approvalsHeld(final);
    await liensAndFreezes(final);
    await setAsideNeverSpent();
    await velocityOnce();
  }

  async function verify(final: boolean): Promise<void> {
    const report = await ledgerVerify(sys.env);
    if (report.error && !final) throw new Error(report.error);
    if (report.error) violate('ledger:verify clean', 'ledger:verify', report.error);
    for (const problem of report.problems) violate('ledger:verify clean', JSON.stringify(problem), 'reported');
    ran('ledger:verify clean');
  }

  /** No workflow history above the bound; at the end, only the jobs that may wait still open and none failed. */
  async function workflows(final: boolean, waitingPayments: string[] = []): Promise<void> {
    const executions = await executionsOn(client, sys.env.TEMPORAL_TASK_QUEUE!);
    const opOf = (workflowId: string) => opOfRef.get(merchantTxRefOfSettlement(workflowId) ?? '') ?? world.lastStarted;
    for (const execution of executions) {
      if (execution.length > HISTORY_BOUND)
        violate(
          'no workflow history above the bound',
          execution.workflowId,
          `${execution.length} events (bound ${HISTORY_BOUND})`,
          opOf(execution.workflowId),
        );
    }
    ran('no workflow history above the bound');
    if (!final) return;
    const waitingSettlements = (await settlementRows())
      .filter((row) => !TERMINAL.has(row.status) && row.waits)
      .map((row) => settlementWorkflowId(row.merchantTxRef));
    const holders: Array<string | null> = await db('confirmation_claims').whereIn('entry_id', waitingPayments).pluck('batch_id');
    const mayBeOpen = new Set([
      ...waitingSettlements,
      ...holders.filter((id): id is string => id !== null).map(paymentConfirmationBatchWorkflowId),
    ]);
    for (const execution of executions.filter((candidate) => JOB_TYPES.includes(candidate.type))) {
      const status = execution.status.name;
      if (status === 'RUNNING' && !mayBeOpen.has(execution.workflowId))
        violate('every job terminal or legitimately waiting', execution.workflowId, 'still running', opOf(execution.workflowId));
      if (
        !['RUNNING', 'COMPLETED', 'CONTINUED_AS_NEW'].includes(status) &&
        !world.terminated.has(`${execution.workflowId}/${execution.runId}`)
      ) {
        violate(
          'every job terminal or legitimately waiting',
          `${execution.workflowId}/${execution.runId}`,
          `${status} (no operator ended it)`,
          opOf(execution.workflowId),
        );
      }
    }
    ran('every job terminal or legitimately waiting');
  }

  /** The payment credits of the soak's payments, by operation index. */
  async function paymentEntries(): Promise<Map<number, { id: string; status: string }>> {
    const byTxn = new Map([...world.payments].map(([index, payment]) => [payment.transactionId, index]));
    const rows: Array<{ id: string; status: string; provider_txn_ref: string }> = await db('ledger_entries')
      .where({ kind: 'payment' })
      .whereIn('provider_txn_ref', [...byTxn.keys()])
      .select('id', 'status', 'provider_txn_ref');
    return new Map(rows.map((row) => [byTxn.get(row.provider_txn_ref)!, { id: row.id, status: row.status }]));
  }

  /** Whether a process fault overlapped [from, to]. */
  const faultDuring = (from: number, to: number): string | null =>
    world.faultWindows.find((window) => window.from <= to && window.to >= from)?.kind ?? null;

  /** The injected fault that explains a reconciliation finding, or null. */
  function explain(kind: string, subject: { payOp?: number; settleOp?: number; ref?: string }): string | null {
    const payment = subject.payOp === undefined ? undefined : world.payments.get(subject.payOp);
    const shape = payment?.shape;
    const destination = subject.ref === undefined ? undefined : destinationOfRef.get(subject.ref);
    const faultNear = payment ? faultDuring(payment.sentAt, payment.sentAt + CONFIRMATION_SPAN_MS) : null;
    switch (kind) {
      case 'missing_credit':
        if (shape?.body.suppressWebhook) return 'webhook suppressed';
        if (payment?.everFailed) return 'webhook delivery failed during a fault';
        return faultNear;
      case 'reversed_credit_restored':
        if (shape?.delayed) return `payment ${shape.what}`;
        return faultNear;
      case 'reversed_credit_provider_success':
        return subject.payOp !== undefined && world.lateSuccesses.has(subject.payOp) ? 'late SUCCESS at the provider' : null;
      case 'credit_failed_at_provider':
        return subject.payOp !== undefined && world.payerRefunds.has(subject.payOp) ? 'payer refund after the fact' : null;
      case 'unknown_account':
        return shape?.misdirected ? 'misdirected payment' : null;
      case 'settlement_refunded':
        if (destination?.refunds) return `destination ${destination.what}`;
        return subject.settleOp !== undefined &&
          world.ops[subject.settleOp]?.kind === 'settle' &&
          world.transferRefunds.has(subject.settleOp)
          ? 'late refund at the provider'
          : null;
      case 'settlement_stuck':
      case 'settlement_overdue':
        return destination?.waits ? `destination ${destination.what}` : null;
      case 'wallet_difference': {
        const movers = world.ops.filter(
          (candidate) =>
            (candidate.kind === 'pay' && (PAYMENTS[candidate.payment]!.misdirected || PAYMENTS[candidate.payment]!.body.suppressWebhook)) ||
            (candidate.kind === 'payer-refund' && world.payerRefunds.has(candidate.target ?? -1)) ||
            (candidate.kind === 'late-success' && world.lateSuccesses.has(candidate.target ?? -1)) ||
            (candidate.kind === 'transfer-refund' && world.transferRefunds.has(candidate.target ?? -1)),
        );
        return movers.length ? `wallet moved without the ledger by ${movers.length} injected operations` : null;
      }
      default:
        return null;
    }
  }

  /** Every reconciliation finding is explained by a fault the driver injected. */
  async function findings(): Promise<void> {
    const payOpOfTxn = new Map([...world.payments].map(([index, payment]) => [payment.transactionId, index]));
    const rows: Array<{
      kind: string;
      severity: string;
      status: string;
      subject: string;
      provider_txn_id: string | null;
      merchant_tx_ref: string | null;
      entry_txn: string | null;
    }> = await db('reconciliation_exceptions')
      .leftJoin('settlements', 'settlements.id', 'reconciliation_exceptions.settlement_id')
      .leftJoin('ledger_entries', 'ledger_entries.id', 'reconciliation_exceptions.entry_id')
      .select(
        'reconciliation_exceptions.kind',
        'reconciliation_exceptions.severity',
        'reconciliation_exceptions.status',
        'reconciliation_exceptions.subject',
        'reconciliation_exceptions.provider_txn_id',
        'settlements.merchant_tx_ref',
        'ledger_entries.provider_txn_ref as entry_txn',
      );
    for (const row of rows) {
      findingCounts[row.kind] = (findingCounts[row.kind] ?? 0) + 1;
      const txn = row.provider_txn_id ?? row.entry_txn;
      const payOp = txn ? payOpOfTxn.get(txn) : undefined;
      const ref =
        row.merchant_tx_ref ??
        [...opOfRef.keys()].find((candidate) => row.subject.includes(candidate) || (txn ?? '').startsWith(candidate));
      const settleOp = ref ? opOfRef.get(ref) : undefined;
      const why = explain(row.kind, { payOp, settleOp, ref });
      if (!why)
        violate(
          'every reconciliation finding explained by an injected fault',
          `${row.kind} ${row.subject}`,
          `${row.severity}, ${row.status}; no injected fault explains it`,
          payOp ?? settleOp ?? world.lastStarted,
        );
    }
    ran('every reconciliation finding explained by an injected fault');
  }

  /** Provider retries: every webhook not yet answered 200 is sent again. */
  async function redeliver(): Promise<number> {
    const pending = [...world.payments.values()].filter((payment) => !payment.delivered && payment.requestId);
    for (const payment of pending) {
      const response = await call(sys.sandboxUrl, 'POST', '/sandbox/webhooks/redeliver', { body: { requestId: payment.requestId } }).catch(
        () => null,
      );
      if (response?.body?.delivery?.status === 200) payment.delivered = true;
    }
    return pending.filter((payment) => !payment.delivered).length;
  }

  /** A settlement is settled when terminal, or waiting on a destination stuck for days while every submission is still PROCESSING there. */
  async function unsettledSettlements(): Promise<SettlementRow[]> {
    const open = (await settlementRows()).filter((row) => !TERMINAL.has(row.status));
    const unsettled: SettlementRow[] = [];
    await inPool(open, 4, async (row) => {
      if (!row.waits) return void unsettled.push(row);
      const submissions = (await sandboxTransfer(sys, row.merchantTxRef)).submissions;
      if (submissions.some((submission) => submission.status !== 'PROCESSING' && submission.status !== 'PAYMENT_FAILED'))
        unsettled.push(row);
    });
    return unsettled;
  }

  /** Payments whose credit is missing or provisional although its payment may not wait. */
  async function unsettledPayments(includeSuppressed: boolean): Promise<number[]> {
    const entries = await paymentEntries();
    return [...world.payments.keys()].filter((index) => {
      const { shape } = world.payments.get(index)!;
      if (shape.misdirected || shape.waits) return false;
      if (shape.body.suppressWebhook && !includeSuppressed) return false;
      const entry = entries.get(index);
      return !entry || entry.status === 'provisional';
    });
  }

  async function settle(deadline: number, includeSuppressed: boolean, log: (line: string) => void): Promise<void> {
    await eventually(
      async () => {
        const [undelivered, settlements, payments, products] = [
          await redeliver(),
          await unsettledSettlements(),
          await unsettledPayments(includeSuppressed),
          await unsettledProducts(),
        ];
        if (undelivered + settlements.length + payments.length + products === 0) return true;
        throw new Error(
          `${undelivered} webhooks undelivered, ${settlements.length} settlements, ${payments.length} payments and ${products} batches, returns, expiries or held credits unsettled`,
        );
      },
      { withinMs: Math.max(0, deadline - Date.now()), intervalMs: 3_000, what: 'every job to settle' },
    ).catch((error: Error) => log(`end phase: ${error.message}`));
  }

  return {
    checks,
    skipped,
    violations,
    findingCounts,
    discoverSettlements,

    /** During the run: a check that cannot reach a service is left to the next pass. */
    async periodic(log: (line: string) => void): Promise<void> {
      await redeliver().catch(() => undefined);
      for (const [name, check] of [
        ['payouts', () => payouts(false)],
        ['products', () => products(false)],
        ['controls', () => controls(false)],
        ['transfers', transfersFundedByFailedCredits],
        ['balances', balances],
        ['ledger:verify', () => verify(false)],
        ['histories', () => workflows(false)],
      ] as const) {
        await check().catch((error: Error) => {
          skipped[name] = (skipped[name] ?? 0) + 1;
          log(`check ${name} skipped this pass: ${error.message}`);
        });
      }
    },

    async final(options: { settleMs: number; tenantKeys: string[]; log: (line: string) => void }): Promise<void> {
      const deadline = Date.now() + options.settleMs;
      await settle(deadline, false, options.log);
      // The last reconciliation runs, waited for: the platform's and each tenant's.
      const tenants: Array<{ id: string }> = await db('tenants').select('id');
      for (const args of [[], ...tenants.map((tenant) => ['--tenant', tenant.id])]) {
        await sys
          .cli('reconcile', ...args, '--json')
          .catch((error: Error) => violate('reconciliation runs succeed', `reconcile ${args.join(' ')}`, error.message));
      }
      // Credits reconciliation made are confirmed like ingested ones; refunds it found are applied.
      await settle(Math.max(deadline, Date.now() + 120_000), true, options.log);
      const entries = await paymentEntries();
      for (const [index] of world.payments) {
        const { shape } = world.payments.get(index)!;
        const entry = entries.get(index);
        if (shape.misdirected) continue;
        if (!entry)
          violate(
            'every job terminal or legitimately waiting',
            world.payments.get(index)!.transactionId,
            `never credited (${shape.what})`,
            index,
          );
        else if (entry.status === 'provisional' && !shape.waits)
          violate(
            'every job terminal or legitimately waiting',
            world.payments.get(index)!.transactionId,
            `credit still provisional (${shape.what})`,
            index,
          );
      }
      const waitingPayments = [...entries]
        .filter(([index, entry]) => entry.status === 'provisional' && world.payments.get(index)!.shape.waits)
        .map(([, entry]) => entry.id);
      await payouts(true);
      await products(true);
      await controls(true);
      await balances();
      await books(options.tenantKeys);
      await transfersOnce();
      await transfersFundedByFailedCredits();
      await verify(true);
      await workflows(true, waitingPayments);
      await findings();
    },

    /** Settlements by final status, those of settle operations plain, the others by what made them. */
    async settlementOutcomes(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      const dynamicOps = dynamicOpOfAccount();
      const sweepNumbers = new Set(world.sweeps.map((sweep) => sweep.accountNumber));
      for (const row of await settlementRows()) {
        const control = /^(approval|lien|freeze|velocity)#/.exec(row.narration)?.[1];
        const origin = row.bySettleOp
          ? ''
          : control
            ? `${control === 'approval' ? 'approved' : control} payout `
            : row.narration.startsWith('batch#')
              ? 'batch item '
              : sweepNumbers.has(row.accountNumber)
                ? 'sweep '
                : dynamicOps.has(row.accountId)
                  ? 'dynamic-account return '
                  : 'other ';
        counts[`${origin}${row.status}`] = (counts[`${origin}${row.status}`] ?? 0) + 1;
      }
      return counts;
    },

    /** What the races, batches, dynamic accounts and sweeps came to. */
    async productOutcomes(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      const add = (what: string, n = 1) => void (counts[what] = (counts[what] ?? 0) + n);
      for (const [index, race] of world.races) {
        const fails = (op(index) as Extract<Op, { kind: 'race' }>).fails;
        add(`race transfers accepted (${fails ? 'credit the provider failed' : 'credit paid'})`, race.accepted);
        add(
          `race transfers refused (${fails ? 'credit the provider failed' : 'credit paid'})`,
          (op(index) as Extract<Op, { kind: 'race' }>).transfers - race.accepted,
        );
      }
      const batchIds = [...world.batches.values()].map((recorded) => recorded.id);
      for (const row of await db('settlement_batches').whereIn('id', batchIds).select('status')) add(`batches ${row.status}`);
      for (const row of await db('settlement_batch_items')
        .whereIn('batch_id', batchIds)
        .select(
          db.raw(
            "CASE WHEN merchant_tx_ref IS NOT NULL THEN 'initiated' WHEN failure_reason = 'cancelled' THEN 'cancelled' ELSE 'refused' END AS outcome",
          ),
        ))
        add(`batch items ${row.outcome}`);
      for (const row of await db('ledger_payment_variances')
        .whereIn(
          'account_id',
          [...world.dynamicAccounts.values()].map((account) => account.ID),
        )
        .select('variance', 'action'))
        add(`dynamic-account payments ${row.variance}, ${row.action}`);
      for (const row of await db('dynamic_account_returns')
        .whereIn(
          'account_id',
          [...world.dynamicAccounts.values()].map((account) => account.ID),
        )
        .select('status'))
        add(`dynamic-account returns ${row.status}`);
      for (const row of await db('balance_sweep_runs')
        .whereIn(
          'account_id',
          world.sweeps.map((sweep) => sweep.accountId),
        )
        .select('outcome'))
        add(`sweep runs ${row.outcome}`);
      return counts;
    },

    /** What the API answered the approvals, liens, freezes and velocity payouts, and what the held money came to. */
    async controlOutcomes(): Promise<Record<string, number>> {
      const counts: Record<string, number> = { ...world.controls };
      const add = (what: string, n = 1) => void (counts[what] = (counts[what] ?? 0) + n);
      for (const row of await db('payout_approvals').whereIn('account_id', accountIds()).select('status', 'reasons'))
        add(`held payouts ${row.status} (${(row.reasons as string[]).join(', ')})`);
      for (const row of await db('ledger_reservations')
        .whereIn('account_id', accountIds())
        .whereIn('kind', ['lien', 'credit_freeze'])
        .select('kind', db.raw("CASE WHEN open_amount = 0 THEN 'released' ELSE 'open' END AS state")))
        add(`${row.kind === 'lien' ? 'liens' : 'credits a freeze held'} ${row.state}`);
      return counts;
    },

    async paymentOutcomes(): Promise<Record<string, number>> {
      const entries = await paymentEntries();
      const counts: Record<string, number> = {};
      for (const [index] of world.payments) {
        const { shape } = world.payments.get(index)!;
        const outcome = shape.misdirected
          ? 'misdirected (not credited)'
          : `${entries.get(index)?.status ?? 'never credited'}${shape.body.suppressWebhook ? ' (by reconciliation)' : ''}`;
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      }
      return counts;
    },
  };
}
