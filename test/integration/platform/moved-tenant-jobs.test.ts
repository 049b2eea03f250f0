import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createJobs } from '../../../src/contracts/jobs';
import { scheduledPayoutWorkflowId } from '../../../src/contracts/scheduled-payout.contract';
import { createLogger } from '../../../src/logger';
import { createConfirmationClaimsRepo } from '../../../src/payment-confirmation/confirmation-claims.repo';
import { scheduledPayoutRestartPlan } from '../../../src/settlements/scheduled-payout-restarts';
import { createTenantFence } from '../../../src/tenant-moves/tenant-fence';
import { createEventDispatcher } from '../../../src/webhooks/event-dispatcher';
import { fundAccount, paymentEvent, provisionAccount, sendProviderEvent } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

// The source cluster of a move keeps the tenant's rows, fenced. Its jobs that span tenants pass the tenant by: the
// target runs them now, and here they could only fail on the fence, again and again, or act twice.
describe("tenant:move: the source's jobs pass a moved tenant by", function () {
  this.timeout(60_000);
  let stack: Stack;
  let moved: TestTenant;
  let staying: TestTenant;
  let scheduledRef: string;

  before(async () => {
    stack = await startStack({}, { worker: false });
    [moved, staying] = [await createTenant(stack, 'Moved'), await createTenant(stack, 'Staying')];
    const account = await provisionAccount(stack, moved.apiKey);
    await fundAccount(stack, account.ID, 500_000n);
    const scheduled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: moved.apiKey,
      body: {
        amount: '100.00',
        bankCode: '058',
        accountNumber: '0123456789',
        scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    assert.equal(scheduled.status, 202, scheduled.text);
    scheduledRef = scheduled.body.merchantTxRef as string;
    // Events of both tenants waiting for the dispatcher: each has an endpoint that takes them (events no endpoint
    // takes are recorded dispatched).
    for (const tenant of [moved, staying]) {
      const endpoint = await call(stack.apiUrl, 'POST', '/v1/webhook-endpoints', {
        apiKey: tenant.apiKey,
        body: { url: 'http://127.0.0.1:9/events', eventTypes: ['payment.received'] },
      });
      assert.equal(endpoint.status, 201, endpoint.text);
    }
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: account.AccountRef }))).status, 200);
    const other = await provisionAccount(stack, staying.apiKey);
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: other.AccountRef }))).status, 200);

    // The move's fence, and its stop of the tenant's workflows here.
    await createTenantFence(stack.infra.db).raise(moved.tenantId);
    const stopped = await stack.services.tenantWorkflows.stopRunning(moved.tenantId);
    assert.ok(stopped.includes(scheduledPayoutWorkflowId(scheduledRef)), stopped.join(', '));
  });
  after(async () => {
    await stack?.close();
  });

  it("the convergence check's restarts leave a moved tenant's scheduled payout to the target", async () => {
    const plan = scheduledPayoutRestartPlan({
      db: stack.infra.db,
      jobs: createJobs(stack.config),
      starter: stack.services.starter,
      logger: createLogger('silent', 'test'),
    });
    assert.deepEqual(await plan.resume([scheduledRef]), {
      restarted: 0,
      failed: 0,
    });
  });

  it("the confirmation batcher claims the other tenant's queued credits and leaves the moved tenant's queued here", async () => {
    const queuedOf = (tenantId: string) =>
      stack.infra.db('confirmation_claims').where({ tenant_id: tenantId }).select('entry_id', 'batch_id');
    const movedBefore = await queuedOf(moved.tenantId);
    assert.ok(movedBefore.length > 0 && movedBefore.every((claim) => claim.batch_id === null));
    // A claim of the moved tenant's that a batch took here and never started: such claims are taken again first.
    await stack.infra
      .db('confirmation_claims')
      .where({ entry_id: movedBefore[0]!.entry_id })
      .update({
        batch_id: 'orphaned-here',
        claimed_at: stack.infra.db.raw("now() - interval '1 hour'"),
      });
    const claimed = await createConfirmationClaimsRepo(stack.infra.db).claimQueued({
      maxBatches: 10,
      maxSize: 50,
      unstartedAfterMs: 60_000,
      newBatchId: () => randomUUID(),
    });
    // Other files' tenants share the lane's database and may have credits queued too: only these two are judged.
    const claimedTenants = claimed.map((batch) => batch.tenantId);
    assert.ok(claimedTenants.includes(staying.tenantId), "the staying tenant's queued credit is claimed");
    assert.ok(!claimedTenants.includes(moved.tenantId), "no batch of the moved tenant's credits");
    assert.deepEqual(
      (await queuedOf(moved.tenantId)).map((claim) => claim.batch_id).sort(),
      movedBefore.map((_claim, index) => (index === 0 ? 'orphaned-here' : null)).sort(),
    );
    await stack.infra.db('confirmation_claims').where({ entry_id: movedBefore[0]!.entry_id }).update({ batch_id: null });
  });

  it('a batch holding a moved tenant’s credit lets it go untouched: still provisional, its claim still naming the batch', async () => {
    const [claim] = await stack.infra.db('confirmation_claims').where({ tenant_id: moved.tenantId }).limit(1).select('entry_id');
    // As a batch started here just before the move holds it (and the copy on the target names it too).
    await stack.infra.db('confirmation_claims').where({ entry_id: claim.entry_id }).update({ batch_id: 'batch-before-the-move' });
    const round = await stack.services.batchConfirmations.round('batch-before-the-move', [claim.entry_id as string]);
    assert.deepEqual(round.results, [{ entryId: claim.entry_id, kind: 'released' }]);
    const entry = await stack.infra.db('ledger_entries').where({ id: claim.entry_id }).first('status');
    assert.equal(entry.status, 'provisional');
    const after = await stack.infra.db('confirmation_claims').where({ entry_id: claim.entry_id }).first('batch_id');
    assert.equal(after.batch_id, 'batch-before-the-move');
  });

  it("the event dispatcher leaves a moved tenant's events undispatched here, and dispatches the others'", async () => {
    const undispatched = (tenantId: string) =>
      stack.infra.db('tenant_events').where({ tenant_id: tenantId }).whereNull('dispatched_at').count({ n: '*' }).first();
    const before = Number((await undispatched(moved.tenantId))!.n);
    assert.ok(before > 0, 'the moved tenant has events waiting');
    assert.ok(before > 0);
    // Passes until one is not full: other test files of this database may have left more events than one pass takes.
    const dispatcher = createEventDispatcher({ db: stack.infra.db, jobs: createJobs(stack.config), starter: stack.services.starter });
    while ((await dispatcher.pass()).full);
    assert.equal(Number((await undispatched(moved.tenantId))!.n), before, 'the target dispatches them');
    assert.equal(Number((await undispatched(staying.tenantId))!.n), 0);
  });
});
