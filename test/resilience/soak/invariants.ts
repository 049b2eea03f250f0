import type { Client } from '@temporalio/client';
import type { Db } from '../../../src/db';
import { formatKobo } from '../../../src/money';
import { call, eventually } from '../../helpers/http';
import type { RunningSystem } from '../../helpers/processes';
import { executionsOn, HISTORY_BOUND, inPool, JOB_TYPES, ledgerVerify, RESILIENCE_TIMINGS, sandboxTransfer } from '../scenario-steps';
import { DESTINATIONS, PAYMENTS } from './catalogue';
import type { Violation } from './driver';
import type { Op } from './schedule';
import { merchantTxRefOfSettlement, settlementWorkflowId } from '../../../src/contracts/settlement.contract';
import { paymentConfirmationBatchWorkflowId } from '../../../src/contracts/payment-confirmation.contract';

export interface SentPayment {
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
  /** Pay operation index → the payment the sandbox made. */
  payments: Map<number, SentPayment>;
  faultWindows: Array<{ kind: string; index: number; from: number; to: number }>;
  /** "workflowId/runId" of every run an operator action terminated. */
  terminated: Set<string>;
  /** Settle operations whose payout the provider took back on the driver's word. */
  transferRefunds: Set<number>;
  /** Transfer operation index → the transfer's id, from the API's answer. */
  transfers: Map<number, string>;
  /** Pay operations the payer's bank refunded after the fact. */
  payerRefunds: Set<number>;
  /** Failed pay operations the provider turned SUCCESS after the fact. */
  lateSuccesses: Set<number>;
  lastStarted: number;
}

interface SettlementRow {
  index: number;
  merchantTxRef: string;
  status: string;
  debitStatus: string;
  waits: boolean;
}

const TERMINAL = new Set(['success', 'failed', 'refunded']);
/** How long after a payment a process fault can still explain what its confirmation did. */
const CONFIRMATION_SPAN_MS = Number.parseInt(RESILIENCE_TIMINGS.CONFIRMATION_WINDOW, 10) * 1_000 + 30_000;

export type Invariants = ReturnType<typeof createInvariants>;

