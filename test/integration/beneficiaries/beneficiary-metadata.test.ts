import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { call } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** A destination no other test names. */
const freshAccountNumber = (): string => `${String(randomInt(100_000, 1_000_000))}0001`;

interface Beneficiary {
  id: string;
  accountNumber: string;
  nickname: string | null;
  metadata?: Record<string, string>;
  error?: string;
}

/** A list's query string with a metadata filter, as a client writes it: metadata[key]=value, brackets escaped. */
const filter = (pairs: Record<string, string>) =>
  '?' + new URLSearchParams(Object.entries(pairs).map(([key, value]): [string, string] => [`metadata[${key}]`, value])).toString();

/**
 * Metadata on saved beneficiaries: set when saved (replaced by a save of the same destination that gives it), changed with
 * PATCH (merged, a null deleting its key, bounded as on create, audited), answered on every read, filterable on the list
 * (the tenant's own only), and refused with a 400 when out of bounds.
 */
describe('metadata on beneficiaries', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let other: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    other = await createTenant(stack, 'Other');
  });
  after(() => stack.close());

  const save = (body: Record<string, unknown>, apiKey = tenant.apiKey) =>
    call<Beneficiary>(stack.apiUrl, 'POST', '/v1/beneficiaries', { apiKey, body });
  const get = (path: string, apiKey = tenant.apiKey) => call(stack.apiUrl, 'GET', path, { apiKey });
  const patch = (id: string, body: unknown, apiKey = tenant.apiKey) =>
    call<Beneficiary>(stack.apiUrl, 'PATCH', `/v1/beneficiaries/${id}`, { apiKey, body });

  const idsOf = async (query: string, apiKey = tenant.apiKey) => {
    const listed = await get(`/v1/beneficiaries${query}`, apiKey);
    assert.equal(listed.status, 200, listed.text);
    return (listed.body.beneficiaries as Beneficiary[]).map((saved) => saved.id);
  };

  it('keeps the metadata given when saved: on the answer, GET, the list and its filter (this tenant only)', async () => {
    const vendor = `V-${randomInt(1_000_000)}`;
    const accountNumber = freshAccountNumber();
    const created = await save({ bankCode: '058', accountNumber, metadata: { vendor, kind: 'supplier' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.metadata, { vendor, kind: 'supplier' });
    assert.deepEqual((await get(`/v1/beneficiaries/${created.body.id}`)).body.metadata, { vendor, kind: 'supplier' });
    const taggedToo = await save({ bankCode: '044', accountNumber: freshAccountNumber(), metadata: { vendor, kind: 'landlord' } });
    const untagged = await save({ bankCode: '044', accountNumber: freshAccountNumber() });
    assert.equal('metadata' in untagged.body, false);
    const elsewhere = await save(
      { bankCode: '058', accountNumber: freshAccountNumber(), metadata: { vendor, kind: 'supplier' } },
      other.apiKey,
    );
    assert.equal(elsewhere.status, 201, elsewhere.text);

    assert.deepEqual(await idsOf(filter({ vendor })), [created.body.id, taggedToo.body.id]);
    assert.deepEqual(await idsOf(filter({ vendor, kind: 'supplier' })), [created.body.id]);
    assert.deepEqual(await idsOf(filter({ vendor }), other.apiKey), [elsewhere.body.id]);
    assert.deepEqual(await idsOf(filter({ vendor: 'nobody' })), []);
    assert.ok((await idsOf('')).includes(untagged.body.id));

    // The dashboard's list filters alike and shows the metadata.
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const onDashboard = await call(stack.apiUrl, 'GET', `/auth/beneficiaries${filter({ vendor, kind: 'supplier' })}`, {
      cookie: operator.cookie,
    });
    assert.deepEqual(
      (onDashboard.body.beneficiaries as Beneficiary[]).map((saved) => [saved.id, saved.metadata]),
      [[created.body.id, { vendor, kind: 'supplier' }]],
    );

    // Saving the destination again keeps its metadata unless the save gives some, which replaces it.
    const kept = await save({ bankCode: '058', accountNumber });
    assert.deepEqual([kept.status, kept.body.id, kept.body.metadata], [200, created.body.id, { vendor, kind: 'supplier' }]);
    const replaced = await save({ bankCode: '058', accountNumber, metadata: { vendor } });
    assert.deepEqual([replaced.status, replaced.body.id, replaced.body.metadata], [200, created.body.id, { vendor }]);
  });

  it('PATCH merges metadata into the beneficiary (null deletes a key), bounded as on create, and audited', async () => {
    const saved = (await save({ bankCode: '058', accountNumber: freshAccountNumber(), metadata: { vendor: 'V-1', stage: 'new' } })).body;
    const changed = await patch(saved.id, { metadata: { stage: 'approved', contract: 'C-7', vendor: null } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.metadata, { stage: 'approved', contract: 'C-7' });
    assert.deepEqual((await get(`/v1/beneficiaries/${saved.id}`)).body.metadata, { stage: 'approved', contract: 'C-7' });
    assert.deepEqual(await idsOf(filter({ contract: 'C-7', stage: 'approved' })), [saved.id]);
    assert.deepEqual(await idsOf(filter({ vendor: 'V-1', stage: 'new' })), []);
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, action: 'beneficiary.metadata_changed', target_id: saved.id })
      .select('actor', 'detail');
    assert.deepEqual(
      audit.map((row) => [row.actor, row.detail.set, row.detail.deleted]),
      [['API key', ['stage', 'contract'], ['vendor']]],
    );

    const emptied = await patch(saved.id, { metadata: { stage: null, contract: null } });
    assert.equal(emptied.status, 200, emptied.text);
    assert.equal('metadata' in emptied.body, false);

    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v']));
    const overflow = await patch(saved.id, { metadata: tooMany });
    assert.deepEqual([overflow.status, overflow.body.error], [400, 'metadata must have at most 20 keys (after this change)']);
    const notString = await patch(saved.id, { metadata: { stage: 5 } });
    assert.deepEqual([notString.status, notString.body.error], [400, 'metadata.stage must be a string (or null to delete the key)']);
    const noMetadata = await patch(saved.id, {});
    assert.equal(noMetadata.status, 400, noMetadata.text);
    assert.equal((await patch(saved.id, { metadata: { stage: 'x' } }, other.apiKey)).status, 404);
    assert.equal((await patch('not-an-id', { metadata: { stage: 'x' } })).status, 404);
    assert.equal('metadata' in (await get(`/v1/beneficiaries/${saved.id}`)).body, false);
  });

  it('refuses metadata out of bounds on a save, or a bad filter, with a 400, saving nothing', async () => {
    const accountNumber = freshAccountNumber();
    const badValue = await save({ bankCode: '058', accountNumber, metadata: { vendor: 17 } });
    assert.deepEqual([badValue.status, badValue.body.error], [400, 'metadata.vendor must be a string']);
    const badKey = await save({ bankCode: '058', accountNumber, metadata: { 'bad key!': 'v' } });
    assert.equal(badKey.status, 400, badKey.text);
    assert.match(badKey.body.error!, /^metadata key "bad key!" must be 1 to 40 characters/);
    const tooLong = await save({ bankCode: '058', accountNumber, metadata: { note: 'x'.repeat(501) } });
    assert.deepEqual([tooLong.status, tooLong.body.error], [400, 'metadata.note must be at most 500 characters']);
    assert.deepEqual(await stack.infra.db('beneficiaries').where({ account_number: accountNumber }).select('id'), []);
    const badFilter = await get(`/v1/beneficiaries${filter({ 'bad key': 'x' })}`);
    assert.equal(badFilter.status, 400, badFilter.text);
  });
});
