import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { provisionAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** The sandbox's identity service verifies this NIN. */
const VERIFIED_NIN = '12345678901';

describe('KYC and the customer’s name', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const api = (method: string, path: string, body?: unknown) => call(stack.apiUrl, method, path, { apiKey: tenant.apiKey, body });
  const submissions = (customerId: string) =>
    stack.infra.db('customer_audit').where({ customer_id: customerId, action: 'kyc_submitted' }).select('detail');

  it('commits a submission only under the name sent to the verifier: a rename meanwhile leaves nothing recorded, and a new submission verifies the new name', async () => {
    const customerId = (await provisionAccount(stack, tenant.apiKey, { name: 'Ada Obi' })).CustomerID;
    // The verifier answers slowly enough for a rename to land while it is asked.
    await call(stack.sandboxUrl, 'POST', '/sandbox/faults', { body: { latencyMs: 1500, routes: ['/identity/nin'] } });
    try {
      const submitting = api('POST', `/v1/customers/${customerId}/kyc`, { nin: VERIFIED_NIN });
      await sleep(300);
      const renamed = await api('PATCH', `/v1/customers/${customerId}`, { name: 'Chioma Eze' });
      assert.equal(renamed.status, 200, renamed.text);
      const refused = await submitting;
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.code, 'kyc_name_changed');
      assert.ok(refused.body.error.includes('"Ada Obi"') && refused.body.error.includes('"Chioma Eze"'), refused.body.error);
    } finally {
      await call(stack.sandboxUrl, 'DELETE', '/sandbox/faults');
    }
    const unchanged = await api('GET', `/v1/customers/${customerId}`);
    assert.deepEqual(
      [unchanged.body.Name, unchanged.body.KYCTier, unchanged.body.KYCStatus, unchanged.body.NINLast4],
      ['Chioma Eze', 1, 'none', null],
    );
    assert.deepEqual(await submissions(customerId), []);

    const verified = await api('POST', `/v1/customers/${customerId}/kyc`, { nin: VERIFIED_NIN });
    assert.deepEqual([verified.status, verified.body.KYCTier, verified.body.KYCStatus], [200, 2, 'approved']);
    assert.deepEqual(
      (await submissions(customerId)).map((row) => [row.detail.outcome, row.detail.name]),
      [['verified', 'Chioma Eze']],
    );
  });

  it('registers a new account of a customer at tier 2 or above at the provider under the verified name, whatever name the request gives', async () => {
    const externalRef = `kyc-name-${randomUUID()}`;
    const first = await provisionAccount(stack, tenant.apiKey, { externalRef, name: 'Ngozi Eze' });
    assert.equal((await api('POST', `/v1/customers/${first.CustomerID}/kyc`, { nin: VERIFIED_NIN })).body.KYCTier, 2);

    const second = await provisionAccount(stack, tenant.apiKey, { externalRef, name: 'Someone Else' });
    assert.equal(second.CustomerID, first.CustomerID);
    assert.equal(second.BankAccountName, 'Ngozi Eze');
    assert.equal(stack.sandbox.state.accounts.get(second.AccountRef)?.accountName, 'Ngozi Eze');
    assert.equal((await api('GET', `/v1/customers/${first.CustomerID}`)).body.Name, 'Ngozi Eze');
  });

  it('registers a new account of a tier-1 customer under the name the request gives', async () => {
    const externalRef = `kyc-name-${randomUUID()}`;
    await provisionAccount(stack, tenant.apiKey, { externalRef, name: 'Tunde Bakare' });
    const second = await provisionAccount(stack, tenant.apiKey, { externalRef, name: 'Tunde Bakare Ventures' });
    assert.equal(second.BankAccountName, 'Tunde Bakare Ventures');
    assert.equal(stack.sandbox.state.accounts.get(second.AccountRef)?.accountName, 'Tunde Bakare Ventures');
  });
});