export function createInvariants(world: SoakWorld) {
  const { db, sys, client } = world;
  const checks: Record<string, number> = {};
  /** Periodic passes a check could not make (a service unreachable just then), by check. */
  const skipped: Record<string, number> = {};
  const violations: Violation[] = [];
  const seen = new Set<string>();
  const findingCounts: Record<string, number> = {};
  const opOfRef = new Map<string, number>();

  const ran = (check: string): void => void (checks[check] = (checks[check] ?? 0) + 1);
  const violate = (check: string, subject: string, detail: string, opIndex = world.lastStarted): void => {
    const key = `${check}:${subject}`;
    if (seen.has(key)) return;
    seen.add(key);
    violations.push({ check, detail: `${subject}: ${detail}`, seed: world.seed, opIndex });
  };
  const op = (index: number) => world.ops[index]!;
  const accountIds = () => world.accounts.map((account) => account.ID);

  /** Every settlement of the soak's accounts, by the operation that asked for it (its narration). */
  async function settlementRows(): Promise<SettlementRow[]> {
    const rows: Array<{ merchant_tx_ref: string; narration: string; status: string; debit_status: string }> = await db('settlements')
      .join('ledger_entries', 'ledger_entries.id', 'settlements.debit_entry_id')
      .whereIn('settlements.account_id', accountIds())
      .select('settlements.merchant_tx_ref', 'settlements.narration', 'settlements.status', 'ledger_entries.status as debit_status');
    return rows.flatMap((row) => {
      const index = Number(/^soak#(\d+)$/.exec(row.narration)?.[1] ?? Number.NaN);
      const settleOp = world.ops[index];
      if (!settleOp || settleOp.kind !== 'settle') return [];
      opOfRef.set(row.merchant_tx_ref, index);
      return [
        {
          index,
          merchantTxRef: row.merchant_tx_ref,
          status: row.status,
          debitStatus: row.debit_status,
          waits: DESTINATIONS[settleOp.destination]!.waits,
        },
      ];
    });
  }

  async function discoverSettlements(): Promise<Map<number, string>> {
    return new Map((await settlementRows()).map((row) => [row.index, row.merchantTxRef]));
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
          `still ${row.status} (${DESTINATIONS[(op(row.index) as Extract<Op, { kind: 'settle' }>).destination]!.what})`,
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
        `SELECT narration, array_agg(id::text) AS ids FROM internal_transfers WHERE source <> 'split' AND narration LIKE 'soak#%' GROUP BY narration`,
      )
    ).rows;
    const byOp = new Map(made.map((row) => [Number(row.narration.slice('soak#'.length)), row.ids]));
    for (const [index, ids] of byOp)
      if (ids.length > 1) violate('a transfer moves its money once', `#${index}`, `${ids.length} transfers: ${ids.join(', ')}`, index);
    for (const [index, id] of world.transfers)
      if (!byOp.get(index)?.includes(id))
        violate('a transfer moves its money once', `#${index}`, `answered ${id}, which is not recorded`, index);
    const splits: Array<{ payment: string; parts: string }> = (
      await db.raw(
        `SELECT split_of_payment AS payment, count(*)::text AS parts FROM internal_transfers WHERE source = 'split' GROUP BY split_of_payment HAVING count(*) > 2`,
      )
    ).rows;
    for (const row of splits) violate('a payment splits once', row.payment, `${row.parts} split transfers for a two-part rule`);
    ran('a transfer moves its money once');
    ran('a payment splits once');
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
  function explain(kind: string, subject: { payOp?: number; settleOp?: number }): string | null {
    const payOp = subject.payOp === undefined ? undefined : (op(subject.payOp) as Extract<Op, { kind: 'pay' }>);
    const shape = payOp && PAYMENTS[payOp.payment]!;
    const payment = subject.payOp === undefined ? undefined : world.payments.get(subject.payOp);
    const destination =
      subject.settleOp === undefined ? undefined : DESTINATIONS[(op(subject.settleOp) as Extract<Op, { kind: 'settle' }>).destination]!;
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
        return subject.settleOp !== undefined && world.transferRefunds.has(subject.settleOp) ? 'late refund at the provider' : null;
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
      const why = explain(row.kind, { payOp, settleOp });
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
      const shape = PAYMENTS[(op(index) as Extract<Op, { kind: 'pay' }>).payment]!;
      if (shape.misdirected || shape.waits) return false;
      if (shape.body.suppressWebhook && !includeSuppressed) return false;
      const entry = entries.get(index);
      return !entry || entry.status === 'provisional';
    });
  }

  async function settle(deadline: number, includeSuppressed: boolean, log: (line: string) => void): Promise<void> {
    await eventually(
      async () => {
        const [undelivered, settlements, payments] = [
          await redeliver(),
          await unsettledSettlements(),
          await unsettledPayments(includeSuppressed),
        ];
        if (undelivered + settlements.length + payments.length === 0) return true;
        throw new Error(`${undelivered} webhooks undelivered, ${settlements.length} settlements and ${payments.length} payments unsettled`);
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
        const shape = PAYMENTS[(op(index) as Extract<Op, { kind: 'pay' }>).payment]!;
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
        .filter(([index, entry]) => entry.status === 'provisional' && PAYMENTS[(op(index) as Extract<Op, { kind: 'pay' }>).payment]!.waits)
        .map(([, entry]) => entry.id);
      await payouts(true);
      await balances();
      await books(options.tenantKeys);
      await transfersOnce();
      await verify(true);
      await workflows(true, waitingPayments);
      await findings();
    },

    async settlementOutcomes(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const row of await settlementRows()) counts[row.status] = (counts[row.status] ?? 0) + 1;
      return counts;
    },

    async paymentOutcomes(): Promise<Record<string, number>> {
      const entries = await paymentEntries();
      const counts: Record<string, number> = {};
      for (const [index] of world.payments) {
        const shape = PAYMENTS[(op(index) as Extract<Op, { kind: 'pay' }>).payment]!;
        const outcome = shape.misdirected
          ? 'misdirected (not credited)'
          : `${entries.get(index)?.status ?? 'never credited'}${shape.body.suppressWebhook ? ' (by reconciliation)' : ''}`;
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      }
      return counts;
    },
  };
}
