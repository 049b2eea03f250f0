import assert from 'node:assert/strict';
import { randomUUID, scrypt } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { uuidv7 } from '../../../src/ids';
import { call } from '../../helpers/http';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number, options: object) => Promise<Buffer>;

describe('dashboard passwords', () => {
  let stack: Stack;
  before(async () => {
    // The production cost, whatever the test run's default.
    stack = await startStack({ PASSWORD_SCRYPT_LOG_N: '17' });
  });
  after(() => stack.close());

  it('hashes at scrypt N=2^17, r=8, p=1, still accepts a hash made at the old cost, and upgrades it at sign-in', async () => {
    const tenant = await createTenant(stack);
    const fresh = `new+${randomUUID()}@example.com`;
    await stack.services.auth.createUser(tenant.tenantId, fresh, 'a long dashboard password');
    const stored = (await stack.infra.db('dashboard_users').where({ email: fresh }).first()).password_hash as string;
    assert.match(stored, /^scrypt\$131072\$8\$1\$/);

    const old = `old+${randomUUID()}@example.com`;
    const salt = Buffer.alloc(16, 7);
    const key = await scryptAsync('an old dashboard password', salt, 64, { N: 16384, r: 8, p: 1 });
    const oldHash = ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    await stack.infra.db('dashboard_users').insert({ id: uuidv7(), tenant_id: tenant.tenantId, email: old, password_hash: oldHash });
    const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: old, password: 'an old dashboard password' } });
    assert.equal(login.status, 200);
    const upgraded = (await stack.infra.db('dashboard_users').where({ email: old }).first()).password_hash as string;
    assert.match(upgraded, /^scrypt\$131072\$8\$1\$/);
    assert.equal(
      (await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: old, password: 'an old dashboard password' } })).status,
      200,
    );
  });
});

describe('sign-in under a flood', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ PASSWORD_SCRYPT_LOG_N: '15', TRUST_PROXY: 'true' });
  });
  after(() => stack.close());

  it("does not stall the API's thread pool: a file read stays fast while 40 sign-ins from 40 addresses are hashed", async () => {
    const flood = Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        call(stack.apiUrl, 'POST', '/auth/login', {
          body: { email: `flood+${index}@example.com`, password: 'not the password' },
          headers: { 'X-Forwarded-For': `203.0.113.${index + 1}` },
        }),
      ),
    );
    let finished = false;
    void flood.finally(() => (finished = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const probes: number[] = [];
    while (!finished && probes.length < 50) {
      const started = process.hrtime.bigint();
      await stat(__filename);
      probes.push(Number(process.hrtime.bigint() - started) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const responses = await flood;
    assert.ok(probes.length > 0, 'the flood ended before any probe');
    assert.ok(Math.max(...probes) < 500, `a thread-pool read waited ${Math.round(Math.max(...probes))} ms`);
    assert.ok(
      responses.every((response) => [401, 429, 503].includes(response.status)),
      responses.map((response) => response.status).join(','),
    );
  });
});
