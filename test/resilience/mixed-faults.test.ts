import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKnex, type Db } from '../../src/db';
import { createTemporalClient } from '../../src/temporal/client';
import { SETTLEMENT_STATUS } from '../../src/contracts/search-attributes';
import { batchPaymentQuery } from '../../workflows/payment-confirmation-batch.workflow';
import { cliTenant, provision } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { startReceiver } from '../helpers/receiver';
import { PAYMENT_CASES, SETTLEMENT_CASES } from './bad-days';
import {
  assertLedgerVerifies,
  cleanUp,
  HISTORY_BOUND,
  inPool,
  JOB_TYPES,
  RESILIENCE_TIMINGS,
  sleep,
  startIsolatedTemporal,
  type IsolatedTemporal,
} from './scenario-steps';
import { paymentConfirmationBatchWorkflowId } from '../../src/contracts/payment-confirmation.contract';
import { settlementWorkflowId } from '../../src/contracts/settlement.contract';

const ACCOUNTS = SETTLEMENT_CASES.length;
const SETTLEMENTS_PER_ACCOUNT = 7;
const PAYMENTS_PER_ACCOUNT = 6;
const SETTLEMENT_KOBO = 50_000n;
const FUNDING_KOBO = 1_000_000n;
interface SentSettlement {
  merchantTxRef: string;
  accountRef: string;
  expected: (typeof SETTLEMENT_CASES)[number];
}

interface SentPayment {
  transactionId: string;
  accountRef: string;
  netKobo: bigint;
  expected: (typeof PAYMENT_CASES)[number]['status'];
}

/** Where a settlement stands, for a failure message: the database, its attempts, its workflow and the last events of its history. */
async function describeSettlement(db: Db, client: ReturnType<typeof createTemporalClient>, settlement: SentSettlement): Promise<string> {
  const handle = client.workflow.getHandle(settlementWorkflowId(settlement.merchantTxRef));
  const row = await db('settlements').where({ merchant_tx_ref: settlement.merchantTxRef }).first('id', 'status');
  const attempts = row
    ? await db('settlement_attempts').where({ settlement_id: row.id }).orderBy('attempt_no').select('attempt_no', 'outcome', 'detail')
    : [];
  const described = await handle.describe().catch((error: unknown) => String(error));
  const events = (await handle.fetchHistory().catch(() => null))?.events ?? [];
  return JSON.stringify({
    merchantTxRef: settlement.merchantTxRef,
    case: settlement.expected.what,
    status: row?.status,
    attempts,
    workflow:
      typeof described === 'string'
        ? described
        : {
            status: described.status.name,
            historyLength: described.historyLength,
            pendingActivities: described.raw.pendingActivities?.length ?? 0,
            pendingWorkflowTask: described.raw.pendingWorkflowTask?.state ?? null,
          },
    lastEvents: events
      .slice(-6)
      .map((event) => `${String(event.eventType)} at ${new Date(Number(event.eventTime?.seconds ?? 0) * 1000).toISOString()}`),
  });
}

/** Where a payment stands, for a failure message: its credit's times, and what the batch that holds (or held) it saw. */
async function describePayment(
  db: Db,
  client: ReturnType<typeof createTemporalClient>,
  logs: string[],
  payment: SentPayment,
): Promise<string> {
  const entry = await db('ledger_entries')
    .where({ kind: 'payment', provider_txn_ref: payment.transactionId })
    .first('id', 'status', 'created_at', 'status_changed_at');
  const batches = [];
  for await (const execution of client.workflow.list({ query: `ProviderTxnRefs = '${payment.transactionId}'` })) {
    const state = await client.workflow
      .getHandle(execution.workflowId, execution.runId)
      .query(batchPaymentQuery, payment.transactionId)
      .catch((error: unknown) => String(error));
    const events =
      (
        await client.workflow
          .getHandle(execution.workflowId, execution.runId)
          .fetchHistory()
          .catch(() => null)
      )?.events ?? [];
    const history = events.map(
      (event) =>
        `${String(event.eventType).replace('EVENT_TYPE_', '')}@${new Date(Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6)).toISOString().slice(14, 23)}`,
    );
    batches.push({
      workflowId: execution.workflowId,
      status: execution.status.name,
      startedAt: execution.startTime.toISOString(),
      state,
      history: history.slice(0, 60),
    });
  }
  return JSON.stringify({
    transactionId: payment.transactionId,
    expected: payment.expected,
    entry: entry && {
      status: entry.status,
      postedAt: new Date(entry.created_at).toISOString(),
      changedAt: entry.status_changed_at && new Date(entry.status_changed_at).toISOString(),
    },
    batches,
    log: entry ? logs.filter((line) => line.includes(entry.id)).slice(-3) : [],
  });
}

