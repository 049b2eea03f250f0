import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createKnex, type Db } from '../../../src/db';
import { createLogger } from '../../../src/logger';
import { createTemporalClient } from '../../../src/temporal/client';
import { cliTenant } from '../../e2e/tenant';
import { call, eventually, type CallOptions, type HttpResponse } from '../../helpers/http';
import { startSystem, type RunningSystem } from '../../helpers/processes';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../helpers/throwaway-postgres';
import {
  cleanUp,
  fundedAccount,
  RESILIENCE_TIMINGS,
  sandboxTransfer,
  sleep,
  startIsolatedTemporal,
  type IsolatedTemporal,
} from '../scenario-steps';
import { DESTINATIONS, DYNAMIC_PAYMENT, FROZEN_PAYMENT, PAYMENTS, RACE_PAYMENTS, type PaymentCase } from './catalogue';
import { createInvariants, type Invariants, type SoakWorld } from './invariants';
import {
  APPROVAL_TENANT,
  APPROVAL_THRESHOLD_KOBO,
  buildSchedule,
  describeOp,
  OPERATOR_ACTIONS,
  PROCESS_FAULTS,
  type Op,
  type OperatorAction,
  type ProcessFault,
} from './schedule';
import { formatKobo, parseNairaInput } from '../../../src/money';
import { settlementWorkflowId } from '../../../src/contracts/settlement.contract';

export interface SoakOptions {
  seed: number;
  minutes: number;
  /** Replay: no operation after this index is started. */
  until?: number;
  /** How long the end phase waits for jobs to settle before judging them. */
  settleMinutes?: number;
  log?: (line: string) => void;
}

export interface Violation {
  check: string;
  detail: string;
  seed: number;
  /** The operation to replay up to (`--until`): the one that made the subject, or the last one started. */
  opIndex: number;
}

export interface SoakReport {
  seed: number;
  minutes: number;
  operations: number;
  faults: Record<string, { injected: number; skipped: number }>;
  operations_by_kind: Record<string, { done: number; skipped: number }>;
  settlements: Record<string, number>;
  payments: Record<string, number>;
  /** Races, batches, dynamic accounts and sweeps: what they came to. */
  products: Record<string, number>;
  /** Approvals, liens, freezes and velocity rules: what the API answered and what they came to. */
  controls: Record<string, number>;
  checks: Record<string, number>;
  /** Periodic passes a check could not make (a service unreachable just then). */
  checksSkipped: Record<string, number>;
  findings: Record<string, number>;
  violations: Violation[];
  durationMs: number;
  /** Where the schedule, the fault timeline and the processes' logs (warnings and errors) are written. */
  artifactsDir: string;
}

const TENANTS = 2;
const ACCOUNTS_PER_TENANT = 4;
const FUNDING_NAIRA = 1_000_000;
const PAYMENT_FEE_KOBO = 1_000;
const CONCURRENT_OPERATIONS = 6;
const CHECK_INTERVAL_MS = 30_000;
const REQUEST_TIMEOUT_MS = 20_000;
/** Each tenant's last account carries its balance sweep. */
const SWEEP_ACCOUNT = ACCOUNTS_PER_TENANT - 1;
/** The account number a tenant's sweep pays (its saved beneficiary): no magic suffix, so the sandbox pays it at once. */
const sweepAccountNumber = (tenant: number): string => `8200000${tenant}05`;
/** The payer of a dynamic account's payment, whose name the sandbox's name enquiry gives as the payment names them. */
const payerAccountNumber = (opIndex: number): string => `81${String(opIndex).padStart(6, '0')}05`;
/**
 * Where a held payout, a lien's racing payouts, a frozen account's payout and the velocity payouts go: no magic
 * suffix, paid at once. Each but the velocity destination is an operation's (a payout's) own, since the velocity
 * rules count payouts to each destination: a lien's payouts race its money, not the rule.
 */
const approvalAccountNumber = (opIndex: number): string => `85${String(opIndex).padStart(6, '0')}05`;
const ownAccountNumber = (opIndex: number, payout: number): string => `84${String(opIndex).padStart(6, '0')}${payout}5`;
const velocityAccountNumber = (tenant: number): string => `8300000${tenant}05`;
/** Each tenant's third account is the one its freezes close (it receives split parts, and pays out only for the soak). */
const FREEZE_ACCOUNT = 2;
/** The approval policy's expiry: longer than the longest delay before a decision, short enough to see payouts expire. */
const APPROVAL_EXPIRY_SECONDS = 45;
/**
 * The velocity rules: three payouts to each destination of a tenant per window (the soak's own destination takes the races
 * of four to six). Three, not one: a catalogue destination's ordinary settles, a few in the whole run, rarely meet it, so
 * the provider's bad days stay reached.
 */
const VELOCITY_WINDOW_SECONDS = 30;
const VELOCITY_MAX_PAYOUTS = 3;
const DASHBOARD_PASSWORD = 'a long soak dashboard password';

