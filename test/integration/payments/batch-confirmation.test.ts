import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createConfirmationBatcher } from '../../../src/payment-confirmation/confirmation-batcher';
import { createJobs } from '../../../src/contracts/jobs';
import { createOutboxRepo } from '../../../src/workflow-starts/outbox.repo';
import { createWorkflowStarter } from '../../../src/workflow-starts/workflow-starter';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { createBatchConfirmationService } from '../../../src/payment-confirmation/batch-confirmation.service';
import { createConfirmationClaimsRepo } from '../../../src/payment-confirmation/confirmation-claims.repo';
import { NOT_KNOWN_IN_WINDOW } from '../../../src/contracts/confirmation-rules';
import { uuidv7 } from '../../../src/ids';
import { batchPaymentQuery, type BatchPaymentState } from '../../../workflows/payment-confirmation-batch.workflow';
import { paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { parsePrometheusText, total } from '../../helpers/prometheus';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { paymentConfirmationBatchWorkflowId } from '../../../src/contracts/payment-confirmation.contract';

/**
 * Batched confirmation against the real API, worker, sandbox and Temporal dev server: every confirmation
 * rule holds per payment inside a batch, and the claim row decides who may act.
 */
/**
 * Claims without a worker running, so no batcher takes the queue from under the test: the claimers
 * here are the only ones.
 */
describe('confirmation claims (no worker: the test is the only claimer)', () => {
  let quiet: Stack;
  let tenant: TestTenant;
  before(async () => {
    quiet = await startStack({ CONFIRMATION_WINDOW: '30m' });
    tenant = await createTenant(quiet);
  });
  after(() => quiet.close());

  /** Queues `count` credits for each tenant, queued `age` ago (a Postgres interval), and returns them. */
  async function queueAged(backlogs: Array<{ tenantId: string; count: number; age: string }>) {
    const requests = backlogs.flatMap(({ tenantId, count }) =>
      Array.from({ length: count }, () => ({
        entryId: randomUUID(),
        tenantId,
        accountRef: 'va_turns',
        providerTxnRef: `API-VACT_TRA-TURN-${randomUUID()}`,
        postedAt: new Date(),
      })),
    );
    await createConfirmationClaimsRepo(quiet.infra.db).enqueue(requests);
    for (const { tenantId, age } of backlogs)
      await quiet.infra
        .db('confirmation_claims')
        .where({ tenant_id: tenantId })
        .update({ queued_at: quiet.infra.db.raw('now() - CAST(? AS interval)', [age]) });
    return requests;
  }

  /** Takes the test's credits out of the queue, so no later test claims them. */
  async function dropClaims(requests: Array<{ entryId: string }>): Promise<void> {
    await quiet.infra
      .db('confirmation_claims')
      .whereIn(
        'entry_id',
        requests.map((request) => request.entryId),
      )
      .delete();
  }

  it('a credit is never in two open batches: concurrent claimers split the queue between them', async () => {
    const requests = Array.from({ length: 300 }, (_unused, index) => ({
      entryId: randomUUID(),
      tenantId: index % 3 === 0 ? randomUUID() : tenant.tenantId,
      accountRef: `va_claims_${index % 7}`,
      providerTxnRef: `API-VACT_TRA-CLAIM-${randomUUID()}`,
      postedAt: new Date(),
    }));
    await createConfirmationClaimsRepo(quiet.infra.db).enqueue(requests);
    const claimers = Array.from({ length: 4 }, () => createConfirmationClaimsRepo(quiet.infra.db));
    const passes = await Promise.all(
      claimers.map((claims) => claims.claimQueued({ maxBatches: 5, maxSize: 25, unstartedAfterMs: 60_000, newBatchId: uuidv7 })),
    );
    const claimedIds = passes.flat().flatMap((batch) => batch.payments.map((payment) => payment.entryId));
    assert.equal(new Set(claimedIds).size, claimedIds.length, 'no credit claimed by two batches');
    for (const batch of passes.flat()) {
      assert.ok(batch.payments.length <= 25);
      assert.ok(
        batch.payments.every((payment) => payment.tenantId === batch.tenantId),
        'one tenant per batch',
      );
    }
    const rows = await quiet.infra.db('confirmation_claims').whereIn('entry_id', claimedIds).select('entry_id', 'batch_id');
    const batchOf = new Map(passes.flat().flatMap((batch) => batch.payments.map((payment) => [payment.entryId, batch.batchId] as const)));
    assert.ok(rows.every((row: { entry_id: string; batch_id: string }) => row.batch_id === batchOf.get(row.entry_id)));
    await dropClaims(requests);
  });

  it('claims whose batch never started (the claimer died) are claimed again after the grace, never before; a started batch keeps its claims', async () => {
    const claims = createConfirmationClaimsRepo(quiet.infra.db);
    const requests = Array.from({ length: 4 }, () => ({
      entryId: randomUUID(),
      tenantId: randomUUID() as string,
      accountRef: 'va_orphan',
      providerTxnRef: `API-VACT_TRA-ORPHAN-${randomUUID()}`,
      postedAt: new Date(),
    }));
    requests[1]!.tenantId = requests[0]!.tenantId;
    requests[3]!.tenantId = requests[2]!.tenantId;
    await claims.enqueue(requests);
    const ids = new Set<string>(requests.map((request) => request.entryId));
    const mine = (batches: Awaited<ReturnType<typeof claims.claimQueued>>) =>
      batches.filter((batch) => batch.payments.some((payment) => ids.has(payment.entryId)));
    const first = mine(await claims.claimQueued({ maxBatches: 1_000, maxSize: 2, unstartedAfterMs: 1_000, newBatchId: uuidv7 }));
    assert.equal(first.length, 2);
    const [started, orphaned] = first;
    await claims.markStarted(started!.batchId);
    assert.deepEqual(
      mine(await claims.claimQueued({ maxBatches: 1_000, maxSize: 2, unstartedAfterMs: 1_000, newBatchId: uuidv7 })),
      [],
      'nothing taken within the grace',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const again = mine(await claims.claimQueued({ maxBatches: 1_000, maxSize: 2, unstartedAfterMs: 1_000, newBatchId: uuidv7 }));
    assert.deepEqual(
      again.map((batch) => batch.payments.map((payment) => payment.entryId).sort()),
      [orphaned!.payments.map((payment) => payment.entryId).sort()],
      "only the unstarted batch's credits",
    );
    assert.notEqual(again[0]!.batchId, orphaned!.batchId);
    const heldBy = await quiet.infra
      .db('confirmation_claims')
      .whereIn('entry_id', [...ids])
      .pluck('batch_id');
    assert.deepEqual(new Set(heldBy), new Set([started!.batchId, again[0]!.batchId]));
    await quiet.infra
      .db('confirmation_claims')
      .whereIn('entry_id', [...ids])
      .delete();
  });

  it('shares a pass out by tenant: the longest-waiting tenants first, each a batch before any a second, never more batches than asked', async () => {
    const claims = createConfirmationClaimsRepo(quiet.infra.db);
    const [busy, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    // The busy tenant's backlog waited longest, then the second's credit, then the third's: all older than anything other tests queue.
    const requests = await queueAged([
      { tenantId: busy, count: 40, age: '3 days' },
      { tenantId: second, count: 1, age: '2 days' },
      { tenantId: third, count: 1, age: '1 day' },
    ]);
    const tenantsOf = (batches: Awaited<ReturnType<typeof claims.claimQueued>>) =>
      batches.map((batch) => [batch.tenantId, batch.payments.length]);
    assert.deepEqual(tenantsOf(await claims.claimQueued({ maxBatches: 3, maxSize: 10, unstartedAfterMs: 60_000, newBatchId: uuidv7 })), [
      [busy, 10],
      [second, 1],
      [third, 1],
    ]);
    assert.deepEqual(
      tenantsOf(await claims.claimQueued({ maxBatches: 2, maxSize: 10, unstartedAfterMs: 60_000, newBatchId: uuidv7 })).slice(0, 1),
      [[busy, 10]],
      'the busy tenant again, the others having none left',
    );
    const queued = await quiet.infra
      .db('confirmation_claims')
      .where({ tenant_id: busy })
      .whereNull('batch_id')
      .count<{ count: string }[]>('* as count')
      .first();
    assert.ok(Number(queued?.count) >= 10 && Number(queued?.count) <= 20, `the rest of the backlog stays queued: ${queued?.count}`);
    await dropClaims(requests);
  });

  it('after the window, two "not found" answers in quick succession never reverse a credit; a third, spaced from the last counted, does', async () => {
    const db = quiet.infra.db;
    const account = await provisionAccount(quiet, tenant.apiKey);
    // A payment the provider never knew: every lookup answers "not found".
    const unknown = paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25 });
    const providerTxnRef = (unknown.data as { transaction: { transactionId: string } }).transaction.transactionId;
    await sendProviderEvent(quiet, unknown);
    const { id: entryId } = await db('ledger_entries').where({ provider_txn_ref: providerTxnRef, kind: 'payment' }).first('id');
    const batchId = `spacing-${randomUUID()}`;
    await db('confirmation_claims')
      .where({ entry_id: entryId })
      .update({ batch_id: batchId, claimed_at: db.fn.now(), started_at: db.fn.now() });
    // The rounds of a batch whose worker was starved: a 1 s window (counted answers 334 ms apart), over before it first asks.
    const windowMs = 1_000;
    const rounds = createBatchConfirmationService({
      db,
      provider: quiet.infra.provider,
      postingEngine: quiet.services.ledger,
      logger: quiet.infra.logger,
      windowMs,
      minNotFoundLookups: 3,
      splits: quiet.services.splitRules,
    });
    await eventually(
      async () =>
        (
          await db.raw(`SELECT now() >= created_at + make_interval(secs => ?) AS over FROM ledger_entries WHERE id = ?`, [
            windowMs / 1000,
            entryId,
          ])
        ).rows[0].over === true,
      {
        what: 'the end of its window',
      },
    );
    const claim = () =>
      db('confirmation_claims').where({ entry_id: entryId }).first('lookups', 'not_found_answers', 'last_not_found_counted_at');

    // However fast or slow these two rounds come, two answers are fewer than the minimum of three.
    for (const round of [1, 2]) {
      const [result] = (await rounds.round(batchId, [entryId])).results;
      assert.equal(result?.kind, 'kept', `round ${round}: ${JSON.stringify(result)}`);
    }
    const remembered = await claim();
    assert.equal(remembered.lookups, 2);
    assert.ok(remembered.not_found_answers >= 1 && remembered.not_found_answers <= 2, `counted ${remembered.not_found_answers}`);
    assert.ok(remembered.last_not_found_counted_at instanceof Date, 'the time of the last counted answer is on the claim');
    assert.equal((await db('ledger_entries').where({ id: entryId }).first('status')).status, 'provisional');

    // Two answers counted well apart, the last an hour ago: the next "not found", after the window, is the third.
    await db('confirmation_claims')
      .where({ entry_id: entryId })
      .update({ not_found_answers: 2, last_not_found_counted_at: db.raw(`now() - interval '1 hour'`) });
    const [reversed] = (await rounds.round(batchId, [entryId])).results;
    assert.deepEqual(reversed && { kind: reversed.kind, reason: reversed.kind === 'settled' ? reversed.reason : null }, {
      kind: 'settled',
      reason: NOT_KNOWN_IN_WINDOW,
    });
    assert.equal((await db('ledger_entries').where({ id: entryId }).first('status')).status, 'reversed');
    assert.equal(await db('confirmation_claims').where({ entry_id: entryId }).first(), undefined, 'the reversal took its claim');
  });

  it('gives a pass with room for one batch to a tenant with no busy batch before an older backlog whose tenant has one', async () => {
    const claims = createConfirmationClaimsRepo(quiet.infra.db);
    const [bursting, small] = [randomUUID(), randomUUID()];
    // The burst waited longer than the small tenant's credit, and longer than anything other tests queue.
    const requests = await queueAged([
      { tenantId: bursting, count: 6, age: '6 days' },
      { tenantId: small, count: 1, age: '5 days' },
    ]);
    const pass = async (busyTenants: string[]) =>
      (await claims.claimQueued({ maxBatches: 1, maxSize: 2, unstartedAfterMs: 60_000, newBatchId: uuidv7, busyTenants })).map((batch) => [
        batch.tenantId,
        batch.payments.length,
      ]);
    assert.deepEqual(await pass([]), [[bursting, 2]], 'without busy batches, the longest wait first');
    assert.deepEqual(await pass([bursting]), [[small, 1]], 'the bursting tenant has a batch busy: the small tenant goes first');
    assert.deepEqual(await pass([bursting]), [[bursting, 2]], 'with nobody else waiting, the busy tenant still gets the room');
    await dropClaims(requests);
  });

  it('a worker process keeps at most its cap of batches busy (in their first round), counting only those it started; the queue waits for room', async () => {
    const db = quiet.infra.db;
    // Started on this stack's task queue, which no worker polls: the test plays their rounds on the claims.
    const starter = createWorkflowStarter({
      client: quiet.infra.temporal,
      outbox: createOutboxRepo(db),
      logger: quiet.infra.logger,
      options: { taskQueue: quiet.config.TEMPORAL_TASK_QUEUE, startsPerSecond: 100 },
    });
    const batcher = createConfirmationBatcher({
      db,
      starter,
      jobs: createJobs(quiet.config),
      maxBatchSize: 2,
      maxBusyBatches: 2,
      unstartedAfterMs: 60_000,
      logger: quiet.infra.logger,
    });
    const claims = createConfirmationClaimsRepo(db);
    const tenantId = randomUUID();
    const requests = Array.from({ length: 10 }, () => ({
      entryId: randomUUID(),
      tenantId,
      accountRef: 'va_capped',
      providerTxnRef: `API-VACT_TRA-CAP-${randomUUID()}`,
      postedAt: new Date(),
    }));
    // Another process's batch (a worker that stopped): busy in the database, but not this process's to count.
    const abandoned = requests.slice(0, 2);
    await claims.enqueue(requests);
    await db('confirmation_claims')
      .whereIn(
        'entry_id',
        abandoned.map((item) => item.entryId),
      )
      .update({ batch_id: uuidv7(), claimed_at: db.fn.now(), started_at: db.fn.now() });
    await db('confirmation_claims')
      .where({ tenant_id: tenantId })
      .whereNull('batch_id')
      .update({ queued_at: db.raw("now() - interval '4 days'") });
    const batchesInOrder = async (): Promise<string[]> =>
      db('confirmation_claims')
        .where({ tenant_id: tenantId })
        .whereNotIn(
          'entry_id',
          abandoned.map((item) => item.entryId),
        )
        .whereNotNull('batch_id')
        .groupBy('batch_id')
        .orderByRaw('min(claimed_at), batch_id')
        .pluck('batch_id');
    const queuedLeft = async (): Promise<number> =>
      Number(
        (
          await db('confirmation_claims')
            .where({ tenant_id: tenantId })
            .whereNull('batch_id')
            .count<{ count: string }[]>('* as count')
            .first()
        )?.count,
      );
    try {
      const first = await batcher.pass();
      assert.deepEqual([first.batches, first.busy, first.roomFull], [2, 0, true], 'two batches fit: the abandoned one takes no room');
      const [a, b] = await batchesInOrder();
      const full = await batcher.pass();
      assert.deepEqual([full.batches, full.busy, full.roomFull], [0, 2, true], 'none while its own two are in their first round');
      assert.equal(await queuedLeft(), 4);
      // A's payments were answered and wait on back-off (the provider does not know them yet): A holds no room.
      await db('confirmation_claims').where({ batch_id: a }).update({ lookups: 1 });
      const afterAnswers = await batcher.pass();
      assert.deepEqual([afterAnswers.batches, afterAnswers.busy], [1, 1]);
      // B settled its credits: room for the last batch.
      await db('confirmation_claims').where({ batch_id: b }).delete();
      const afterSettled = await batcher.pass();
      assert.deepEqual([afterSettled.batches, afterSettled.busy], [1, 1]);
      assert.equal(await queuedLeft(), 0, 'the last credits waited for the room and are claimed now');
    } finally {
      const batchIds = await db('confirmation_claims')
        .where({ tenant_id: tenantId })
        .whereNotNull('batch_id')
        .distinct('batch_id')
        .pluck('batch_id');
      for (const batchId of batchIds)
        await quiet.infra.temporal.workflow
          .getHandle(paymentConfirmationBatchWorkflowId(batchId))
          .terminate('test over')
          .catch(() => undefined);
      await db('confirmation_claims').where({ tenant_id: tenantId }).delete();
      await starter.close();
    }
  });

  it('a 429 backs off the whole batch: lookups stop at the first Retry-After, the rest are skipped', async () => {
    {
      const other = await createTenant(quiet);
      const account = await provisionAccount(quiet, other.apiKey);
      const refs: string[] = [];
      for (let i = 0; i < 30; i += 1) {
        const sent = await call(quiet.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 2010 } });
        refs.push(sent.body.transactionId as string);
      }
      const [batch] = await createConfirmationClaimsRepo(quiet.infra.db).claimQueued({
        maxBatches: 1,
        maxSize: 30,
        unstartedAfterMs: 60_000,
        newBatchId: uuidv7,
      });
      assert.equal(batch!.payments.length, 30);
      await call(quiet.sandboxUrl, 'POST', '/sandbox/faults', {
        body: { throttleRate: 1, retryAfterSeconds: 7, routes: ['/v1/transactions'] },
      });
      // Eight lookups at a time, fewer than the batch holds, so a 429 leaves payments unasked.
      const rounds = createBatchConfirmationService({
        db: quiet.infra.db,
        provider: quiet.infra.provider,
        postingEngine: quiet.services.ledger,
        logger: quiet.infra.logger,
        windowMs: quiet.config.CONFIRMATION_WINDOW,
        minNotFoundLookups: quiet.config.CONFIRMATION_MIN_NOT_FOUND_LOOKUPS,
        lookupConcurrency: 8,
        splits: quiet.services.splitRules,
      });
      const round = await rounds.round(
        batch!.batchId,
        batch!.payments.map((payment) => payment.entryId),
      );
      const kinds = round.results.map((result) => result.kind);
      assert.equal(round.throttledForMs, 7_000);
      assert.ok(
        kinds.filter((kind) => kind === 'kept').length <= 8,
        `at most one lookup per lane before the batch stops: ${kinds.join(',')}`,
      );
      assert.ok(kinds.filter((kind) => kind === 'skipped').length >= 22);
      await call(quiet.sandboxUrl, 'DELETE', '/sandbox/faults');
      const next = await rounds.round(
        batch!.batchId,
        batch!.payments.map((payment) => payment.entryId),
      );
      assert.ok(next.results.every((result) => result.kind === 'settled' && result.outcome === 'confirmed'));
      assert.equal(next.throttledForMs, null);
    }
  });
});

