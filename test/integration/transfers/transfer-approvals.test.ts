import type { ScheduleHandle } from '@temporalio/client';
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { balanceSweepScheduleId } from '../../../src/contracts/balance-sweep.contract';
import { approvalUsers, asUser, fundedAccount as fundedAccountOf, pausedExpirySchedule } from '../../helpers/approvals';
import type { ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser, type DashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/**
 * The approval policy's transfers above an amount and its balance sweeps: under `transferAbove` a transfer strictly
 * above it waits, its amount reserved on the sending account, until a user other than its maker approves it (it moves
 * then, once), rejects it, or it expires; under `sweeps` each payout a sweep makes waits as a held payout. Expiry runs on
 * the reservation expiry Schedule, made here and run by hand.
 */
describe('transfer and sweep approvals', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let admin: DashboardUser;
  let operator: DashboardUser;
  let approver: DashboardUser;
  let expirySchedule: ScheduleHandle;
  const sweepSchedules: string[] = [];

  before(async () => {
    stack = await startStack({}, { worker: true });
    tenant = await createTenant(stack, 'Transfer Approvals Tenant');
    ({ admin, operator, approver } = await approvalUsers(stack, tenant.tenantId, { transferAbove: '1000' }));
    expirySchedule = await pausedExpirySchedule(stack);
  });
  after(async () => {
    await expirySchedule?.delete();
    for (const id of sweepSchedules)
      await stack.infra.temporal.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    await stack.close();
  });

  const as = (user: DashboardUser, method: string, path: string, body?: unknown) => asUser(stack, user, method, path, body);
  const fundedAccount = (apiKey = tenant.apiKey) => fundedAccountOf(stack, apiKey);

  const balance = async (account: ProvisionedAccount, apiKey = tenant.apiKey) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey })).body as {
      ledgerBalance: string;
      heldBalance: string;
      reserved: Record<string, string>;
    };

  const transferByKey = (
    from: ProvisionedAccount,
    to: ProvisionedAccount,
    amount: string,
    options: { key?: string; apiKey?: string } = {},
  ) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${from.AccountRef}/transfers`, {
      apiKey: options.apiKey ?? tenant.apiKey,
      body: { toAccountRef: to.AccountRef, amount, narration: 'rent' },
      headers: { 'Idempotency-Key': options.key ?? randomUUID() },
    });

  const transferOf = async (id: string, apiKey = tenant.apiKey) =>
    (await call(stack.apiUrl, 'GET', `/v1/transfers/internal/${id}`, { apiKey })).body as { status: string };

  const eventsOf = async (tenantId: string, subject: string) =>
    (await stack.infra.db('tenant_events').where({ tenant_id: tenantId, subject }).orderBy('sequence').select('type', 'data')) as Array<{
      type: string;
      data: Record<string, unknown>;
    }>;

  it('a transfer above the amount awaits approval with its amount reserved on the sending account; one of exactly the amount moves at once', async () => {
    const policy = await as(approver, 'GET', '/auth/approval-policy');
    assert.deepEqual([policy.body.transferAbove, policy.body.sweeps, policy.body.payoutAtOrAbove], ['1000.00', false, null]);
    const from = await fundedAccount();
    const to = await fundedAccount();
    const atAmount = await transferByKey(from, to, '1000.00');
    assert.deepEqual([atAmount.status, atAmount.body.status], [201, 'completed'], atAmount.text);

    const key = randomUUID();
    const held = await transferByKey(from, to, '1000.01', { key });
    assert.deepEqual([held.status, held.body.status, held.body.amount], [202, 'awaiting_approval', '1000.01'], held.text);
    const sending = await balance(from);
    assert.deepEqual(
      [sending.ledgerBalance, sending.heldBalance, sending.reserved.transfer_approval],
      ['9000.00', '1000.01', '1000.01'],
      'reserved, nothing posted',
    );
    assert.equal((await balance(to)).ledgerBalance, '11000.00', 'nothing credited yet');
    assert.equal((await transferOf(held.body.id)).status, 'awaiting_approval');
    const overSpendable = await transferByKey(from, to, '8000.00');
    assert.deepEqual([overSpendable.status, overSpendable.body.error], [400, 'insufficient funds'], 'what can be spent is 1,000.01 less');

    const again = await transferByKey(from, to, '1000.01', { key });
    assert.deepEqual([again.status, again.body], [202, held.body], 'a retry under the key answers the waiting transfer');
    assert.equal((await balance(from)).heldBalance, '1000.01', 'reserving nothing more');
    assert.deepEqual(
      (await eventsOf(tenant.tenantId, held.body.id)).map((event) => [event.type, event.data.amount]),
      [['transfer.awaiting_approval', '1000.01']],
    );
  });

  it('the maker cannot approve a held transfer; another user approves it and it moves once, spending its reservation', async () => {
    const from = await fundedAccount();
    const to = await fundedAccount();
    const made = await call(stack.apiUrl, 'POST', `/auth/accounts/${from.AccountRef}/transfers`, {
      cookie: admin.cookie,
      body: { toAccountRef: to.AccountRef, amount: '3000.00' },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    assert.deepEqual([made.status, made.body.status], [202, 'awaiting_approval'], made.text);
    const id = made.body.id as string;
    const listed = (await as(approver, 'GET', '/auth/transfer-approvals')).body.transfers as Array<{ id: string; maker: string }>;
    assert.equal(listed.find((transfer) => transfer.id === id)?.maker, admin.email);

    const byMaker = await as(admin, 'POST', `/auth/transfer-approvals/${id}/approve`);
    assert.deepEqual([byMaker.status, byMaker.body.code], [403, 'maker_cannot_approve'], byMaker.text);
    assert.equal((await as(operator, 'POST', `/auth/transfer-approvals/${id}/approve`)).status, 403, 'an operator does not approve');
    assert.equal(
      (await call(stack.apiUrl, 'POST', `/auth/transfer-approvals/${id}/approve`, { apiKey: tenant.apiKey })).status,
      401,
      'no API key approves',
    );
    assert.equal((await transferOf(id)).status, 'awaiting_approval', 'nothing decided');

    const approved = await as(approver, 'POST', `/auth/transfer-approvals/${id}/approve`);
    assert.deepEqual([approved.status, approved.body.status, approved.body.id], [201, 'completed', id], approved.text);
    assert.equal((await as(approver, 'POST', `/auth/transfer-approvals/${id}/approve`)).status, 409, 'approved once');
    const sending = await balance(from);
    assert.deepEqual([sending.ledgerBalance, sending.heldBalance, sending.reserved.transfer_approval], ['7000.00', '0.00', '0.00']);
    assert.equal((await balance(to)).ledgerBalance, '13000.00');
    assert.equal((await transferOf(id)).status, 'completed');
    assert.equal((await stack.infra.db('internal_transfers').where({ id }).count<{ count: string }[]>())[0]!.count, '1');
    assert.deepEqual(
      (await eventsOf(tenant.tenantId, id)).map((event) => event.type),
      ['transfer.awaiting_approval', 'transfer.approved', 'transfer.completed'],
    );
    const audit = await stack.infra.db('audit_log').where({ tenant_id: tenant.tenantId, target_id: id }).orderBy('id');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor]),
      [
        ['transfer.initiated', admin.email],
        ['transfer.approved', approver.email],
      ],
    );
  });

  it('a rejected transfer releases exactly its amount and moves nothing', async () => {
    const from = await fundedAccount();
    const to = await fundedAccount();
    const held = await transferByKey(from, to, '2500.00');
    assert.equal(held.body.status, 'awaiting_approval', held.text);
    const id = held.body.id as string;
    const rejected = await as(approver, 'POST', `/auth/transfer-approvals/${id}/reject`, { note: 'not this month' });
    assert.deepEqual([rejected.status, rejected.body.status], [200, 'rejected'], rejected.text);
    const sending = await balance(from);
    assert.deepEqual([sending.ledgerBalance, sending.heldBalance, sending.reserved.transfer_approval], ['10000.00', '0.00', '0.00']);
    assert.equal((await balance(to)).ledgerBalance, '10000.00');
    assert.equal((await transferOf(id)).status, 'rejected');
    assert.equal((await as(approver, 'POST', `/auth/transfer-approvals/${id}/approve`)).status, 409);
    assert.deepEqual(
      (await eventsOf(tenant.tenantId, id)).map((event) => [event.type, event.data.note]),
      [
        ['transfer.awaiting_approval', undefined],
        ['transfer.rejected', 'not this month'],
      ],
    );
    assert.equal(await stack.infra.db('internal_transfers').where({ id }).first(), undefined, 'no transfer made');
  });

  it('an unapproved transfer expires and releases exactly its amount on the reservation expiry Schedule', async () => {
    const quick = await createTenant(stack, 'Quick Transfer Expiry Tenant');
    const quickAdmin = await dashboardUser(stack, quick.tenantId, 'admin');
    const quickApprover = await dashboardUser(stack, quick.tenantId, 'approver');
    assert.equal((await as(quickAdmin, 'PUT', '/auth/approval-policy', { transferAbove: '1000', expiresAfterSeconds: 1 })).status, 200);
    const from = await fundedAccount(quick.apiKey);
    const to = await fundedAccount(quick.apiKey);
    const held = await transferByKey(from, to, '4000.00', { apiKey: quick.apiKey });
    assert.equal(held.body.status, 'awaiting_approval', held.text);
    const id = held.body.id as string;
    const expiresAt = new Date((await as(quickApprover, 'GET', `/auth/transfer-approvals/${id}`)).body.expiresAt).getTime();
    await eventually(async () => Date.now() > expiresAt, { what: 'the expiry passed' });
    assert.equal(
      (await as(quickApprover, 'POST', `/auth/transfer-approvals/${id}/approve`)).status,
      409,
      'past its expiry nobody approves it',
    );

    await expirySchedule.trigger();
    await eventually(async () => (await transferOf(id, quick.apiKey)).status === 'expired', { what: 'the transfer expired' });
    const sending = await balance(from, quick.apiKey);
    assert.deepEqual([sending.ledgerBalance, sending.heldBalance, sending.reserved.transfer_approval], ['10000.00', '0.00', '0.00']);
    assert.deepEqual(
      (await eventsOf(quick.tenantId, id)).map((event) => event.type),
      ['transfer.awaiting_approval', 'transfer.expired'],
    );
    const audit = await stack.infra.db('audit_log').where({ tenant_id: quick.tenantId, target_id: id, action: 'transfer.expired' });
    assert.equal(audit.length, 1);
  });

  it("under sweeps: true a sweep's payout awaits approval, the next period leaves the reserved money alone, and an approver pays it", async () => {
    const sweeping = await createTenant(stack, 'Sweep Approvals Tenant');
    const sweepAdmin = await dashboardUser(stack, sweeping.tenantId, 'admin');
    const sweepApprover = await dashboardUser(stack, sweeping.tenantId, 'approver');
    assert.equal((await as(sweepAdmin, 'PUT', '/auth/approval-policy', { sweeps: true })).status, 200);
    const account = await fundedAccount(sweeping.apiKey);
    sweepSchedules.push(balanceSweepScheduleId(account.ID));
    const beneficiary = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey: sweeping.apiKey,
      body: { bankCode: '058', accountNumber: `21${String(randomInt(100_000, 1_000_000))}01` },
    });
    assert.equal(beneficiary.status, 201, beneficiary.text);
    const set = await call(stack.apiUrl, 'PUT', `/v1/accounts/${account.AccountRef}/sweep`, {
      apiKey: sweeping.apiKey,
      body: { beneficiaryId: beneficiary.body.id, schedule: { dailyAt: '18:30' }, keep: '1000' },
    });
    assert.equal(set.status, 200, set.text);
    const run = (scheduledAtMs: number) =>
      stack.services.balanceSweeps.run({ tenantId: sweeping.tenantId, accountId: account.ID, scheduledAtMs });

    const first = await run(Date.now());
    assert.ok(first.outcome === 'settled', JSON.stringify(first));
    assert.equal(first.amount, '9000.00');
    const ref = first.merchantTxRef!;
    const payout = await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: sweeping.apiKey });
    assert.equal(payout.body.status, 'awaiting_approval', payout.text);
    const held = await as(sweepApprover, 'GET', `/auth/approvals/${ref}`);
    assert.deepEqual([held.body.reasons, held.body.maker], [['balance_sweep'], 'balance sweep'], held.text);
    const reserved = await balance(account, sweeping.apiKey);
    assert.deepEqual([reserved.ledgerBalance, reserved.heldBalance, reserved.reserved.payout_approval], ['10000.00', '9000.00', '9000.00']);

    const next = await run(Date.now() + 24 * 60 * 60 * 1000);
    assert.equal(next.outcome, 'nothing_to_move', 'the reserved money is not swept again');
    assert.equal((await balance(account, sweeping.apiKey)).heldBalance, '9000.00');

    const approved = await as(sweepApprover, 'POST', `/auth/approvals/${ref}/approve`);
    assert.deepEqual([approved.status, approved.body.status], [202, 'pending'], approved.text);
    await eventually(
      async () => (await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: sweeping.apiKey })).body.status === 'success',
      { what: "the sweep's payout paid" },
    );
    const after = await balance(account, sweeping.apiKey);
    assert.deepEqual([after.ledgerBalance, after.heldBalance], ['1000.00', '0.00']);
  });
});