/**
 * A few hundred settlements and payments while everything goes wrong at once: the provider answers
 * repeated references with a 4xx "already exists", lags behind at the lookup, throttles (429 with
 * Retry-After) and fails (503) at random, every magic bad day of a transfer runs at the same time, the
 * tenant's callback fails at first, the worker is SIGKILLed twice and Temporal is stopped and started
 * again from its database file. At the end every job is terminal or correctly waiting, each settlement
 * has paid out at most once, the debit is reversed exactly when no payout stands, every payment is
 * confirmed or reversed as the rules say, every delivery made, the ledger verifies, and no workflow
 * history grew past the continue-as-new bound.
 */
describe('resilience: a mixed fault profile over a few hundred settlements and payments', () => {
  let stateDir: string | undefined;
  let temporal: IsolatedTemporal | undefined;
  let sys: RunningSystem | undefined;
  let db: Db | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let client: ReturnType<typeof createTemporalClient> | undefined;

  after(async () => {
    await cleanUp(
      () => client?.connection.close(),
      () => sys?.stop(),
      () => temporal?.stop(),
      () => db?.destroy(),
      () => receiver?.close(),
      () => temporal && rmSync(temporal.logFile, { force: true }),
      () => stateDir && rmSync(stateDir, { recursive: true, force: true }),
    );
  });

  it('ends every job terminal or correctly waiting, pays each settlement at most once, and the money adds up', async function () {
    this.timeout(40 * 60_000);
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'ledger-resilience-mixed-'));
    const dbFile = path.join(stateDir, 'temporal.db');
    temporal = await startIsolatedTemporal({ dbFile });
    const port = temporal.port;
    sys = await startSystem({
      ...RESILIENCE_TIMINGS,
      // A window outlasts the faults, as 30 minutes does in production: a payment posted as the worker is
      // killed waits out the Temporal restart and then the restarted worker's backlog of workflow tasks
      // (measured: its batch's first task started 25 s after it was scheduled). No case here waits for the
      // window (none is "never found"), so it costs no time.
      CONFIRMATION_WINDOW: '60s',
      TEMPORAL_ADDRESS: temporal.address,
      // Lookup lag and duplicate-reference answers for every transfer and payment (below the not-found grace).
      SANDBOX_LOOKUP_LAG: '1s',
      SANDBOX_DUPLICATE_REFERENCE: 'described',
      WORKFLOW_START_RATE: '100',
      // Fewer steps per settlement: three references at most, a short refund watch, polls from 1 s.
      SETTLEMENT_MAX_ATTEMPTS: '3',
      SETTLEMENT_REFUND_WATCH: '1s',
      SETTLEMENT_POLL_INTERVAL: '1s',
    });
    const running = sys;
    db = createKnex({ DATABASE_URL: running.env.DATABASE_URL!, DATABASE_POOL_MAX: 4 });
    client = createTemporalClient({
      TEMPORAL_ADDRESS: running.env.TEMPORAL_ADDRESS!,
      TEMPORAL_NAMESPACE: running.env.TEMPORAL_NAMESPACE ?? 'default',
    });
    // The tenant's endpoint fails its first calls: deliveries are retried.
    receiver = await startReceiver([...Array(10).fill(500), 200]);
    const { apiKey, tenantId } = await cliTenant(running, 'Resilience mixed faults');

    // Provisioning and the bank list are the API's synchronous calls: done before the faults.
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, i) => provision(running, apiKey, i % 2 === 0 ? { callbackUrl: receiver!.url } : {})),
    );
    assert.equal((await call(running.apiUrl, 'GET', '/v1/transfers/banks', { apiKey })).status, 200);
    const faults = await call(running.sandboxUrl, 'POST', '/sandbox/faults', {
      body: { failureRate: 0.1, throttleRate: 0.1, retryAfterSeconds: 1, latencyMs: 20 },
    });
    assert.equal(faults.status, 200, faults.text);

    const settlements: SentSettlement[] = [];
    const payments: SentPayment[] = [];
    const pay = async (accountRef: string, kobo: bigint, testCase: (typeof PAYMENT_CASES)[number]): Promise<void> => {
      const gross = Number(kobo + 1_000n) / 100;
      const response = await call(running.sandboxUrl, 'POST', '/sandbox/payments', {
        body: { accountRef, amount: gross, fee: 10, ...testCase.body },
      });
      assert.equal(response.body.delivery?.status, 200, `payment webhook: ${response.text}`);
      payments.push({ transactionId: response.body.transactionId as string, accountRef, netKobo: kobo, expected: testCase.status });
    };
    // Each account is funded first (the ledger balance, provisional credits included, may be spent).
    await inPool(accounts, 8, (account) => pay(account.AccountRef, FUNDING_KOBO, PAYMENT_CASES[0]!));

    type Job = () => Promise<void>;
    const jobs: Job[] = [];
    for (let n = 0; n < Math.max(SETTLEMENTS_PER_ACCOUNT, PAYMENTS_PER_ACCOUNT); n += 1) {
      for (const [i, account] of accounts.entries()) {
        if (n < SETTLEMENTS_PER_ACCOUNT) {
          const expected = SETTLEMENT_CASES[(i + n) % SETTLEMENT_CASES.length]!;
          jobs.push(async () => {
            const response = await call(running.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
              apiKey,
              body: { amount: (Number(SETTLEMENT_KOBO) / 100).toFixed(2), bankCode: '044', accountNumber: expected.accountNumber },
            });
            assert.equal(response.status, 202, response.text);
            settlements.push({ merchantTxRef: response.body.merchantTxRef as string, accountRef: account.AccountRef, expected });
          });
        }
        if (n < PAYMENTS_PER_ACCOUNT)
          jobs.push(() => pay(account.AccountRef, 100_000n + BigInt(n * 100 + i), PAYMENT_CASES[(i + n) % PAYMENT_CASES.length]!));
      }
    }
    const waves = [0, 1, 2, 3].map((w) => jobs.filter((_, j) => j % 4 === w));

    // Wave 1, then the worker is killed in the middle of its work; wave 2 arrives while it starts again.
    // When each fault happened, for a failure message.
    const timeline: string[] = [];
    const mark = (what: string): void => void timeline.push(`${new Date().toISOString()} ${what}`);
    await inPool(waves[0]!, 8, (job) => job());
    await sleep(1_500);
    await running.kill('worker');
    mark('worker killed');
    await Promise.all([running.start('worker').then(() => mark('worker started')), inPool(waves[1]!, 8, (job) => job())]);

    // Runs open now (7777 settlements, waiting for days), to find again after Temporal's restart.
    const openBeforeRestart = settlements.filter((settlement) => settlement.expected.status === 'processing');
    const runsBefore = await eventually(
      () =>
        Promise.all(
          openBeforeRestart.map(
            async (settlement) => (await client!.workflow.getHandle(settlementWorkflowId(settlement.merchantTxRef)).describe()).runId,
          ),
        ),
      { what: 'the waiting settlements to have started' },
    );
    // Temporal stops, and the worker is killed while it is down (a deploy during an outage); wave 3
    // arrives meanwhile (the API records it, the convergence check starts it later).
    await temporal.stop();
    mark('Temporal stopped');
    await running.kill('worker');
    mark('worker killed');
    await inPool(waves[2]!, 8, (job) => job());
    temporal = await startIsolatedTemporal({ port, dbFile });
    mark('Temporal started');

    // The restarted server kept its state: the runs open before the restart are the same runs, still open.
    const runsAfter = await Promise.all(
      openBeforeRestart.map(async (settlement) => {
        const described = await client!.workflow.getHandle(settlementWorkflowId(settlement.merchantTxRef)).describe();
        return described.status.name === 'RUNNING' ? described.runId : `${described.status.name} ${described.runId}`;
      }),
    );
    assert.deepEqual(runsAfter, runsBefore, 'Temporal lost runs across its restart');
    await Promise.all([running.start('worker').then(() => mark('worker started')), inPool(waves[3]!, 8, (job) => job())]);
    assert.equal(settlements.length, ACCOUNTS * SETTLEMENTS_PER_ACCOUNT);
    assert.equal(payments.length, ACCOUNTS * (PAYMENTS_PER_ACCOUNT + 1));

    // Every settlement reaches its status; 7777 stays processing.
    let unsettled: SentSettlement[] = settlements;
    await eventually(
      async () => {
        const rows: Array<{ merchant_tx_ref: string; status: string }> = await db!('settlements')
          .whereIn(
            'merchant_tx_ref',
            unsettled.map((s) => s.merchantTxRef),
          )
          .select('merchant_tx_ref', 'status');
        const statusOf = new Map(rows.map((row) => [row.merchant_tx_ref, row.status]));
        unsettled = unsettled.filter((s) => statusOf.get(s.merchantTxRef) !== s.expected.status);
        if (unsettled.length > 0) throw new Error(`${unsettled.length} settlements not yet as expected`);
        return true;
      },
      { intervalMs: 1_000, what: 'every settlement to reach its status' },
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}\n${(await Promise.all(unsettled.slice(0, 3).map((s) => describeSettlement(db!, client!, s)))).join('\n')}`,
      );
    });
    // Every payment is confirmed or reversed as the rules say; one stuck PROCESSING stays provisional.
    await eventually(
      async () => {
        const rows: Array<{ provider_txn_ref: string; status: string }> = await db!('ledger_entries')
          .where({ kind: 'payment' })
          .whereIn(
            'provider_txn_ref',
            payments.map((p) => p.transactionId),
          )
          .select('provider_txn_ref', 'status');
        const statusOf = new Map(rows.map((row) => [row.provider_txn_ref, row.status]));
        const wrong = payments.filter((p) => statusOf.get(p.transactionId) !== p.expected);
        if (wrong.length > 0)
          throw new Error(
            `${wrong.length} not yet as expected, e.g. ${wrong
              .slice(0, 3)
              .map((p) => `${p.expected}: ${statusOf.get(p.transactionId)}`)
              .join('; ')}`,
          );
        return true;
      },
      { intervalMs: 1_000, what: 'every payment to be confirmed or reversed as the rules say' },
    ).catch(async (error: Error) => {
      const rows: Array<{ provider_txn_ref: string; status: string }> = await db!('ledger_entries')
        .where({ kind: 'payment' })
        .whereIn(
          'provider_txn_ref',
          payments.map((p) => p.transactionId),
        )
        .select('provider_txn_ref', 'status');
      const statusOf = new Map(rows.map((row) => [row.provider_txn_ref, row.status]));
      const wrong = payments.filter((p) => statusOf.get(p.transactionId) !== p.expected);
      throw new Error(
        `${error.message}\n${timeline.join('\n')}\n${(await Promise.all(wrong.slice(0, 3).map((p) => describePayment(db!, client!, running.logs.worker, p)))).join('\n')}`,
      );
    });
    // Every delivery made (after the receiver's first failures).
    const callbackAccounts = accounts.filter((_, i) => i % 2 === 0).map((account) => account.ID);
    const deliveryIds = await eventually(
      async () => {
        const rows: Array<{ id: string; status: string }> = await db!('webhook_deliveries')
          .whereIn('account_id', callbackAccounts)
          .select('id', 'status');
        const unfinished = rows.filter((row) => row.status !== 'succeeded');
        if (unfinished.length > 0) throw new Error(`${unfinished.length} of ${rows.length} deliveries not succeeded`);
        return rows.map((row) => row.id);
      },
      { intervalMs: 1_000, what: 'every delivery to succeed' },
    );
    assert.equal(
      deliveryIds.length,
      payments.filter((p) => accounts.findIndex((account) => account.AccountRef === p.accountRef) % 2 === 0).length,
    );
    const received = new Set(receiver.calls.map((hit) => hit.headers['x-event-id']));
    assert.ok(
      deliveryIds.every((id) => received.has(id)),
      'a delivery marked succeeded never reached the receiver',
    );

    // Every job's workflow is closed, except the ones correctly waiting: 7777 settlements, and the batches
    // holding the payments still PROCESSING (each held by one, through its claim).
    const waitingSettlements = settlements
      .filter((s) => s.expected.status === 'processing')
      .map((s) => settlementWorkflowId(s.merchantTxRef));
    const processingEntries: string[] = await db('ledger_entries')
      .where({ kind: 'payment' })
      .whereIn(
        'provider_txn_ref',
        payments.filter((p) => p.expected === 'provisional').map((p) => p.transactionId),
      )
      .pluck('id');
    const taskQueue = running.env.TEMPORAL_TASK_QUEUE!;
    const executions = await eventually(
      async () => {
        const holders: Array<string | null> = await db!('confirmation_claims').whereIn('entry_id', processingEntries).pluck('batch_id');
        if (holders.length !== processingEntries.length || holders.includes(null))
          throw new Error(`${processingEntries.length - holders.filter(Boolean).length} PROCESSING payments held by no batch`);
        const expectedOpen = new Set([...waitingSettlements, ...holders.map((batchId) => paymentConfirmationBatchWorkflowId(batchId!))]);
        const all = [];
        // This tenant's jobs only: the run's database holds the earlier layers' tenants too, and this worker's convergence check may
        // adopt one of their credits still waiting on the provider (a batch that is correctly open, and not this test's).
        for await (const execution of client!.workflow.list({ query: `TaskQueue = '${taskQueue}' AND TenantId = '${tenantId}'` }))
          all.push(execution);
        const open = all
          .filter((execution) => JOB_TYPES.includes(execution.type) && execution.status.name === 'RUNNING')
          .map((execution) => execution.workflowId);
        const unexpected = open.filter((id) => !expectedOpen.has(id));
        if (unexpected.length > 0 || open.length !== expectedOpen.size)
          throw new Error(`open: ${open.length}, expected ${expectedOpen.size}; unexpected e.g. ${unexpected.slice(0, 3).join(', ')}`);
        return all;
      },
      { intervalMs: 1_000, what: 'every job workflow but the waiting ones to close' },
    );
    const abnormal = executions.filter(
      (execution) => JOB_TYPES.includes(execution.type) && !['RUNNING', 'COMPLETED', 'CONTINUED_AS_NEW'].includes(execution.status.name),
    );
    assert.deepEqual(
      abnormal.map((execution) => `${execution.workflowId} ${execution.status.name}`),
      [],
      'a job workflow failed, was terminated or timed out',
    );
    // No history above the continue-as-new bound (a run checks it before each step, which adds a few dozen events at most).
    const lengths = await Promise.all(
      executions.map(async (execution) =>
        execution.status.name === 'RUNNING'
          ? (await client!.workflow.getHandle(execution.workflowId, execution.runId).describe()).historyLength
          : execution.historyLength,
      ),
    );
    assert.ok(executions.length >= settlements.length + deliveryIds.length, `${executions.length} runs listed`);
    assert.ok(Math.max(...lengths) <= HISTORY_BOUND, `longest history ${Math.max(...lengths)} events`);

    // Money: at most one payout per settlement; the debit reversed exactly when no payout stands; SettlementStatus = the database.
    const debits: Array<{ merchant_tx_ref: string; status: string; debit_status: string }> = await db('settlements')
      .join('ledger_entries', 'ledger_entries.id', 'settlements.debit_entry_id')
      .whereIn(
        'settlements.merchant_tx_ref',
        settlements.map((s) => s.merchantTxRef),
      )
      .select('settlements.merchant_tx_ref', 'settlements.status', 'ledger_entries.status as debit_status');
    const debitOf = new Map(debits.map((row) => [row.merchant_tx_ref, row]));
    const problems: string[] = [];
    await inPool(settlements, 8, async (settlement) => {
      const view = (await call(running.sandboxUrl, 'GET', `/sandbox/transfers/${settlement.merchantTxRef}`)).body as {
        payouts: number;
        standingPayouts: number;
      };
      const row = debitOf.get(settlement.merchantTxRef)!;
      const expectedDebit =
        settlement.expected.status === 'processing' ? 'provisional' : view.standingPayouts === 1 ? 'confirmed' : 'reversed';
      const searchStatus = (
        await client!.workflow.getHandle(settlementWorkflowId(settlement.merchantTxRef)).describe()
      ).typedSearchAttributes.get(SETTLEMENT_STATUS);
      if (
        view.payouts !== settlement.expected.payouts ||
        view.standingPayouts !== settlement.expected.standing ||
        row.debit_status !== expectedDebit ||
        searchStatus !== row.status
      ) {
        problems.push(
          `${settlement.merchantTxRef} (${settlement.expected.what}): payouts ${view.payouts}, standing ${view.standingPayouts}, debit ${row.debit_status}, SettlementStatus ${searchStatus}, status ${row.status}`,
        );
      }
    });
    assert.deepEqual(problems, []);

    // Each account's balance is exactly its payments that stand less its settlements that stand (paid, or still waiting).
    const wrongBalances: string[] = [];
    for (const account of accounts) {
      const credits = payments
        .filter((p) => p.accountRef === account.AccountRef && p.expected !== 'reversed')
        .reduce((sum, p) => sum + p.netKobo, 0n);
      const spent =
        BigInt(
          settlements.filter(
            (s) => s.accountRef === account.AccountRef && (s.expected.status === 'success' || s.expected.status === 'processing'),
          ).length,
        ) * SETTLEMENT_KOBO;
      const balance = (await call(running.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey })).body
        .ledgerBalance as string;
      const expected = ((credits - spent) / 100n).toString() + '.' + ((credits - spent) % 100n).toString().padStart(2, '0');
      if (balance !== expected) wrongBalances.push(`${account.AccountRef}: ${balance}, expected ${expected}`);
    }
    assert.deepEqual(wrongBalances, []);
    await assertLedgerVerifies(running.env);

    // The faults happened: duplicate-reference answers were taken as acknowledgements, throttling and outages reached the worker.
    assert.ok(
      Number(
        (await db('settlement_attempts').where('detail', 'like', 'duplicate reference%').count<Array<{ count: string }>>('* as count'))[0]!
          .count,
      ) > 0,
      'no duplicate-reference answer was seen',
    );
    assert.ok(
      running.logs.worker.some((line) => line.includes('HTTP 429')),
      'no 429 reached the worker',
    );
    assert.ok(
      running.logs.worker.some((line) => line.includes('HTTP 503')),
      'no 503 reached the worker',
    );
    assert.ok(receiver.calls.length > deliveryIds.length, "the receiver's failures were never retried");
  });
});
