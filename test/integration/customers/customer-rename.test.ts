import assert from 'node:assert/strict';
import { provisionAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { unavailableNin } from '../../helpers/sandbox-values';

/** The sandbox's identity service verifies this NIN at once (tier 2); the other leaves it for review. */
const VERIFIED_NIN = '12345678901';
const UNAVAILABLE_NIN = unavailableNin('12345678');

describe('renaming a customer after KYC', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const api = (method: string, path: string, body?: unknown) => call(stack.apiUrl, method, path, { apiKey: tenant.apiKey, body });
  const newCustomer = async (name: string) => (await provisionAccount(stack, tenant.apiKey, { name })).CustomerID;
  const renames = (customerId: string) =>
    stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, action: 'customer.renamed', target_id: customerId })
      .select('actor', 'user_id', 'detail');

  it('refuses to rename a customer whose identity KYC verified under its name (tier 2), recording nothing', async () => {
    const id = await newCustomer('Ngozi Eze');
    const kyc = await api('POST', `/v1/customers/${id}/kyc`, { nin: VERIFIED_NIN });
    assert.equal(kyc.body.KYCTier, 2, kyc.text);
    const refused = await api('PATCH', `/v1/customers/${id}`, { name: 'Someone Else' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'kyc_verified_name');
    assert.equal((await api('GET', `/v1/customers/${id}`)).body.Name, 'Ngozi Eze');
    assert.deepEqual(await renames(id), []);
  });

  it('refuses a rename while a KYC submission under the name awaits review', async () => {
    const id = await newCustomer('Tunde Bakare');
    const kyc = await api('POST', `/v1/customers/${id}/kyc`, { nin: UNAVAILABLE_NIN });
    assert.equal(kyc.body.KYCStatus, 'pending_review', kyc.text);
    const refused = await api('PATCH', `/v1/customers/${id}`, { name: 'Someone Else' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'kyc_review_pending');
  });

  it('audits a rename of a tier-1 customer with the old and new names, and records nothing for the same name', async () => {
    const id = await newCustomer('Ada Obi');
    assert.equal((await api('PATCH', `/v1/customers/${id}`, { name: 'Ada Obi-Nwosu' })).status, 200);
    assert.equal((await api('PATCH', `/v1/customers/${id}`, { name: 'Ada Obi-Nwosu' })).status, 200);
    assert.deepEqual(await renames(id), [
      { actor: 'API key', user_id: null, detail: { from: 'Ada Obi', to: 'Ada Obi-Nwosu', kycTier: 1 } },
    ]);
  });
});
