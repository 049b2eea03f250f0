import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** What an attacker with a copy of the table and the API's source would try: hash the body with each guessed BVN. */
const unkeyedHash = (body: { bvn: string; externalRef: string; name: string }): string =>
  createHash('sha256')
    .update(JSON.stringify({ bvn: body.bvn, externalRef: body.externalRef, name: body.name }))
    .digest('hex');

describe('idempotency request hashes', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const provision = (body: Record<string, unknown>, key: string) =>
    call(stack.apiUrl, 'POST', '/v1/accounts', { apiKey: tenant.apiKey, body, headers: { 'Idempotency-Key': key } });

  it('are keyed: no BVN in a stored request can be found by hashing guesses', async () => {
    const body = { externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', bvn: '22212345678' };
    const key = randomUUID();
    assert.equal((await provision(body, key)).status, 201);
    const stored = (await stack.infra.db('idempotency_keys').where({ tenant_id: tenant.tenantId, key }).first()).request_hash as string;
    const guesses = Array.from({ length: 2_000 }, (_, index) => `222123${String(index + 44_000).padStart(5, '0')}`);
    assert.ok(guesses.includes(body.bvn));
    const recovered = guesses.filter((bvn) => unkeyedHash({ ...body, bvn }) === stored || stored.endsWith(unkeyedHash({ ...body, bvn })));
    assert.deepEqual(recovered, []);
    assert.equal((await provision(body, key)).status, 201);
    assert.equal((await provision({ ...body, name: 'Someone Else' }, key)).status, 409);
  });

  it('honours hashes stored before keying', async () => {
    const body = { externalRef: `cust-${randomUUID()}`, name: 'Ada Obi', bvn: '22212345679' };
    const key = randomUUID();
    const first = await provision(body, key);
    assert.equal(first.status, 201);
    // As a row written before request hashes were keyed.
    await stack.infra
      .db('idempotency_keys')
      .where({ tenant_id: tenant.tenantId, key })
      .update({ request_hash: unkeyedHash(body) });
    assert.equal((await provision(body, key)).body.ID, first.body.ID);
    assert.equal((await provision({ ...body, name: 'Someone Else' }, key)).status, 409);
  });
});
