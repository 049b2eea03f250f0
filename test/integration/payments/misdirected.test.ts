import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../../src/ids';
import { createInboundEventsRepo } from '../../../src/payment-ingest/inbound-events.repo';
import { provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

interface MisdirectedView {
  ID: string;
  TransactionID: string;
  AssignedAccountRef: string | null;
  AssignedEntryID: string | null;
  AssignedAt: string | null;
  [field: string]: unknown;
}

describe('misdirected payments', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let operator: string;
  let account: ProvisionedAccount;
  let other: TestTenant;
  let otherOperator: string;
  let otherAccount: ProvisionedAccount;

  before(async () => {
    stack = await startStack({ CONFIRMATION_POLL_INTERVAL: '500ms' }, { worker: true });
    tenant = await createTenant(stack);
    other = await createTenant(stack);
    operator = await dashboardSession(stack, tenant.tenantId);
    otherOperator = await dashboardSession(stack, other.tenantId);
    account = await provisionAccount(stack, tenant.apiKey);
    otherAccount = await provisionAccount(stack, other.apiKey);
  });
  after(() => stack.close());

  async function mistypedRef(tenantId: string): Promise<string> {
    const { ref_prefix: prefix } = await stack.infra.db('tenants').where({ id: tenantId }).first('ref_prefix');
    return `va_${prefix}_zzzzzzzzzzzz`;
  }

  /** A payer sends to a reference that carries the tenant's prefix but names no account. */
  async function misdirect(tenantId: string, body: Record<string, unknown> = {}): Promise<{ transactionId: string; requestId: string }> {
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: await mistypedRef(tenantId), amount: 5025, ...body },
    });
    assert.equal(sent.body.delivery.status, 200);
    return { transactionId: sent.body.transactionId, requestId: sent.body.requestId };
  }

  async function listed(cookie: string, transactionId: string): Promise<MisdirectedView | undefined> {
    const page = await call(stack.apiUrl, 'GET', '/auth/misdirected-payments', { cookie });
    assert.equal(page.status, 200);
    return page.body.misdirectedPayments.find((payment: MisdirectedView) => payment.TransactionID === transactionId);
  }

  const assign = (id: string, accountRef: unknown, cookie = operator) =>
    call(stack.apiUrl, 'POST', `/auth/misdirected-payments/${encodeURIComponent(id)}/assign`, { cookie, body: { accountRef } });

  it('lists the signed payments that matched no account to the operator of the tenant they are attributed to, with sender and amount', async () => {
    const sent = await misdirect(tenant.tenantId, { senderName: 'EMEKA NWOSU', narration: 'rent march' });
    const payment = await listed(operator, sent.transactionId);
    assert.ok(payment);
    const { ID, ReceivedAt, ...rest } = payment;
    assert.match(ID, /^[0-9a-f-]{36}$/);
    assert.ok(!Number.isNaN(Date.parse(String(ReceivedAt))));
    assert.deepEqual(rest, {
      RequestID: sent.requestId,
      AliasAccountRef: await mistypedRef(tenant.tenantId),
      TransactionID: sent.transactionId,
      SenderName: 'EMEKA NWOSU',
      Narration: 'rent march',
      GrossAmount: '5025.00',
      Fee: '25.00',
      AssignedAccountRef: null,
      AssignedEntryID: null,
      AssignedAt: null,
    });
    assert.equal(await listed(otherOperator, sent.transactionId), undefined);
  });

  it('assigns one to an account of the tenant once: the net provisional credit, audited, then confirmed against the provider', async () => {
    const sent = await misdirect(tenant.tenantId);
    const payment = (await listed(operator, sent.transactionId))!;
    const response = await assign(payment.ID, account.AccountRef);
    assert.equal(response.status, 201);
    assert.equal(response.body.ID, payment.ID);
    assert.equal(response.body.AccountRef, account.AccountRef);

    const page = await statement(stack, tenant.apiKey, account.AccountRef);
    const line = page.body.lines.find((candidate: { entry: { ID: string } }) => candidate.entry.ID === response.body.EntryID);
    assert.deepEqual(
      [line.entry.Direction, line.entry.Amount, line.entry.Fee, line.entry.ProviderTxnRef, line.entry.Kind],
      ['credit', '5000.00', '25.00', sent.transactionId, 'payment'],
    );

    const after = (await listed(operator, sent.transactionId))!;
    assert.equal(after.AssignedAccountRef, account.AccountRef);
    assert.equal(after.AssignedEntryID, response.body.EntryID);
    assert.ok(after.AssignedAt);
    const { id: userId } = (await stack.services.auth.authenticator.userForSession(operator.replace(/^session=/, '')))!;
    const audited = await stack.infra
      .db('inbound_events')
      .where({ id: payment.ID })
      .first('assigned_by', 'assigned_account_id', 'category');
    assert.deepEqual(audited, { assigned_by: userId, assigned_account_id: account.ID, category: 'misdirected' });

    const again = await assign(payment.ID, account.AccountRef);
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'misdirected payment already assigned');

    await eventually(
      async () => {
        const lines = (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines as Array<{
          entry: { ID: string; Status: string };
        }>;
        return lines.find((candidate) => candidate.entry.ID === response.body.EntryID)?.entry.Status === 'confirmed';
      },
      { what: 'confirmation of the assigned payment' },
    );
  });

  it('an assigned payment the provider failed is reversed, and payment.reversed names the account credited, not the reference it arrived under', async () => {
    const sent = await misdirect(tenant.tenantId, { status: 'PAYMENT_FAILED' });
    const payment = (await listed(operator, sent.transactionId))!;
    const response = await assign(payment.ID, account.AccountRef);
    assert.equal(response.status, 201, response.text);
    const { transaction_group_id: group } = await stack.infra
      .db('ledger_entries')
      .where({ id: response.body.EntryID })
      .first('transaction_group_id');
    const reversed = await eventually<{ data: Record<string, unknown> }>(
      () => stack.infra.db('tenant_events').where({ subject: group, type: 'payment.reversed' }).first('data'),
      {
        what: 'the reversal of the assigned payment',
      },
    );
    assert.deepEqual(
      [reversed.data.accountRef, reversed.data.amount, reversed.data.reason],
      [account.AccountRef, '5000.00', 'provider reports PAYMENT_FAILED'],
    );
  });

  it('credits one of two concurrent assignments', async () => {
    const sent = await misdirect(tenant.tenantId);
    const payment = (await listed(operator, sent.transactionId))!;
    const responses = await Promise.all([assign(payment.ID, account.AccountRef), assign(payment.ID, account.AccountRef)]);
    assert.deepEqual(responses.map((response) => response.status).sort(), [201, 409]);
    const lines = (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines as Array<{ entry: { ProviderTxnRef: string } }>;
    assert.equal(lines.filter((line) => line.entry.ProviderTxnRef === sent.transactionId).length, 1);
  });

  it("answers 404 for another tenant's payment or account, an unknown or malformed id, and 400 without an accountRef", async () => {
    const sent = await misdirect(tenant.tenantId);
    const payment = (await listed(operator, sent.transactionId))!;
    const cases: Array<[string, unknown, string, string]> = [
      [payment.ID, otherAccount.AccountRef, otherOperator, 'misdirected payment not found'],
      [payment.ID, otherAccount.AccountRef, operator, 'account not found'],
      [payment.ID, 'va_nobody_000000000000', operator, 'account not found'],
      [randomUUID(), account.AccountRef, operator, 'misdirected payment not found'],
      ['not-a-uuid', account.AccountRef, operator, 'misdirected payment not found'],
    ];
    for (const [id, accountRef, cookie, error] of cases) {
      const response = await assign(id, accountRef, cookie);
      assert.equal(response.status, 404, `${id} ${String(accountRef)}`);
      assert.equal(response.body.error, error);
    }
    for (const accountRef of [undefined, '', 42]) {
      const response = await assign(payment.ID, accountRef);
      assert.equal(response.status, 400, String(accountRef));
      assert.match(response.body.error, /^accountRef /);
    }
    assert.equal((await listed(operator, sent.transactionId))!.AssignedAt, null);
  });

  it('refuses to credit a provider transaction already on the ledger (409)', async () => {
    const sent = await misdirect(tenant.tenantId);
    const first = (await listed(operator, sent.transactionId))!;
    assert.equal((await assign(first.ID, account.AccountRef)).status, 201);
    // The provider retried the same transaction under a new request id: a second misdirected event.
    const duplicate = uuidv7();
    await createInboundEventsRepo(stack.infra.db).record({
      id: duplicate,
      requestId: randomUUID(),
      eventType: 'payment_success',
      category: 'misdirected',
      signatureValid: true,
      tenantId: tenant.tenantId,
      transactionId: sent.transactionId,
      grossAmount: 502_500n,
      fee: 2_500n,
    });
    const response = await assign(duplicate, account.AccountRef);
    assert.equal(response.status, 409);
    assert.equal(response.body.error, 'transaction already credited');
    assert.equal((await stack.infra.db('inbound_events').where({ id: duplicate }).first('assigned_at')).assigned_at, null);
  });

  it('refuses an event without a creditable amount (409)', async () => {
    const id = uuidv7();
    await createInboundEventsRepo(stack.infra.db).record({
      id,
      requestId: randomUUID(),
      eventType: 'payment_success',
      category: 'misdirected',
      signatureValid: true,
      tenantId: tenant.tenantId,
      transactionId: `txn-${randomUUID()}`,
      grossAmount: null,
      fee: null,
    });
    const response = await assign(id, account.AccountRef);
    assert.equal(response.status, 409);
    assert.equal(response.body.error, 'misdirected payment has no creditable amount or transaction id');
  });

  it('pages newest first with `after`', async () => {
    const fresh = await createTenant(stack);
    const freshOperator = await dashboardSession(stack, fresh.tenantId);
    const ids: string[] = [];
    for (let index = 0; index < 52; index += 1) {
      const id = uuidv7();
      ids.push(id);
      await createInboundEventsRepo(stack.infra.db).record({
        id,
        requestId: randomUUID(),
        eventType: 'payment_success',
        category: 'misdirected',
        signatureValid: true,
        tenantId: fresh.tenantId,
        transactionId: `txn-${index}`,
        grossAmount: 100_000n,
        fee: 1_000n,
      });
    }
    const newestFirst = [...ids].sort().reverse();
    const first = await call(stack.apiUrl, 'GET', '/auth/misdirected-payments', { cookie: freshOperator });
    assert.deepEqual(first.body.pagination, { limit: 50, nextCursor: newestFirst[49], hasMore: true });
    const second = await call(stack.apiUrl, 'GET', `/auth/misdirected-payments?after=${first.body.pagination.nextCursor}`, {
      cookie: freshOperator,
    });
    assert.deepEqual(second.body.pagination, { limit: 50, nextCursor: null, hasMore: false });
    assert.deepEqual(
      [...first.body.misdirectedPayments, ...second.body.misdirectedPayments].map((payment: MisdirectedView) => payment.ID),
      newestFirst,
    );
    assert.equal((await call(stack.apiUrl, 'GET', '/auth/misdirected-payments?after=bad', { cookie: freshOperator })).status, 400);
  });

  it('refuses API keys (and no credentials) with 401', async () => {
    const sent = await misdirect(tenant.tenantId);
    const payment = (await listed(operator, sent.transactionId))!;
    for (const credentials of [{ apiKey: tenant.apiKey }, {}]) {
      assert.equal((await call(stack.apiUrl, 'GET', '/auth/misdirected-payments', credentials)).status, 401);
      assert.equal(
        (
          await call(stack.apiUrl, 'POST', `/auth/misdirected-payments/${payment.ID}/assign`, {
            ...credentials,
            body: { accountRef: account.AccountRef },
          })
        ).status,
        401,
      );
    }
    assert.equal((await listed(operator, sent.transactionId))!.AssignedAt, null);
  });
});