/** A call that gives up after `ms` (during an outage the API may hold a request until its pool gives up). */
async function callWithin(ms: number, baseUrl: string, method: string, route: string, options: CallOptions = {}): Promise<HttpResponse> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      call(baseUrl, method, route, options),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${method} ${route}: no answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A dashboard sign-in: the `session=…` cookie. */
async function signIn(apiUrl: string, email: string): Promise<string> {
  const login = await callWithin(REQUEST_TIMEOUT_MS, apiUrl, 'POST', '/auth/login', { body: { email, password: DASHBOARD_PASSWORD } });
  if (login.status !== 200) throw new Error(`dashboard sign-in refused: ${login.status} ${login.text}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
}

const count = (counts: Record<string, number>, what: string, n = 1): void => void (counts[what] = (counts[what] ?? 0) + n);

/** One at a time: process faults and invariant checks never overlap (a check is not run against a stopped database). */
function createLock() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work, work);
    tail = result.catch(() => undefined);
    return result;
  };
}

function tally(counts: Record<string, { done: number; skipped: number }>, kind: string, done: boolean): void {
  const row = (counts[kind] ??= { done: 0, skipped: 0 });
  if (done) row.done += 1;
  else row.skipped += 1;
}

/**
 * The seeded chaos soak: the real API, worker and sandbox processes on a throwaway Postgres and a
 * Temporal dev server of their own, driven by the seed's schedule of settlements, payments,
 * reconciliation runs, operator actions and process faults, with the money invariants checked every
 * CHECK_INTERVAL_MS and once more when every job has settled.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const ops = buildSchedule({
    seed: options.seed,
    minutes: options.minutes,
    tenants: TENANTS,
    accountsPerTenant: ACCOUNTS_PER_TENANT,
  }).filter((op) => options.until === undefined || op.index <= options.until);
  log(
    `seed ${options.seed}: ${ops.length} operations over ${options.minutes} min${options.until === undefined ? '' : ` (up to #${options.until})`}`,
  );

  let postgres: ThrowawayPostgres | undefined;
  let temporal: IsolatedTemporal | undefined;
  let sys: RunningSystem | undefined;
  let db: Db | undefined;
  let client: Client | undefined;
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'ledger-soak-'));
  try {
    postgres = await startThrowawayPostgres();
    temporal = await startIsolatedTemporal({ dbFile: path.join(stateDir, 'temporal.db') });
    const temporalPort = temporal.port;
    sys = await startSystem({
      ...RESILIENCE_TIMINGS,
      DATABASE_URL: postgres.url,
      TEMPORAL_ADDRESS: temporal.address,
      // Findings about records younger than this are left to the next run (in flight, not wrong).
      RECONCILIATION_GRACE: '10s',
      RATE_LIMIT_RECONCILIATION_RUNS: '1000/1h',
      // Sweeps checked every minute; batches initiated two items at a time under a small cap, so a cancel lands mid-way.
      BALANCE_SWEEP_CHECK_INTERVAL: '1m',
      SETTLEMENT_BATCH_CHUNK: '2',
      SETTLEMENT_BATCH_IN_FLIGHT: '6',
      SETTLEMENT_BATCH_POLL_INTERVAL: '1s',
      // Liens and payouts held for approval expire within the run.
      RESERVATION_EXPIRY_INTERVAL: '5s',
      LOG_LEVEL: 'warn',
    });
    const running = sys;
    // Its failed connections while Postgres restarts are expected: not written to the console.
    db = createKnex({ DATABASE_URL: postgres.url, DATABASE_POOL_MAX: 2 }, createLogger('silent', 'soak'));
    client = createTemporalClient({ TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: running.env.TEMPORAL_NAMESPACE ?? 'default' });
    const temporalClient = client;
    const soakDb = db;

    // Tenants, their funded accounts, and the control-route profiles of the catalogue's destinations.
    const tenants: Array<{ tenantId: string; apiKey: string }> = [];
    for (let t = 0; t < TENANTS; t += 1) tenants.push(await cliTenant(running, `Soak tenant ${t} (seed ${options.seed})`));
    const accounts = (
      await Promise.all(
        tenants.map((tenant) =>
          Promise.all(Array.from({ length: ACCOUNTS_PER_TENANT }, () => fundedAccount(running, tenant.apiKey, FUNDING_NAIRA))),
        ),
      )
    ).flatMap((ofTenant, t) => ofTenant.map((account) => ({ ...account, tenant: t, apiKey: tenants[t]!.apiKey })));
    for (const destination of DESTINATIONS.filter((candidate) => candidate.profile)) {
      const rule = await call(running.sandboxUrl, 'POST', '/sandbox/profiles', {
        body: { match: { accountNumber: destination.accountNumber }, ...destination.profile },
      });
      if (rule.status !== 201) throw new Error(`sandbox profile refused: ${rule.text}`);
    }
    // Each tenant's first account splits every confirmed payment: a tenth to its second account, 5.00 to its third.
    for (let t = 0; t < TENANTS; t += 1) {
      const [split, share, fee] = accounts.filter((account) => account.tenant === t);
      const rule = await call(running.apiUrl, 'PUT', `/v1/accounts/${split!.AccountRef}/split-rule`, {
        apiKey: split!.apiKey,
        body: {
          parts: [
            { toAccountRef: share!.AccountRef, percent: 10 },
            { toAccountRef: fee!.AccountRef, amount: '5.00' },
          ],
          feeBearer: 'split',
        },
      });
      if (rule.status !== 200) throw new Error(`split rule refused: ${rule.text}`);
    }
    // Each tenant's last account sweeps what is above a threshold to a saved beneficiary, checked every minute.
    const sweepBeneficiaries: string[] = [];
    for (let t = 0; t < TENANTS; t += 1) {
      const saved = await call(running.apiUrl, 'POST', '/v1/beneficiaries', {
        apiKey: tenants[t]!.apiKey,
        body: { bankCode: '044', accountNumber: sweepAccountNumber(t), nickname: 'soak sweep' },
      });
      if (saved.status !== 201) throw new Error(`beneficiary refused: ${saved.text}`);
      sweepBeneficiaries.push(saved.body.id as string);
      const account = accounts[t * ACCOUNTS_PER_TENANT + SWEEP_ACCOUNT]!;
      const sweep = await call(running.apiUrl, 'PUT', `/v1/accounts/${account.AccountRef}/sweep`, {
        apiKey: account.apiKey,
        body: { beneficiaryId: saved.body.id, schedule: { whenAbove: '20000.00' }, keep: '20000.00' },
      });
      if (sweep.status !== 200) throw new Error(`sweep refused: ${sweep.text}`);
    }
    // The approval tenant's two dashboard users (made as an operator makes them, through the CLI): the first sets
    // the approval policy, the second decides the payouts it holds (their maker is the tenant's API key).
    const dashboardUsers: Array<{ email: string; cookie: string }> = [];
    for (const role of ['policy', 'approver']) {
      const email = `soak-${role}-${options.seed}-${started}@example.com`;
      await running.cliWithStdin(
        DASHBOARD_PASSWORD,
        'user:create',
        '--tenant',
        tenants[APPROVAL_TENANT]!.tenantId,
        '--email',
        email,
        '--json',
      );
      dashboardUsers.push({ email, cookie: await signIn(running.apiUrl, email) });
    }
    const [policySetter, approver] = dashboardUsers as [(typeof dashboardUsers)[0], (typeof dashboardUsers)[0]];
    const policy = await call(running.apiUrl, 'PUT', '/auth/approval-policy', {
      cookie: policySetter.cookie,
      body: { payoutAtOrAbove: formatKobo(BigInt(APPROVAL_THRESHOLD_KOBO)), expiresAfterSeconds: APPROVAL_EXPIRY_SECONDS },
    });
    if (policy.status !== 200) throw new Error(`approval policy refused: ${policy.text}`);
    // Three payouts a window to each destination of a tenant: past it the first tenant's are refused, the approval tenant's
    // reviewed. The velocity operations race on a destination of their own.
    for (let t = 0; t < TENANTS; t += 1) {
      const review = t === APPROVAL_TENANT;
      const rule = await call(running.apiUrl, 'POST', '/v1/velocity-rules', {
        apiKey: tenants[t]!.apiKey,
        body: {
          subject: 'payouts',
          measure: 'count',
          maxCount: VELOCITY_MAX_PAYOUTS,
          scope: 'destination',
          windowSeconds: VELOCITY_WINDOW_SECONDS,
          action: review ? 'review' : 'refuse',
          ...(review ? {} : { message: 'three payouts a window to this destination' }),
        },
      });
      if (rule.status !== 201) throw new Error(`velocity rule refused: ${rule.text}`);
    }
    log(`${accounts.length} accounts of ${TENANTS} tenants funded; ${DESTINATIONS.length} destinations, ${PAYMENTS.length} payment shapes`);

    const world: SoakWorld = {
      seed: options.seed,
      sys: running,
      db,
      client: temporalClient,
      accounts,
      ops,
      settleRefs: new Map(),
      payments: new Map(),
      transfers: new Map(),
      races: new Map(),
      batches: new Map(),
      dynamicAccounts: new Map(),
      sweeps: Array.from({ length: TENANTS }, (_, t) => ({
        accountId: accounts[t * ACCOUNTS_PER_TENANT + SWEEP_ACCOUNT]!.ID,
        accountRef: accounts[t * ACCOUNTS_PER_TENANT + SWEEP_ACCOUNT]!.AccountRef,
        accountNumber: sweepAccountNumber(t),
      })),
      faultWindows: [],
      terminated: new Set(),
      transferRefunds: new Set(),
      payerRefunds: new Set(),
      lateSuccesses: new Set(),
      approvals: new Map(),
      liens: new Map(),
      freezes: [],
      controls: {},
      velocityWindowSeconds: VELOCITY_WINDOW_SECONDS,
      velocityMaxPayouts: VELOCITY_MAX_PAYOUTS,
      lastStarted: -1,
    };
    const invariants: Invariants = createInvariants(world);
    const exclusive = createLock();
    const opCounts: Record<string, { done: number; skipped: number }> = {};
    const faultCounts: Record<string, { injected: number; skipped: number }> = Object.fromEntries(
      PROCESS_FAULTS.map((kind) => [kind, { injected: 0, skipped: 0 }]),
    );
    for (const kind of [
      'settle',
      'pay',
      'transfer',
      'race',
      'batch',
      'dynamic',
      'sweep',
      'reconcile',
      'approval',
      'decide',
      'lien',
      'freeze',
      'velocity',
      ...OPERATOR_ACTIONS,
    ])
      opCounts[kind] = { done: 0, skipped: 0 };

    const settleRefOf = async (index: number): Promise<string | null> =>
      world.settleRefs.get(index) ?? (await invariants.discoverSettlements()).get(index) ?? null;

    async function settle(op: Extract<Op, { kind: 'settle' }>): Promise<boolean> {
      const account = accounts[op.account]!;
      const destination = DESTINATIONS[op.destination]!;
      const body = {
        amount: (op.kobo / 100).toFixed(2),
        bankCode: '044',
        accountNumber: destination.accountNumber,
        narration: `soak#${op.index}`,
      };
      // A client retries an unanswered settle under the same idempotency key.
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        try {
          const response = await callWithin(REQUEST_TIMEOUT_MS, running.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
            apiKey: account.apiKey,
            body,
            headers: { 'Idempotency-Key': `soak-${options.seed}-${op.index}-${started}` },
          });
          if (response.status === 202) {
            world.settleRefs.set(op.index, response.body.merchantTxRef as string);
            return true;
          }
          if (response.status < 500 && response.status !== 429) return false;
        } catch {
          // the API is down or held the request: try again
        }
        await sleep(2_000);
      }
      return false;
    }

    /** The provider's payment of `grossKobo` (its fee included) for operation `index`; whether its webhook was answered 200. */
    async function sendPayment(
      index: number,
      accountRef: string,
      grossKobo: number,
      shape: PaymentCase,
      payer: Record<string, unknown> = {},
    ): Promise<boolean> {
      const sentAt = Date.now();
      const response = await call(running.sandboxUrl, 'POST', '/sandbox/payments', {
        body: {
          accountRef,
          amount: grossKobo / 100,
          fee: PAYMENT_FEE_KOBO / 100,
          narration: `soak#${index}`,
          ...payer,
          ...shape.body,
        },
      });
      if (response.status !== 200) throw new Error(`sandbox refused a payment: ${response.text}`);
      const delivered = shape.body.suppressWebhook ? true : response.body.delivery?.status === 200;
      world.payments.set(index, {
        shape,
        transactionId: response.body.transactionId,
        requestId: shape.body.suppressWebhook ? null : response.body.requestId,
        sentAt,
        delivered,
        everFailed: !delivered,
      });
      return delivered;
    }

    async function pay(op: Extract<Op, { kind: 'pay' }>): Promise<boolean> {
      const shape = PAYMENTS[op.payment]!;
      const accountRef = shape.misdirected ? `va_soak_nobody_${options.seed}_${op.index}` : accounts[op.account]!.AccountRef;
      await sendPayment(op.index, accountRef, op.kobo + PAYMENT_FEE_KOBO, shape);
      return true;
    }

    /** A request a client retries under its idempotency key while the API is down or overloaded; the last answer (null: none). */
    async function withRetries(method: string, route: string, apiKey: string, body: unknown, key?: string): Promise<HttpResponse | null> {
      let last: HttpResponse | null = null;
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        try {
          last = await callWithin(REQUEST_TIMEOUT_MS, running.apiUrl, method, route, {
            apiKey,
            ...(body === undefined ? {} : { body }),
            ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
          });
          if (last.status < 500 && last.status !== 429) return last;
        } catch {
          // the API is down or held the request: try again
        }
        await sleep(2_000);
      }
      return last;
    }

    /**
     * A new account of the tenant, paid once (a payment the provider will fail, or a good one), and as soon as
     * the credit is there, transfers of its parts to the tenant's first account, all at once: they race the
     * confirmation that reverses a failed credit.
     */
    async function race(op: Extract<Op, { kind: 'race' }>): Promise<boolean> {
      const { apiKey } = tenants[op.tenant]!;
      const created = await withRetries('POST', '/v1/accounts', apiKey, {
        externalRef: `soak-${options.seed}-${op.index}-${started}`,
        name: 'Race Account',
      });
      if (created?.status !== 201 && created?.status !== 200) return false;
      const sender = { AccountRef: created.body.AccountRef as string, ID: created.body.ID as string };
      const receiver = accounts[op.tenant * ACCOUNTS_PER_TENANT]!;
      world.races.set(op.index, { accountId: sender.ID, accepted: 0 });
      const shape = op.fails ? RACE_PAYMENTS.failed : RACE_PAYMENTS.paid;
      if (!(await sendPayment(op.index, sender.AccountRef, op.kobo + PAYMENT_FEE_KOBO, shape))) return false;
      const part = Math.floor(op.kobo / op.transfers);
      const answers = await Promise.all(
        Array.from({ length: op.transfers }, async (_, i) => {
          const narration = `race#${op.index}/${i}`;
          const response = await withRetries(
            'POST',
            `/v1/accounts/${sender.AccountRef}/transfers`,
            apiKey,
            { toAccountRef: receiver.AccountRef, amount: formatKobo(BigInt(part)), narration },
            `soak-${options.seed}-${op.index}-${i}-${started}`,
          );
          if (response?.status === 201) world.transfers.set(narration, response.body.id as string);
          return response?.status === 201;
        }),
      );
      world.races.get(op.index)!.accepted = answers.filter(Boolean).length;
      return true;
    }

    /** A settlement batch of the tenant's, cancelled mid-way when the schedule says so. */
    async function batch(op: Extract<Op, { kind: 'batch' }>): Promise<boolean> {
      const { apiKey } = tenants[op.tenant]!;
      const items = op.items.map((item, i) => ({
        reference: `item-${i}`,
        accountRef: accounts[item.account]!.AccountRef,
        amount: formatKobo(BigInt(item.kobo)),
        bankCode: '044',
        accountNumber: DESTINATIONS[item.destination]!.accountNumber,
        narration: `batch#${op.index}/item-${i}`,
      }));
      const created = await withRetries('POST', '/v1/settlement-batches', apiKey, { items }, `soak-${options.seed}-${op.index}-${started}`);
      if (created?.status !== 202) return false;
      const recorded = { id: created.body.id as string, cancelled: false };
      world.batches.set(op.index, recorded);
      if (op.cancelAfterMs === null) return true;
      await sleep(op.cancelAfterMs);
      const cancelled = await withRetries('POST', `/v1/settlement-batches/${recorded.id}/cancel`, apiKey, undefined);
      recorded.cancelled = cancelled?.status === 200;
      return true;
    }

    /** A dynamic account expecting the operation's amount, and one payment into it: under, over, exact, or after it expired. */
    async function dynamic(op: Extract<Op, { kind: 'dynamic' }>): Promise<boolean> {
      const { apiKey } = tenants[op.tenant]!;
      const created = await withRetries('POST', '/v1/accounts', apiKey, {
        externalRef: `soak-${options.seed}-${op.index}-${started}`,
        name: 'Soak Checkout',
        expectedAmount: formatKobo(BigInt(op.kobo)),
        amountPolicy: 'exact',
        onMismatch: op.onMismatch,
        expiresInSeconds: op.variant === 'after_expiry' ? 2 : 3_600,
      });
      if (created?.status !== 201 && created?.status !== 200) return false;
      const account = { AccountRef: created.body.AccountRef as string, ID: created.body.ID as string };
      world.dynamicAccounts.set(op.index, account);
      // Paid once the worker's expiry pass has marked it expired (read where the API reads it, which outlives an API restart).
      if (op.variant === 'after_expiry')
        await eventually(async () => (await soakDb('virtual_accounts').where({ id: account.ID }).first('status'))?.status === 'expired', {
          withinMs: 120_000,
          intervalMs: 500,
          what: `dynamic account #${op.index} to expire`,
        });
      const delta = Math.max(100, Math.round(op.kobo / 10));
      const gross = op.variant === 'under' ? op.kobo - delta : op.variant === 'over' ? op.kobo + delta : op.kobo;
      await sendPayment(op.index, account.AccountRef, gross, DYNAMIC_PAYMENT, { senderAccountNumber: payerAccountNumber(op.index) });
      return true;
    }

    /** The tenant's sweep changed: a threshold, a daily run at the next minute (Africa/Lagos), or deleted. */
    async function sweep(op: Extract<Op, { kind: 'sweep' }>): Promise<boolean> {
      const account = accounts[op.tenant * ACCOUNTS_PER_TENANT + SWEEP_ACCOUNT]!;
      const route = `/v1/accounts/${account.AccountRef}/sweep`;
      if (op.change === 'delete') return (await withRetries('DELETE', route, account.apiKey, undefined))?.status === 204;
      const keep = `${op.keepNaira}.00`;
      // Lagos is UTC+1 all year.
      const nextMinuteInLagos = new Date(Date.now() + 60_000 + 3_600_000).toISOString().slice(11, 16);
      const response = await withRetries('PUT', route, account.apiKey, {
        beneficiaryId: sweepBeneficiaries[op.tenant],
        schedule: op.change === 'whenAbove' ? { whenAbove: keep } : { dailyAt: nextMinuteInLagos },
        keep,
      });
      return response?.status === 200;
    }

    async function transfer(op: Extract<Op, { kind: 'transfer' }>): Promise<boolean> {
      const from = accounts[op.from]!;
      const narration = `soak#${op.index}`;
      // A client retries an unanswered transfer under the same idempotency key: it moves the money once.
      const response = await withRetries(
        'POST',
        `/v1/accounts/${from.AccountRef}/transfers`,
        from.apiKey,
        { toAccountRef: accounts[op.to]!.AccountRef, amount: (op.kobo / 100).toFixed(2), narration },
        `soak-${options.seed}-${op.index}-${started}`,
      );
      if (response?.status !== 201) return false;
      world.transfers.set(narration, response.body.id as string);
      return true;
    }

    /** A settle by the tenant's API key, retried under its idempotency key; the last answer (null: none). */
    const settleBy = (account: (typeof accounts)[number], kobo: number, accountNumber: string, narration: string, key: string) =>
      withRetries(
        'POST',
        `/v1/accounts/${account.AccountRef}/settle`,
        account.apiKey,
        { amount: formatKobo(BigInt(kobo)), bankCode: '044', accountNumber, narration },
        `soak-${options.seed}-${key}-${started}`,
      );

    /** How a settle was answered, for the report: run at once, held for approval, or refused (with the code). */
    const settleAnswer = (response: HttpResponse | null): string =>
      response === null
        ? 'unanswered'
        : response.status === 202
          ? (response.body.status as string)
          : `${response.status} ${response.body?.code ?? response.body?.error ?? ''}`.trim();

    /** What an account may spend now, by its balance (null: unknown, or nothing). */
    async function spendable(account: (typeof accounts)[number]): Promise<bigint | null> {
      const balance = await withRetries('GET', `/v1/accounts/${account.AccountRef}/balance`, account.apiKey, undefined);
      if (balance?.status !== 200) return null;
      // What is held (KYC limits, liens, held payouts, frozen credits) is in the available balance but not spendable.
      const [available, held] = [parseNairaInput(balance.body.availableBalance), parseNairaInput(balance.body.heldBalance)];
      return available === null || held === null ? null : available - held;
    }

    /** The approver's request, signed in again when the session is gone; retried while the API is down. */
    async function asApprover(method: string, route: string, body?: unknown): Promise<HttpResponse | null> {
      let last: HttpResponse | null = null;
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        try {
          last = await callWithin(REQUEST_TIMEOUT_MS, running.apiUrl, method, route, {
            cookie: approver.cookie,
            ...(body === undefined ? {} : { body }),
          });
          if (last.status === 401) approver.cookie = await signIn(running.apiUrl, approver.email);
          else if (last.status < 500 && last.status !== 429) return last;
        } catch {
          // the API is down or held the request: try again
        }
        await sleep(2_000);
      }
      return last;
    }

    /** A payout of the approval tenant at or above its policy's amount: it waits for a second person, its money reserved. */
    async function approval(op: Extract<Op, { kind: 'approval' }>): Promise<boolean> {
      const account = accounts[op.account]!;
      const response = await settleBy(account, op.kobo, approvalAccountNumber(op.index), `approval#${op.index}`, `${op.index}`);
      count(world.controls, `held payouts answered ${settleAnswer(response)}`);
      if (response?.status !== 202) return false;
      if (response.body.status !== 'awaiting_approval')
        throw new Error(`a payout of ${formatKobo(BigInt(op.kobo))} under the approval policy answered ${response.body.status}`);
      world.approvals.set(op.index, { merchantTxRef: response.body.merchantTxRef as string, decided: null });
      return true;
    }

    /**
     * The second dashboard user approves or rejects a held payout. An answer lost to a fault is read back: a repeat
     * of a decision made is 409, and the payout then shows it.
     */
    async function decide(op: Extract<Op, { kind: 'decide' }>): Promise<boolean> {
      const held = world.approvals.get(op.target);
      if (!held) return false;
      const route = `/auth/approvals/${held.merchantTxRef}`;
      const answer = await asApprover(
        'POST',
        `${route}/${op.decision}`,
        op.decision === 'reject' ? { note: `soak #${op.index}: rejected` } : undefined,
      );
      count(world.controls, `${op.decision} answered ${answer?.status ?? 'nothing'}${answer?.body?.code ? ` ${answer.body.code}` : ''}`);
      const wanted = op.decision === 'approve' ? 'approved' : 'rejected';
      if (answer?.status === 200 || answer?.status === 202) held.decided = wanted;
      else if (answer?.status === 409) {
        const read = await asApprover('GET', route);
        if (read?.status === 200 && read.body.status === wanted) held.decided = wanted;
      }
      return held.decided === wanted;
    }

    /**
     * A lien of part of what the account may spend, and payouts of what is left racing it; lifted by the operation
     * or left to expire. A lien is placed once (no idempotency key): an unanswered placement is looked for among the
     * account's open liens by its amount.
     */
    async function lien(op: Extract<Op, { kind: 'lien' }>): Promise<boolean> {
      const account = accounts[op.account]!;
      const free = await spendable(account);
      if (free === null || free < 100_00n) return false;
      const amount = (free * BigInt(op.percent)) / 100n;
      const expiresAt = op.expiresInSeconds === null ? null : new Date(Date.now() + op.expiresInSeconds * 1_000).toISOString();
      const route = `/v1/accounts/${account.AccountRef}/liens`;
      const placedFrom = Date.now();
      const placed = await callWithin(REQUEST_TIMEOUT_MS, running.apiUrl, 'POST', route, {
        apiKey: account.apiKey,
        body: { amount: formatKobo(amount), reason: 'fraud_review', note: `soak #${op.index}`, ...(expiresAt ? { expiresAt } : {}) },
      }).catch(() => null);
      let lienId = placed?.status === 201 ? (placed.body.lienId as string) : null;
      if (!placed || placed.status >= 500) {
        const open = await withRetries('GET', route, account.apiKey, undefined);
        lienId =
          (open?.body?.liens as Array<{ lienId: string; amount: string; placedAt: string }> | undefined)?.find(
            (candidate) => candidate.amount === formatKobo(amount) && Date.parse(candidate.placedAt) >= placedFrom - 1_000,
          )?.lienId ?? null;
      }
      count(world.controls, `liens ${lienId ? 'placed' : 'refused or lost'}`);
      if (!lienId) return false;
      const recorded = {
        lienId,
        accountId: account.ID,
        amount,
        expiresAt: expiresAt === null ? null : Date.parse(expiresAt),
        lifted: false,
      };
      world.liens.set(op.index, recorded);
      const each = Number(((free - amount) * BigInt(op.payoutPercent)) / 100n);
      const answers = await Promise.all(
        Array.from({ length: op.payouts }, (_, i) =>
          settleBy(account, Math.max(each, 100_00), ownAccountNumber(op.index, i), `lien#${op.index}/${i}`, `${op.index}-${i}`),
        ),
      );
      for (const answer of answers) count(world.controls, `payouts racing a lien answered ${settleAnswer(answer)}`);
      if (op.liftAfterMs === null) return true;
      await sleep(op.liftAfterMs);
      const lifted = await withRetries('POST', `${route}/${lienId}/lift`, account.apiKey, undefined);
      recorded.lifted = lifted?.status === 200;
      count(world.controls, `lifts answered ${lifted?.status ?? 'nothing'}`);
      return true;
    }

    /** One freeze at a time on each tenant's freeze account: an operation's unfreeze never lifts another's freeze. */
    const freezeTurns = Array.from({ length: TENANTS }, () => createLock());

    /**
     * The tenant's freeze account frozen for one side: payouts and a transfer from it meanwhile (refused 409) or a
     * payment to it (held whole); then unfrozen, which must happen whatever the faults (retried until answered).
     */
    function freeze(op: Extract<Op, { kind: 'freeze' }>): Promise<boolean> {
      return freezeTurns[op.tenant]!(async () => {
        const account = accounts[op.tenant * ACCOUNTS_PER_TENANT + FREEZE_ACCOUNT]!;
        const route = `/v1/accounts/${account.AccountRef}/freeze`;
        const window = { index: op.index, accountId: account.ID, side: op.side, from: Date.now(), to: Number.POSITIVE_INFINITY };
        try {
          const frozen = await withRetries('PUT', route, account.apiKey, {
            frozenFor: op.side,
            reason: 'fraud_review',
            note: `soak #${op.index}`,
          });
          count(world.controls, `freezes for ${op.side} answered ${frozen?.status ?? 'nothing'}`);
          if (frozen?.status !== 200) return false;
          window.from = Date.now();
          world.freezes.push(window);
          if (op.side === 'debits') {
            const [payout, moved] = await Promise.all([
              settleBy(account, op.kobo, ownAccountNumber(op.index, 0), `freeze#${op.index}`, `${op.index}`),
              withRetries(
                'POST',
                `/v1/accounts/${account.AccountRef}/transfers`,
                account.apiKey,
                {
                  toAccountRef: accounts[op.tenant * ACCOUNTS_PER_TENANT]!.AccountRef,
                  amount: formatKobo(BigInt(op.kobo)),
                  narration: `freeze#${op.index}`,
                },
                `soak-${options.seed}-${op.index}-transfer-${started}`,
              ),
            ]);
            count(world.controls, `payouts from a debit-frozen account answered ${settleAnswer(payout)}`);
            count(world.controls, `transfers from a debit-frozen account answered ${moved?.status ?? 'nothing'}`);
            await sleep(op.holdMs);
          } else {
            await sendPayment(op.index, account.AccountRef, op.kobo + PAYMENT_FEE_KOBO, FROZEN_PAYMENT);
            await sleep(op.holdMs);
            const balance = await withRetries('GET', `/v1/accounts/${account.AccountRef}/balance`, account.apiKey, undefined);
            const held = parseNairaInput(balance?.body?.reserved?.credit_freeze) ?? 0n;
            count(world.controls, `credit-frozen accounts seen holding ${held > 0n ? 'a credit' : 'nothing (not credited yet)'}`);
          }
          return true;
        } finally {
          // Unfrozen whatever happened (an unanswered freeze may have landed): the soak leaves no account frozen.
          // The window closes as the first unfreeze is sent: one lost to a fault may have landed.
          window.to = Date.now();
          for (let attempt = 1; ; attempt += 1) {
            const lifted = await callWithin(REQUEST_TIMEOUT_MS, running.apiUrl, 'DELETE', route, { apiKey: account.apiKey }).catch(
              () => null,
            );
            if (lifted && lifted.status < 500 && lifted.status !== 429) break;
            if (attempt >= 30) throw new Error(`tenant ${op.tenant}'s freeze account could not be unfrozen: ${lifted?.text}`);
            await sleep(2_000);
          }
        }
      });
    }

    /** Payouts at once to the tenant's velocity destination, under its rule of three payouts a window. */
    async function velocity(op: Extract<Op, { kind: 'velocity' }>): Promise<boolean> {
      const answers = await Promise.all(
        Array.from({ length: op.payouts }, (_, i) =>
          settleBy(
            accounts[op.tenant * ACCOUNTS_PER_TENANT + (i % ACCOUNTS_PER_TENANT)]!,
            op.kobo,
            velocityAccountNumber(op.tenant),
            `velocity#${op.index}/${i}`,
            `${op.index}-${i}`,
          ),
        ),
      );
      for (const answer of answers) count(world.controls, `velocity payouts of tenant ${op.tenant} answered ${settleAnswer(answer)}`);
      return answers.some((answer) => answer !== null && answer.status < 500);
    }

    async function reconcile(op: Extract<Op, { kind: 'reconcile' }>): Promise<boolean> {
      if (op.via === 'cli')
        return running.cli('reconcile', '--no-wait', '--json').then(
          () => true,
          () => false,
        );
      const response = await callWithin(REQUEST_TIMEOUT_MS, running.apiUrl, 'POST', '/v1/reconciliation/runs', {
        apiKey: tenants[op.tenant]!.apiKey,
      }).catch(() => null);
      return response?.status === 202;
    }

    async function operatorAction(op: Extract<Op, { kind: OperatorAction }>): Promise<boolean> {
      if (op.kind === 'terminate-batch') {
        const open = [];
        for await (const execution of temporalClient.workflow.list({
          query: `WorkflowType = 'paymentConfirmationBatchWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${running.env.TEMPORAL_TASK_QUEUE}'`,
        })) {
          open.push(execution);
        }
        const chosen = open.sort((a, b) => a.workflowId.localeCompare(b.workflowId))[op.pick % Math.max(open.length, 1)];
        if (!chosen) return false;
        await temporalClient.workflow.getHandle(chosen.workflowId, chosen.runId).terminate('soak: an operator terminated the batch');
        world.terminated.add(`${chosen.workflowId}/${chosen.runId}`);
        return true;
      }
      if (op.kind === 'resolve-finding') {
        // The CLI as an operator uses it: list the open findings (the platform's, or a tenant's), close one with a note.
        const scope = op.pick % (TENANTS + 1) === TENANTS ? [] : ['--tenant', tenants[op.pick % (TENANTS + 1)]!.tenantId];
        const { exceptions } = JSON.parse(await running.cli('reconcile:exceptions', ...scope, '--status', 'open', '--json')) as {
          exceptions: Array<{ ID: string }>;
        };
        const chosen = exceptions.sort((a, b) => a.ID.localeCompare(b.ID))[op.pick % Math.max(exceptions.length, 1)];
        if (!chosen) return false;
        await running.cli('reconcile:resolve', '--exception', chosen.ID, '--note', `soak #${op.index}: an operator looked at it`, ...scope);
        return true;
      }
      if (op.kind === 'expire-tokens') return (await call(running.sandboxUrl, 'POST', '/sandbox/tokens/expire')).status === 200;
      if (op.target === null) return false;
      if (op.kind === 'late-success') {
        const payment = world.payments.get(op.target);
        if (!payment) return false;
        const response = await call(running.sandboxUrl, 'POST', `/sandbox/payments/${payment.transactionId}/status`, {
          body: { status: 'SUCCESS' },
        });
        if (response.status === 200) world.lateSuccesses.add(op.target);
        return response.status === 200;
      }
      if (op.kind === 'redeliver' || op.kind === 'payer-refund') {
        const payment = world.payments.get(op.target);
        if (!payment) return false;
        if (op.kind === 'redeliver') {
          if (!payment.requestId) return false;
          const response = await call(running.sandboxUrl, 'POST', '/sandbox/webhooks/redeliver', {
            body: { requestId: payment.requestId },
          });
          if (response.body.delivery?.status === 200) payment.delivered = true;
          return response.status === 200;
        }
        const response = await call(running.sandboxUrl, 'POST', `/sandbox/payments/${payment.transactionId}/status`, {
          body: { status: 'REFUND' },
        });
        if (response.status === 200) world.payerRefunds.add(op.target);
        return response.status === 200;
      }
      const merchantTxRef = await settleRefOf(op.target);
      if (!merchantTxRef) return false;
      if (op.kind === 'terminate-settlement') {
        const handle = temporalClient.workflow.getHandle(settlementWorkflowId(merchantTxRef));
        const described = await handle.describe();
        if (described.status.name !== 'RUNNING') return false;
        await temporalClient.workflow
          .getHandle(settlementWorkflowId(merchantTxRef), described.runId)
          .terminate('soak: an operator terminated the settlement');
        world.terminated.add(`${settlementWorkflowId(merchantTxRef)}/${described.runId}`);
        return true;
      }
      const { submissions } = await sandboxTransfer(running, merchantTxRef);
      const wanted = op.kind === 'settle-stuck' ? 'PROCESSING' : 'SUCCESS';
      const submission = submissions.find((candidate) => candidate.status === wanted);
      if (!submission) return false;
      const route = op.kind === 'settle-stuck' ? 'settle' : 'refund';
      const response = await call(running.sandboxUrl, 'POST', `/sandbox/transfers/${submission.reference}/${route}`, {
        body: op.kind === 'settle-stuck' ? { status: op.outcome } : {},
      });
      if (response.status === 200 && op.kind === 'transfer-refund') world.transferRefunds.add(op.target);
      return response.status === 200;
    }

    async function processFault(op: Extract<Op, { kind: ProcessFault }>): Promise<void> {
      const from = Date.now();
      switch (op.kind) {
        case 'kill-worker':
        case 'kill-api': {
          const name = op.kind === 'kill-worker' ? 'worker' : 'api';
          await running.kill(name);
          await sleep(op.downMs);
          await running.start(name);
          break;
        }
        case 'restart-temporal':
          await temporal!.stop();
          await sleep(op.downMs);
          temporal = await startIsolatedTemporal({ port: temporalPort, dbFile: path.join(stateDir, 'temporal.db') });
          break;
        case 'restart-postgres':
          await postgres!.stop();
          await sleep(op.downMs);
          await postgres!.start();
          break;
        case 'provider-faults':
          await call(running.sandboxUrl, 'POST', '/sandbox/faults', {
            body: { failureRate: 0.2, throttleRate: 0.2, retryAfterSeconds: 1, latencyMs: 50 },
          });
          await sleep(op.downMs);
          await call(running.sandboxUrl, 'DELETE', '/sandbox/faults');
          break;
      }
      world.faultWindows.push({ kind: op.kind, index: op.index, from, to: Date.now() });
    }

    /** One business operation or operator action; whether it did something. */
    function business(op: Exclude<Op, { kind: ProcessFault }>): Promise<boolean> {
      switch (op.kind) {
        case 'settle':
          return settle(op);
        case 'pay':
          return pay(op);
        case 'transfer':
          return transfer(op);
        case 'race':
          return race(op);
        case 'batch':
          return batch(op);
        case 'dynamic':
          return dynamic(op);
        case 'sweep':
          return sweep(op);
        case 'reconcile':
          return reconcile(op);
        case 'approval':
          return approval(op);
        case 'decide':
          return decide(op);
        case 'lien':
          return lien(op);
        case 'freeze':
          return freeze(op);
        case 'velocity':
          return velocity(op);
        default:
          return operatorAction(op);
      }
    }

    let brokenBy: Error | undefined;
    async function runOp(op: Op): Promise<void> {
      world.lastStarted = Math.max(world.lastStarted, op.index);
      try {
        if ((PROCESS_FAULTS as readonly string[]).includes(op.kind)) {
          await exclusive(() => processFault(op as Extract<Op, { kind: ProcessFault }>));
          faultCounts[op.kind]!.injected += 1;
          log(`${new Date().toISOString()} ${describeOp(op)}`);
          return;
        }
        const done = await business(op as Exclude<Op, { kind: ProcessFault }>);
        tally(opCounts, op.kind, done);
      } catch (error) {
        if ((PROCESS_FAULTS as readonly string[]).includes(op.kind)) {
          faultCounts[op.kind]!.skipped += 1;
          brokenBy ??= new Error(`${describeOp(op)}: the system did not recover: ${(error as Error).message}`);
          return;
        }
        tally(opCounts, op.kind, false);
        log(`${describeOp(op)} failed: ${(error as Error).message}`);
      }
    }

    // The schedule: business operations in a bounded pool, process faults on a track of their own (one at a time).
    const begin = Date.now();
    const inFlight = new Set<Promise<void>>();
    let faultTrack: Promise<void> = Promise.resolve();
    let stopChecks = false;
    const periodic = (async () => {
      for (let next = Date.now() + CHECK_INTERVAL_MS; !stopChecks; await sleep(500)) {
        if (Date.now() < next) continue;
        await exclusive(() => invariants.periodic(log));
        next = Date.now() + CHECK_INTERVAL_MS;
      }
    })();
    try {
      for (const op of ops) {
        if (brokenBy) break;
        await sleep(Math.max(0, begin + op.atMs - Date.now()));
        if ((PROCESS_FAULTS as readonly string[]).includes(op.kind)) {
          faultTrack = faultTrack.then(() => runOp(op));
          continue;
        }
        while (inFlight.size >= CONCURRENT_OPERATIONS) await Promise.race(inFlight);
        const job = runOp(op).finally(() => inFlight.delete(job));
        inFlight.add(job);
      }
      await Promise.all([...inFlight, faultTrack]);
    } finally {
      stopChecks = true;
      await periodic;
    }
    // The schedule, when each fault happened and what the processes logged, for reading a violation or a run that
    // broke: kept however the run ends.
    const artifactsDir = path.resolve(
      __dirname,
      '../../../../.artifacts/soak',
      `seed-${options.seed}-${new Date(started).toISOString().replace(/[:.]/g, '-')}`,
    );
    const keepArtifacts = (): void => {
      mkdirSync(artifactsDir, { recursive: true });
      writeFileSync(path.join(artifactsDir, 'schedule.txt'), `${ops.map(describeOp).join('\n')}\n`);
      writeFileSync(
        path.join(artifactsDir, 'faults.txt'),
        `${world.faultWindows.map((window) => `${new Date(window.from).toISOString()} .. ${new Date(window.to).toISOString()} #${window.index} ${window.kind}`).join('\n')}\n`,
      );
      for (const [name, lines] of Object.entries(running.logs))
        writeFileSync(path.join(artifactsDir, `${name}.log`), `${lines.join('\n')}\n`);
    };
    let judged = false;
    try {
      // A process that did not come back leaves nothing to judge.
      if (brokenBy) throw brokenBy;
      log(`${new Date().toISOString()} schedule done; waiting for every job to settle`);

      // The end: everything healed, every job given time, then judged.
      await call(running.sandboxUrl, 'DELETE', '/sandbox/faults');
      await invariants.final({ settleMs: (options.settleMinutes ?? 10) * 60_000, tenantKeys: tenants.map((tenant) => tenant.apiKey), log });
      judged = true;
    } finally {
      keepArtifacts();
      if (!judged) log(`the run ended before it was judged; its schedule, fault timeline and process logs: ${artifactsDir}`);
    }

    return {
      artifactsDir,
      seed: options.seed,
      minutes: options.minutes,
      operations: ops.length,
      faults: faultCounts,
      operations_by_kind: opCounts,
      settlements: await invariants.settlementOutcomes(),
      payments: await invariants.paymentOutcomes(),
      products: await invariants.productOutcomes(),
      controls: await invariants.controlOutcomes(),
      checks: invariants.checks,
      checksSkipped: invariants.skipped,
      findings: invariants.findingCounts,
      violations: invariants.violations,
      durationMs: Date.now() - started,
    };
  } finally {
    await cleanUp(
      () => sys?.stop(),
      () => client?.connection.close(),
      () => temporal?.stop(),
      () => db?.destroy(),
      () => postgres?.destroy(),
      () => temporal && rmSync(temporal.logFile, { force: true }),
      () => rmSync(stateDir, { recursive: true, force: true }),
    );
  }
}