describe('batched confirmation (claims, batches, findability)', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack(
      { CONFIRMATION_WINDOW: '3s', CONFIRMATION_POLL_INTERVAL: '500ms', CONFIRMATION_BATCH_WINDOW: '300ms' },
      { worker: true },
    );
    tenant = await createTenant(stack);
  });
  after(() => stack.close());
  // Batches confirm many credits in one statement: every account's stored totals (pending credits too) still add up.
  afterEach(async () => {
    assert.deepEqual(await createLedgerVerificationRepo(stack.infra.db).problems(), [], 'ledger:verify');
  });

  const entryStatus = async (providerTxnRef: string): Promise<string | undefined> =>
    (await stack.infra.db('ledger_entries').where({ provider_txn_ref: providerTxnRef, kind: 'payment' }).first('status'))?.status;

  async function pay(account: ProvisionedAccount, body: Record<string, unknown> = {}): Promise<string> {
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 2010, ...body },
    });
    assert.equal(sent.body.delivery.status, 200);
    return sent.body.transactionId as string;
  }

  /** The provider shows a payment made with `status: 'PROCESSING'` SUCCESS from now on: a test holds a batch open until it says so. */
  async function succeed(providerTxnRef: string): Promise<void> {
    const changed = await call(stack.sandboxUrl, 'POST', `/sandbox/payments/${providerTxnRef}/status`, { body: { status: 'SUCCESS' } });
    assert.equal(changed.status, 200, changed.text);
  }

  /** The batch workflows that name this provider transaction in their ProviderTxnRefs list (visibility). */
  async function batchesListing(providerTxnRef: string): Promise<Array<{ workflowId: string; status: string }>> {
    const found: Array<{ workflowId: string; status: string }> = [];
    for await (const execution of stack.infra.temporal.workflow.list({ query: `ProviderTxnRefs = '${providerTxnRef}'` }))
      found.push({ workflowId: execution.workflowId, status: execution.status.name });
    return found;
  }

  it("one batch confirms a tenant's payments; each is findable by its ProviderTxnRef and AccountRef, and its outcome and lookups are queryable", async () => {
    const [first, second] = [await provisionAccount(stack, tenant.apiKey), await provisionAccount(stack, tenant.apiKey)];
    const refs = await Promise.all([pay(first), pay(first), pay(second)]);
    await eventually(async () => (await Promise.all(refs.map(entryStatus))).every((status) => status === 'confirmed'), {
      what: 'the batch to confirm',
    });
    assert.equal(
      await stack.infra
        .db('confirmation_claims')
        .whereIn('provider_txn_ref', refs)
        .count('* as n')
        .first()
        .then((row) => Number(row!.n)),
      0,
      'settled credits leave no claim',
    );

    const listed = await eventually(
      async () => {
        const found = await batchesListing(refs[2]!);
        return found.length > 0 ? found : null;
      },
      { what: 'the batch in visibility by ProviderTxnRefs' },
    );
    assert.ok(listed.every((execution) => execution.workflowId.startsWith('payment-confirmation-batch:')));
    const byAccount: string[] = [];
    for await (const execution of stack.infra.temporal.workflow.list({
      query: `AccountRefs = '${second.AccountRef}' AND WorkflowType = 'paymentConfirmationBatchWorkflow'`,
    }))
      byAccount.push(execution.workflowId);
    assert.ok(byAccount.includes(listed[0]!.workflowId), 'the same batch is listed by the account');

    const state = (await stack.infra.temporal.workflow
      .getHandle(listed[0]!.workflowId)
      .query(batchPaymentQuery, refs[2]!)) as BatchPaymentState;
    assert.equal(state.outcome, 'confirmed');
    assert.equal(state.accountRef, second.AccountRef);
    assert.ok(state.lookups >= 1);
    assert.equal(state.lastLookup?.kind, 'found');
  });

  it('a payment the provider keeps PROCESSING does not hold up the others of its batch', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const slow = await pay(account, { status: 'PROCESSING' });
    const quick = await Promise.all([pay(account), pay(account)]);
    await eventually(async () => (await Promise.all(quick.map(entryStatus))).every((status) => status === 'confirmed'), {
      what: 'the quick payments',
    });
    // Its 3 s window over (by the database's clock), then looked up once more: still only waiting.
    const { id: slowId } = await stack.infra.db('ledger_entries').where({ provider_txn_ref: slow }).first('id');
    await eventually(
      async () =>
        (await stack.infra.db.raw(`SELECT now() > created_at + interval '3 seconds' AS over FROM ledger_entries WHERE id = ?`, [slowId]))
          .rows[0].over === true,
      {
        what: 'the end of its window',
      },
    );
    const lookups = async (): Promise<number> =>
      (await stack.infra.db('confirmation_claims').where({ entry_id: slowId }).first('lookups')).lookups as number;
    const lookupsAtWindowEnd = await lookups();
    await eventually(async () => (await lookups()) > lookupsAtWindowEnd, { what: 'a lookup after its window' });
    assert.equal(await entryStatus(slow), 'provisional', 'still PROCESSING at the provider, past its 3 s window');
    await succeed(slow);
    await eventually(async () => (await entryStatus(slow)) === 'confirmed', { what: 'the slow payment' });
  });

  it('a terminated batch releases its credits to the convergence check, and a new batch confirms them once', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    // PROCESSING at the provider until the test says otherwise: the batch is still running when it is terminated.
    const ref = await pay(account, { status: 'PROCESSING' });
    const entry = await stack.infra.db('ledger_entries').where({ provider_txn_ref: ref }).first('id');
    const claim = await eventually(
      async () => (await stack.infra.db('confirmation_claims').where({ entry_id: entry.id }).whereNotNull('batch_id').first()) ?? null,
      { what: 'the claim' },
    );
    const handle = stack.infra.temporal.workflow.getHandle(paymentConfirmationBatchWorkflowId(claim.batch_id));
    await eventually(async () => (await handle.describe()).status.name === 'RUNNING', { what: 'the batch to run' });
    await handle.terminate('operator terminated it');
    // The convergence check's step: stopped batches give their credits back to the queue; the batcher claims them again.
    const released = await stack.services.batchClaimReleases.releaseStopped(0);
    assert.ok(released.released >= 1 && released.payments >= 1, JSON.stringify(released));
    await succeed(ref);
    await eventually(async () => (await entryStatus(ref)) === 'confirmed', { what: 'the new batch to confirm it' });
    // The credit shows confirmed a moment before the batch that confirmed it closes: wait for both to be closed.
    const listed = await eventually(
      async () => {
        const found = await batchesListing(ref);
        return found.length >= 2 && found.every((execution) => execution.status !== 'RUNNING') ? found : null;
      },
      { what: 'both batches closed in visibility' },
    );
    assert.deepEqual(listed.map((execution) => execution.status).sort(), ['COMPLETED', 'TERMINATED']);
    assert.equal(
      (await stack.infra.db('ledger_entries').where({ reverses_entry_id: entry.id })).length,
      0,
      'confirmed once, never reversed',
    );
  });

  it('a running batch keeps its claims: the convergence check releases only batches that stopped', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const ref = await pay(account, { status: 'PROCESSING' });
    const entry = await stack.infra.db('ledger_entries').where({ provider_txn_ref: ref }).first('id');
    const claim = await eventually(
      async () => (await stack.infra.db('confirmation_claims').where({ entry_id: entry.id }).whereNotNull('batch_id').first()) ?? null,
      { what: 'the claim' },
    );
    await eventually(
      async () =>
        (await stack.infra.temporal.workflow.getHandle(paymentConfirmationBatchWorkflowId(claim.batch_id)).describe()).status.name ===
        'RUNNING',
      {
        what: 'the batch to run',
      },
    );
    await stack.services.batchClaimReleases.releaseStopped(0);
    assert.equal((await stack.infra.db('confirmation_claims').where({ entry_id: entry.id }).first()).batch_id, claim.batch_id);
    await succeed(ref);
    await eventually(async () => (await entryStatus(ref)) === 'confirmed', { what: 'confirmation' });
  });

  it('does not trust its input: a batch started by hand with another batch id confirms nothing it does not hold', async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const unknown = paymentEvent({ accountRef: account.AccountRef, amount: 5025, fee: 25 });
    const unknownTxn = (unknown.data as { transaction: { transactionId: string } }).transaction.transactionId;
    await sendProviderEvent(stack, unknown);
    const entry = await stack.infra.db('ledger_entries').where({ provider_txn_ref: unknownTxn }).first('id');
    const real = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, deliver: false },
    });
    const round = await stack.services.batchConfirmations.round(`forged-${randomUUID()}`, [entry.id]);
    assert.deepEqual(round.results, [{ entryId: entry.id, kind: 'released' }]);
    // Its own batch reverses it when the window ends: the provider never knew it, whatever "real" payment was named.
    await eventually(async () => (await entryStatus(unknownTxn)) === 'reversed', { what: 'reversal' });
    assert.equal(await entryStatus(real.body.transactionId), undefined);
  });

  it('the worker starts its batches eagerly: the first workflow task comes back to it in the start answer', async () => {
    const eagerBatchStarts = async (): Promise<number> =>
      total(parsePrometheusText(await stack.infra.metrics.registry.metrics()), 'nuban_workflow_starts_total', {
        workflow_type: 'paymentConfirmationBatchWorkflow',
        eager: 'true',
      });
    const before = await eagerBatchStarts();
    const account = await provisionAccount(stack, tenant.apiKey);
    const ref = await pay(account);
    await eventually(async () => (await entryStatus(ref)) === 'confirmed', { what: 'confirmation' });
    assert.ok((await eagerBatchStarts()) > before, 'a batch started eagerly');
  });

  it("statement lines confirmed by a batch keep the lag metric's per-entry time", async () => {
    const account = await provisionAccount(stack, tenant.apiKey);
    const ref = await pay(account);
    await eventually(async () => (await entryStatus(ref)) === 'confirmed', { what: 'confirmation' });
    const row = await stack.infra.db('ledger_entries').where({ provider_txn_ref: ref }).first('created_at', 'status_changed_at');
    assert.ok(row.status_changed_at > row.created_at);
    const page = await statement(stack, tenant.apiKey, account.AccountRef);
    assert.equal(page.body.lines[0].entry.Status, 'confirmed');
  });
});
