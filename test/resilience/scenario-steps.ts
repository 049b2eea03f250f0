import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { createTemporalClient } from '../../src/temporal/client';
import { HISTORY_EVENT_LIMIT } from '../../workflows/continue-as-new';
import { provision, statementLines } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import type { RunningSystem } from '../helpers/processes';

/** Short timings so retries, windows and convergence checks play out in seconds; each scenario overrides what it needs. */
export const RESILIENCE_TIMINGS = {
  CONFIRMATION_WINDOW: '20s',
  CONFIRMATION_POLL_INTERVAL: '500ms',
  SETTLEMENT_RETRY_SCHEDULE: '500ms',
  SETTLEMENT_POLL_INTERVAL: '500ms',
  SETTLEMENT_REFUND_WATCH: '3s',
  SETTLEMENT_NOT_FOUND_GRACE: '6s',
  SETTLEMENT_REFUND_RECHECK: '15s',
  SANDBOX_REFUND_DELAY: '1s',
  SANDBOX_PROCESSING_TIME: '3s',
  PROVIDER_TIMEOUT: '2s',
  WEBHOOK_RETRY_SCHEDULE: '500ms',
  WEBHOOK_MAX_ATTEMPTS: '5',
  SWEEP_INTERVAL: '2s',
  SWEEP_GRACE: '1s',
};

export interface SandboxTransferView {
  /** Every payout ever made, a refunded one included. */
  payouts: number;
  /** The payouts the provider has not taken back. */
  standingPayouts: number;
  submissions: Array<{ status: string; reference: string }>;
}

