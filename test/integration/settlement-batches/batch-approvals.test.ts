import type { ScheduleHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { approvalUsers, asUser, freshAccountNumber, fundedAccount as fundedAccountOf, pausedExpirySchedule } from '../../helpers/approvals';
import type { ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser, type DashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface HeldBatch {
  id: string;
  status: string;
  items: number;
  total: string;
  reasons: string[];
  maker: string;
  expiresAt: string;
  flaggedCount: number;
  flagged: Array<{ reference: string; reason: string }>;
}

interface BatchView {
  id: string;
  status: string;
  counts: Record<string, number>;
  items: Array<{ reference: string; merchantTxRef: string | null; status: string; failureReason: string | null }>;
}

/**
 * Maker-checker for bulk payouts: under a tenant's approval policy a settlement batch at or above its item count (or
 * total) is accepted awaiting approval with each item's money reserved, and no item runs until a user other than its
 * maker approves it as a whole (it then runs as any batch, each item paid once and spending what was kept for it),
 * rejects it, or lets it expire (what it reserved is released, exactly). With the policy's batch thresholds unset, a
 * batch runs at once as before. Expiry runs on the reservation expiry Schedule, made here and run by hand.
 */
describe('settlement batch approvals (maker-checker)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let tenant: TestTenant;
  let admin: DashboardUser;
  let operator: DashboardUser;
  let approver: DashboardUser;
  let expirySchedule: ScheduleHandle;

  before(async () => {
    stack = await startStack(
      {
        SETTLEMENT_POLL_INTERVAL: '1s',
        SETTLEMENT_RETRY_SCHEDULE: '500ms',
        SETTLEMENT_BATCH_POLL_INTERVAL: '500ms',
      },
      { worker: true },
    );
    tenant = await createTenant(stack, 'Batch Approvals Tenant');
    ({ admin, operator, approver } = await approvalUsers(stack, tenant.tenantId, { batchItemsAtOrAbove: 3 }));
    expirySchedule = await pausedExpirySchedule(stack);
  });
  after(async () => {
    await expirySchedule?.delete();
    await stack?.close();
  });

  const as = (user: DashboardUser, method: string, path: string, body?: unknown) => asUser(stack, user, method, path, body);
  const fundedAccount = (apiKey = tenant.apiKey, kobo = 10_000_00n) => fundedAccountOf(stack, apiKey, kobo);

  const balance = async (account: ProvisionedAccount, apiKey = tenant.apiKey) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey })).body as {
      ledgerBalance: string;
      heldBalance: string;
      reserved: Record<string, string>;
    };

  const item = (account: ProvisionedAccount, amount: string, reference = randomUUID()) => ({
    reference,
    accountRef: account.AccountRef,
    amount,
    bankCode: '058',
    accountNumber: freshAccountNumber(),
  });

  /** A batch made by a dashboard user (its maker). */
  const batchByUser = (user: DashboardUser, items: unknown[]) =>
    call(stack.apiUrl, 'POST', '/auth/settlement-batches', {
      cookie: user.cookie,
      body: { items },
      headers: { 'Idempotency-Key': randomUUID() },
    });

  const batchByKey = (items: unknown[], apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'POST', '/v1/settlement-batches', { apiKey, body: { items }, headers: { 'Idempotency-Key': randomUUID() } });

  const batch = async (id: string, apiKey = tenant.apiKey) =>
    (await call<BatchView>(stack.apiUrl, 'GET', `/v1/settlement-batches/${id}`, { apiKey })).body;

  const eventsOf = async (tenantId: string, subject: string) =>
    (await stack.infra.db('tenant_events').where({ tenant_id: tenantId, subject }).orderBy('sequence').select('type', 'data')) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  it('with no batch threshold in the policy (or no policy) a batch runs at once, exactly as before', async () => {
    for (const policy of [null, { payoutAtOrAbove: '1000000' }]) {
      const plain = await createTenant(stack, 'Plain Batch Tenant');
      const plainAdmin = await dashboardUser(stack, plain.tenantId, 'admin');
      if (policy) assert.equal((await as(plainAdmin, 'PUT', '/auth/approval-policy', policy)).status, 200);
      const stored = (await as(plainAdmin, 'GET', '/auth/approval-policy')).body;
      assert.deepEqual([stored.batchTotalAtOrAbove, stored.batchItemsAtOrAbove], [null, null], 'no batch threshold by default');
      const account = await fundedAccount(plain.apiKey);
      const made = await batchByKey([item(account, '10.00'), item(account, '20.00'), item(account, '30.00')], plain.apiKey);
      assert.equal(made.status, 202, made.text);
      assert.notEqual(made.body.status, 'awaiting_approval');
      await eventually(async () => (await batch(made.body.id, plain.apiKey)).status === 'completed', { what: 'the batch paid' });
      assert.deepEqual(await stack.infra.db('ledger_reservations').where({ account_id: account.ID }).select('id'), []);
      assert.equal((await balance(account, plain.apiKey)).ledgerBalance, '9940.00');
    }
  });

  it('a batch at the item count waits with exactly its total reserved; its maker cannot approve it; another user approves and each item pays once', async () => {
    const first = await fundedAccount();
    const second = await fundedAccount();
    const items = [item(first, '1000.00'), item(second, '2500.00'), item(first, '500.50'), { ...item(first, '10.00'), bankCode: '999' }];
    const policy = (await as(approver, 'GET', '/auth/approval-policy')).body;
    assert.deepEqual([policy.batchItemsAtOrAbove, policy.batchTotalAtOrAbove], [3, null]);
    const made = await batchByUser(admin, items);
    assert.equal(made.status, 202, made.text);
    assert.equal(made.body.status, 'awaiting_approval');
    const id = made.body.id as string;
    const [one, two] = [await balance(first), await balance(second)];
    assert.deepEqual([one.heldBalance, one.reserved.batch_approval, one.ledgerBalance], ['1500.50', '1500.50', '10000.00']);
    assert.deepEqual([two.heldBalance, two.reserved.batch_approval], ['2500.00', '2500.00']);
    const overSpendable = await call(stack.apiUrl, 'POST', `/v1/accounts/${second.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '7500.01', bankCode: '058', accountNumber: freshAccountNumber() },
    });
    assert.deepEqual([overSpendable.status, overSpendable.body.error], [400, 'insufficient funds'], 'what can be spent is 2,500.00 less');

    const listed = ((await as(approver, 'GET', '/auth/batch-approvals')).body.batches as HeldBatch[]).find((held) => held.id === id);
    assert.deepEqual(
      [listed?.items, listed?.total, listed?.reasons, listed?.maker, listed?.flaggedCount, listed?.flagged.map((flag) => flag.reference)],
      [4, '4000.50', ['item_count'], admin.email, 1, [items[3]!.reference]],
    );
    assert.ok(listed?.expiresAt);
    assert.equal((await batch(id)).counts.queued, 4, 'nothing runs while it waits');
    assert.equal(await stack.infra.db('settlements').where({ account_id: first.ID }).first(), undefined);

    const byMaker = await as(admin, 'POST', `/auth/batch-approvals/${id}/approve`);
    assert.deepEqual([byMaker.status, byMaker.body.code], [403, 'maker_cannot_approve']);
    assert.equal((await as(operator, 'POST', `/auth/batch-approvals/${id}/approve`)).status, 403, 'an operator does not approve money');
    assert.equal(
      (await call(stack.apiUrl, 'POST', `/auth/batch-approvals/${id}/approve`, { apiKey: tenant.apiKey })).status,
      401,
      'no API key approves',
    );

    const approved = await as(approver, 'POST', `/auth/batch-approvals/${id}/approve`);
    assert.deepEqual([approved.status, approved.body.status], [202, 'validating'], approved.text);
    assert.equal((await as(approver, 'POST', `/auth/batch-approvals/${id}/approve`)).status, 409, 'approved once');
    const decided = ((await as(approver, 'GET', '/auth/batch-approvals?status=approved')).body.batches as HeldBatch[]).map(
      (held) => held.id,
    );
    assert.ok(decided.includes(id), 'listed among the approved');
    await eventually(async () => (await batch(id)).status === 'completed_with_failures', { what: 'the approved batch ran' });
    const ran = await batch(id);
    assert.deepEqual([ran.counts.success, ran.counts.failed], [3, 1]);
    for (const paid of ran.items.filter((entry) => entry.merchantTxRef !== null))
      assert.equal((await call(stack.sandboxUrl, 'GET', `/sandbox/transfers/${paid.merchantTxRef}`)).body.payouts, 1, 'one transfer each');
    const [oneAfter, twoAfter] = [await balance(first), await balance(second)];
    assert.deepEqual([oneAfter.ledgerBalance, oneAfter.heldBalance, oneAfter.reserved.batch_approval], ['8499.50', '0.00', '0.00']);
    assert.deepEqual([twoAfter.ledgerBalance, twoAfter.heldBalance], ['7500.00', '0.00']);
    const posted = await stack.infra
      .db('ledger_reservation_changes as c')
      .join('ledger_reservations as r', 'r.id', 'c.reservation_id')
      .where({ 'r.kind': 'batch_approval', 'r.account_id': first.ID })
      .pluck('c.outcome');
    assert.deepEqual(posted, ['posted', 'posted'], 'each reservation handed to its settlement debit, none released');

    assert.deepEqual(
      (await eventsOf(tenant.tenantId, id)).map((event) => [event.type, event.data.decidedBy]),
      [
        ['settlement_batch.awaiting_approval', undefined],
        ['settlement_batch.approved', approver.email],
        ['settlement_batch.completed', undefined],
      ],
    );
    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_id: id }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor]),
      [
        ['settlement_batch.created', admin.email],
        ['settlement_batch.approved', approver.email],
      ],
    );
  });

  it('a rejected batch releases exactly what it reserved and pays nothing', async () => {
    const account = await fundedAccount();
    const made = await batchByKey([item(account, '100.00'), item(account, '200.00'), item(account, '300.25')]);
    assert.deepEqual([made.status, made.body.status], [202, 'awaiting_approval'], made.text);
    const id = made.body.id as string;
    assert.equal((await balance(account)).heldBalance, '600.25');

    const rejected = await as(approver, 'POST', `/auth/batch-approvals/${id}/reject`, { note: 'not this week' });
    assert.deepEqual([rejected.status, rejected.body.status], [200, 'rejected'], rejected.text);
    const after = await balance(account);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.batch_approval], ['10000.00', '0.00', '0.00']);
    const view = await batch(id);
    assert.deepEqual([view.counts.failed, view.items.map((entry) => entry.failureReason)], [3, ['rejected', 'rejected', 'rejected']]);
    assert.equal((await as(approver, 'POST', `/auth/batch-approvals/${id}/approve`)).status, 409);
    assert.equal(await stack.infra.db('settlements').where({ account_id: account.ID }).first(), undefined, 'no settlement made');
    assert.deepEqual(
      (await eventsOf(tenant.tenantId, id)).map((event) => [event.type, event.data.decidedBy, event.data.note]),
      [
        ['settlement_batch.awaiting_approval', undefined, undefined],
        ['settlement_batch.rejected', approver.email, 'not this week'],
      ],
    );
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, target_id: id, action: 'settlement_batch.rejected' });
    assert.equal(audit.length, 1);
  });

  it('a held batch cancelled before a decision ends at once, releasing exactly what it reserved', async () => {
    const account = await fundedAccount();
    const made = await batchByKey([item(account, '10.00'), item(account, '20.00'), item(account, '30.00')]);
    assert.equal(made.body.status, 'awaiting_approval', made.text);
    const id = made.body.id as string;
    const cancelled = await call(stack.apiUrl, 'POST', `/v1/settlement-batches/${id}/cancel`, { apiKey: tenant.apiKey });
    assert.deepEqual([cancelled.status, cancelled.body.status], [200, 'cancelled'], cancelled.text);
    assert.deepEqual([(await balance(account)).heldBalance, (await balance(account)).ledgerBalance], ['0.00', '10000.00']);
    assert.equal((await as(approver, 'POST', `/auth/batch-approvals/${id}/approve`)).status, 409, 'nothing left to approve');
    assert.deepEqual(
      (await eventsOf(tenant.tenantId, id)).map((event) => [event.type, event.data.status]),
      [
        ['settlement_batch.awaiting_approval', undefined],
        ['settlement_batch.completed', 'cancelled'],
      ],
    );
  });

  it('a batch one of whose accounts cannot cover its items is refused at once, and nothing waits', async () => {
    const rich = await fundedAccount();
    const poor = await fundedAccount(tenant.apiKey, 100_00n);
    const refused = await batchByKey([item(rich, '100.00'), item(poor, '60.00'), item(poor, '40.01')]);
    assert.deepEqual([refused.status, refused.body.error], [400, 'insufficient funds'], refused.text);
    assert.deepEqual([(await balance(rich)).heldBalance, (await balance(poor)).heldBalance], ['0.00', '0.00']);
    assert.deepEqual(await stack.infra.db('ledger_reservations').whereIn('account_id', [rich.ID, poor.ID]).select('id'), []);
  });

  it('an undecided batch expires and releases exactly what it reserved on the reservation expiry Schedule', async () => {
    const quick = await createTenant(stack, 'Quick Batch Expiry Tenant');
    const quickAdmin = await dashboardUser(stack, quick.tenantId, 'admin');
    const quickApprover = await dashboardUser(stack, quick.tenantId, 'approver');
    const policy = await as(quickAdmin, 'PUT', '/auth/approval-policy', { batchTotalAtOrAbove: '500', expiresAfterSeconds: 1 });
    assert.equal(policy.status, 200, policy.text);
    const account = await fundedAccount(quick.apiKey);
    const made = await batchByKey([item(account, '250.00'), item(account, '250.00')], quick.apiKey);
    assert.equal(made.body.status, 'awaiting_approval', made.text);
    const id = made.body.id as string;
    const held = (await as(quickApprover, 'GET', `/auth/batch-approvals/${id}`)).body as HeldBatch;
    assert.deepEqual([held.reasons, held.total, held.maker], [['total'], '500.00', 'API key']);
    assert.equal((await balance(account, quick.apiKey)).heldBalance, '500.00');
    const expiresAt = new Date(held.expiresAt).getTime();
    await eventually(async () => Date.now() > expiresAt, { what: 'the expiry passed' });
    assert.equal(
      (await as(quickApprover, 'POST', `/auth/batch-approvals/${id}/approve`)).status,
      409,
      'past its expiry nobody approves it',
    );

    await expirySchedule.trigger();
    await eventually(async () => (await batch(id, quick.apiKey)).status === 'expired', { what: 'the batch expired' });
    const after = await balance(account, quick.apiKey);
    assert.deepEqual([after.ledgerBalance, after.heldBalance, after.reserved.batch_approval], ['10000.00', '0.00', '0.00']);
    assert.deepEqual(
      (await eventsOf(quick.tenantId, id)).map((event) => event.type),
      ['settlement_batch.awaiting_approval', 'settlement_batch.expired'],
    );
    const audit = await stack.infra.db('audit_log').where({ tenant_id: quick.tenantId, target_id: id, action: 'settlement_batch.expired' });
    assert.equal(audit.length, 1);
    assert.equal(await stack.infra.db('settlements').where({ account_id: account.ID }).first(), undefined, 'no settlement made');
  });
});
