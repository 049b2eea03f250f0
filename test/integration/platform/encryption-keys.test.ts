import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { provisionAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardSession } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const CLI = path.resolve(__dirname, '../../../src/main/cli.js');
/** The public development key, which every other test of the run encrypts with. */
const DEV_KEY = 'ZGV2LW9ubHkta2V5LWRvLW5vdC11c2UtaW4tcHJvZCE=';
const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');

async function reencrypt(
  keys: string,
): Promise<{ code: number; result: { keyId: string; reencrypted: number; alreadyCurrent: number; unreadable: string[] } }> {
  const env = { ...process.env, DATA_ENCRYPTION_KEYS: keys };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'crypto:reencrypt', '--json'], { env });
    return { code: 0, result: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, result: JSON.parse(failed.stdout) };
  }
}

/** A ciphertext in the format written before key ids: "v1.<iv>.<tag>.<ciphertext>", no associated data. */
function legacyCiphertext(key: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

describe('encryption keys rotate', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ DATA_ENCRYPTION_KEYS: `old:${OLD_KEY},default:${DEV_KEY}` });
  });
  after(() => stack.close());

  it('stores a key id with each ciphertext; crypto:reencrypt moves everything to the newest key, old formats included', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey, { bvn: '22212345678' });
    const cookie = await dashboardSession(stack, tenant.tenantId);
    assert.equal(
      (await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: { secret: 'a-webhook-secret-of-24-chars+' } })).status,
      200,
    );
    assert.equal((await call(stack.apiUrl, 'POST', '/auth/two-factor/enrolment', { cookie })).status, 201);
    const customer = () => stack.infra.db('customers').where({ id: account.CustomerID }).first();
    const tenantRow = () => stack.infra.db('tenants').where({ id: tenant.tenantId }).first();
    // This tenant's user's enrolment: the lane's database holds other test files' enrolments too.
    const totpSecret = async () =>
      (
        await stack.infra
          .db('totp_enrolments')
          .whereIn('id', stack.infra.db('dashboard_users').where({ tenant_id: tenant.tenantId }).select('id'))
          .first('secret_enc')
      ).secret_enc as string;
    assert.match((await customer()).bvn_enc, /^v2\.old\./);
    assert.match((await tenantRow()).webhook_secret_enc, /^v2\.old\./);
    assert.match(await totpSecret(), /^v2\.old\./);
    // A NIN written in the format before key ids, as an existing database holds them.
    await stack.infra
      .db('customers')
      .where({ id: account.CustomerID })
      .update({ nin_enc: legacyCiphertext(OLD_KEY, '12345678901') });

    const rotated = await reencrypt(`new:${NEW_KEY},old:${OLD_KEY},default:${DEV_KEY}`);
    assert.equal(rotated.code, 0, JSON.stringify(rotated.result.unreadable));
    assert.equal(rotated.result.keyId, 'new');
    assert.ok(rotated.result.reencrypted >= 4);
    for (const value of [
      (await customer()).bvn_enc,
      (await customer()).nin_enc,
      (await tenantRow()).webhook_secret_enc,
      await totpSecret(),
    ])
      assert.match(value, /^v2\.new\./);

    // The old key is gone from the ring and everything still opens.
    const after = await reencrypt(`new:${NEW_KEY},default:${DEV_KEY}`);
    assert.equal(after.code, 0, JSON.stringify(after.result.unreadable));
    assert.equal(after.result.reencrypted, 0);
  });

  it('binds each ciphertext to its row: a secret copied to another tenant does not decrypt there', async () => {
    const victim = await createTenant(stack);
    const thief = await createTenant(stack);
    for (const tenant of [victim, thief]) {
      const cookie = await dashboardSession(stack, tenant.tenantId);
      assert.equal(
        (await call(stack.apiUrl, 'POST', '/auth/webhook-secret', { cookie, body: { secret: `secret-of-${randomUUID()}` } })).status,
        200,
      );
    }
    const stolen = (await stack.infra.db('tenants').where({ id: victim.tenantId }).first()).webhook_secret_enc as string;
    await stack.infra.db('tenants').where({ id: thief.tenantId }).update({ webhook_secret_enc: stolen });
    try {
      const checked = await reencrypt(`new:${NEW_KEY},old:${OLD_KEY},default:${DEV_KEY}`);
      assert.equal(checked.code, 1);
      assert.deepEqual(checked.result.unreadable, [`tenants.webhook_secret_enc:${thief.tenantId}`]);
    } finally {
      await stack.infra.db('tenants').where({ id: thief.tenantId }).update({ webhook_secret_enc: null });
    }
  });
});
