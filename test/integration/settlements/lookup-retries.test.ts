import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { fundAccount, provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { parsePrometheusText, total } from '../../helpers/prometheus';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** A destination no other test names, whose ending picks no sandbox outcome: it pays at the first status check. */
const freshAccountNumber = (): string => `${String(randomInt(100_000, 1_000_000))}0001`;

/** How long this stack asks a lookup again (PROVIDER_LOOKUP_RETRY_BUDGET). */
const BUDGET_SECONDS = 5;

describe("a request's own provider lookups through a throttling or failing provider", () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack({ PROVIDER_LOOKUP_RETRY_BUDGET: `${BUDGET_SECONDS}s` }, { worker: true });
    tenant = await createTenant(stack);
  });
  afterEach(() => call(stack.sandboxUrl, 'DELETE', '/sandbox/profiles'));
  after(() => stack.close());

  /** The provider's name lookups of `accountNumber` fail so for `durationMs` from the first one. */
  const outageOfLookups = (accountNumber: string, outage: { answer: '429' | '503'; durationMs: number; retryAfterSeconds: number }) =>
    call(stack.sandboxUrl, 'POST', '/sandbox/profiles', { body: { match: { accountNumber }, outage } });
  /** Name lookups the provider answered with `status` (as the provider client counts them). */
  const unansweredLookups = async (status: number) =>
    total(parsePrometheusText(await stack.infra.metrics.registry.metrics()), 'nuban_provider_request_errors_total', {
      endpoint: 'lookupAccount',
      reason: `http_${status}`,
    });

  async function fundedAccount(): Promise<ProvisionedAccount> {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    return account;
  }

  /** A saved beneficiary whose name check is older than BENEFICIARY_NAME_MAX_AGE: a settle to it asks the bank again. */
  async function staleBeneficiary(): Promise<{ id: string; accountNumber: string; accountName: string }> {
    const saved = await call(stack.apiUrl, 'POST', '/v1/beneficiaries', {
      apiKey: tenant.apiKey,
      body: { bankCode: '058', accountNumber: freshAccountNumber() },
    });
    assert.equal(saved.status, 201, saved.text);
    await stack.infra
      .db('beneficiaries')
      .where({ id: saved.body.id })
      .update({ name_checked_at: stack.infra.db.raw("now() - interval '25 hours'") });
    return saved.body;
  }

  const settle = (account: ProvisionedAccount, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey: tenant.apiKey, body, headers });

  it("a settle whose name lookup is throttled asks again after the provider's Retry-After, and pays", async () => {
    const account = await fundedAccount();
    const beneficiary = await staleBeneficiary();
    await outageOfLookups(beneficiary.accountNumber, { answer: '429', durationMs: 1_000, retryAfterSeconds: 1 });
    const throttledBefore = await unansweredLookups(429);

    const settled = await settle(account, { amount: '10.00', beneficiaryId: beneficiary.id });
    assert.equal(settled.status, 202, settled.text);
    assert.ok((await unansweredLookups(429)) > throttledBefore, 'the first lookup was throttled');
    const row = await stack.infra.db('settlements').where({ merchant_tx_ref: settled.body.merchantTxRef }).first();
    assert.equal(row.account_name, beneficiary.accountName);
    await eventually(
      async () =>
        (await call(stack.apiUrl, 'GET', `/v1/transfers/${settled.body.merchantTxRef}`, { apiKey: tenant.apiKey })).body.status ===
        'success',
      { what: 'the settlement paid' },
    );
  });

  it('a name lookup (POST /v1/transfers/lookup) rides out failed calls (503s) and answers the name', async () => {
    const accountNumber = freshAccountNumber();
    await outageOfLookups(accountNumber, { answer: '503', durationMs: 1_000, retryAfterSeconds: 0 });
    const failedBefore = await unansweredLookups(503);
    const found = await call(stack.apiUrl, 'POST', '/v1/transfers/lookup', {
      apiKey: tenant.apiKey,
      body: { bankCode: '058', accountNumber },
    });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.AccountNumber, accountNumber);
    assert.ok((await unansweredLookups(503)) > failedBefore, 'a lookup failed first');
  });

  it('answers 503 with Retry-After when the lookups keep failing through the budget, writing nothing', async () => {
    const account = await fundedAccount();
    const beneficiary = await staleBeneficiary();
    const checkedBefore = (await stack.infra.db('beneficiaries').where({ id: beneficiary.id }).first()).name_checked_at;
    await outageOfLookups(beneficiary.accountNumber, { answer: '503', durationMs: 10 * 60_000, retryAfterSeconds: 0 });
    const failedBefore = await unansweredLookups(503);

    const key = randomUUID();
    const refused = await settle(account, { amount: '10.00', beneficiaryId: beneficiary.id }, { 'Idempotency-Key': key });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, 'provider_unavailable');
    assert.equal(refused.body.error, `provider unavailable: try again in ${BUDGET_SECONDS} s`);
    // The provider sent no Retry-After: the client is told to come back after the budget.
    assert.equal(refused.headers.get('retry-after'), String(BUDGET_SECONDS));
    assert.ok((await unansweredLookups(503)) - failedBefore >= 2, 'the lookup was asked again before giving up');

    assert.equal(Number((await stack.infra.db('settlements').where({ account_id: account.ID }).count('* as count'))[0]!.count), 0);
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.equal(balance.body.ledgerBalance, '1000.00');
    assert.equal((await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.length, 1, 'only the funding credit');
    assert.equal(
      await stack.infra.db('idempotency_keys').where({ tenant_id: tenant.tenantId, key }).first(),
      undefined,
      'the key stays unclaimed',
    );
    const after = await stack.infra.db('beneficiaries').where({ id: beneficiary.id }).first();
    assert.equal(after.name_checked_at.getTime(), checkedBefore.getTime(), 'the name check is not renewed');
  });
});