export interface IsolatedTemporal {
  address: string;
  port: number;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * A Temporal dev server of the test's own, from the infra scripts (plain ESM at the repository root).
 * With `dbFile` it keeps its state in that SQLite file, so a server started again with the same `port`
 * and `dbFile` has every workflow, history and Schedule of the one before.
 */
export async function startIsolatedTemporal(options: { port?: number; dbFile?: string }): Promise<IsolatedTemporal> {
  // Compiled to dist/test/resilience.
  const module = (await import(path.resolve(__dirname, '../../../scripts/infra/temporal.mjs'))) as {
    startIsolatedTemporal: (options: { port?: number; dbFile?: string }) => Promise<IsolatedTemporal>;
  };
  return module.startIsolatedTemporal(options);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs every cleanup step even when an earlier one fails, then reports the first failure. */
export async function cleanUp(...steps: Array<() => unknown>): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/** Pays `naira` (net of a 10 naira provider fee) into a new account and waits until it is spendable. */
export async function fundedAccount(sys: RunningSystem, apiKey: string, naira = 10_000): Promise<{ AccountRef: string; ID: string }> {
  const account = await provision(sys, apiKey);
  const payment = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
    body: { accountRef: account.AccountRef, amount: naira + 10, fee: 10 },
  });
  assert.equal(payment.body.delivery.status, 200, payment.text);
  await eventually(async () => (await statementLines(sys, apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', {
    what: 'the funding payment to be confirmed',
  });
  return account;
}

/** A settlement the API accepted; returns its merchantTxRef. */
export async function settle(
  sys: RunningSystem,
  apiKey: string,
  accountRef: string,
  accountNumber: string,
  amount = '2500.00',
): Promise<string> {
  const response = await call(sys.apiUrl, 'POST', `/v1/accounts/${accountRef}/settle`, {
    apiKey,
    body: { amount, bankCode: '044', accountNumber, narration: `to ${accountNumber}` },
  });
  assert.equal(response.status, 202, response.text);
  return response.body.merchantTxRef as string;
}

export async function transferInStatus(
  sys: RunningSystem,
  apiKey: string,
  merchantTxRef: string,
  status: string,
): Promise<{ status: string; attemptCount: number }> {
  return eventually(
    async () => {
      const transfer = (await call(sys.apiUrl, 'GET', `/v1/transfers/${merchantTxRef}`, { apiKey })).body;
      if (transfer.status !== status) throw new Error(`last seen ${JSON.stringify(transfer)}`);
      return transfer;
    },
    { intervalMs: 250, what: `transfer ${merchantTxRef} to reach ${status}` },
  );
}

export async function sandboxTransfer(sys: RunningSystem, merchantTxRef: string): Promise<SandboxTransferView> {
  return (await call(sys.sandboxUrl, 'GET', `/sandbox/transfers/${merchantTxRef}`)).body;
}

/**
 * Waits until the workflow has no activity and no workflow task in flight (it sleeps on a timer or a
 * condition) while `alsoTrue` holds: a SIGKILL then lands between steps, not inside one whose
 * start-to-close timeout would have to expire before it is retried.
 */
export async function waitUntilWorkflowIdles(
  sys: RunningSystem,
  workflowId: string,
  alsoTrue: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const client = createTemporalClient({
    TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!,
    TEMPORAL_NAMESPACE: sys.env.TEMPORAL_NAMESPACE ?? 'default',
  });
  try {
    await eventually(
      async () => {
        if (!(await alsoTrue())) return false;
        const { raw } = await client.workflow.getHandle(workflowId).describe();
        return !raw.pendingActivities?.length && !raw.pendingWorkflowTask;
      },
      { intervalMs: 50, what },
    );
  } finally {
    await client.connection.close();
  }
}

export async function countOf(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.count<Array<{ count: string }>>('* as count');
  return Number(row!.count);
}

export async function balanceOf(sys: RunningSystem, apiKey: string, accountRef: string): Promise<string | undefined> {
  return (await statementLines(sys, apiKey, accountRef)).at(-1)?.runningBalance;
}

/** The workflow types that do the jobs (the convergence check and retention Schedules' runs aside). */
export const JOB_TYPES = ['settlementWorkflow', 'settlementRefundWorkflow', 'paymentConfirmationBatchWorkflow', 'webhookDeliveryWorkflow'];

/** The longest history allowed: a run checks HISTORY_EVENT_LIMIT before each step, which adds a few dozen events at most. */
export const HISTORY_BOUND = HISTORY_EVENT_LIMIT + 50;

/** Runs `work` over `items`, at most `concurrency` at a time. */
export async function inPool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** Every execution on the task queue, with its history length (a running one's described now). */
export async function executionsOn(client: Client, taskQueue: string): Promise<Array<WorkflowExecutionInfo & { length: number }>> {
  const all: WorkflowExecutionInfo[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) all.push(execution);
  return Promise.all(
    all.map(async (execution) => ({
      ...execution,
      length:
        execution.status.name === 'RUNNING'
          ? (await client.workflow.getHandle(execution.workflowId, execution.runId).describe()).historyLength
          : execution.historyLength,
    })),
  );
}

export interface LedgerVerifyReport {
  code: number | null;
  accounts: number;
  problems: unknown[];
  /** What the command printed when it gave no report. */
  error: string | null;
}

/** `ledger:verify --json` against the database the system used: every account recomputed from its entries. */
export async function ledgerVerify(env: NodeJS.ProcessEnv): Promise<LedgerVerifyReport> {
  const cli = spawn(process.execPath, [path.resolve(__dirname, '../../src/main/cli.js'), 'ledger:verify', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  cli.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const [code] = (await once(cli, 'exit')) as [number | null];
  if (!out.trim().startsWith('{'))
    return { code, accounts: 0, problems: [], error: `ledger:verify exited ${code} without a report: ${err}` };
  const report = JSON.parse(out) as { accounts: number; problems: unknown[] };
  return {
    code,
    accounts: report.accounts,
    problems: report.problems,
    error: code === 0 || report.problems.length > 0 ? null : `ledger:verify exited ${code}: ${err}`,
  };
}

/**
 * `ledger:verify` clean. Run directly rather than through sys.cli so a failure shows the problems it printed.
 */
export async function assertLedgerVerifies(env: NodeJS.ProcessEnv): Promise<void> {
  const report = await ledgerVerify(env);
  assert.equal(report.error, null);
  assert.deepEqual(report.problems, [], `ledger:verify found problems:\n${JSON.stringify(report.problems)}`);
  assert.ok(report.accounts > 0, 'ledger:verify saw no accounts: it ran against the wrong database');
}
