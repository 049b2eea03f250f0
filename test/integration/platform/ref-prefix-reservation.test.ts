import assert from 'node:assert/strict';
import knex from 'knex';
import { createTenantDirectory, type TenantDirectory } from '../../../src/clusters/tenant-directory';
import { createLogger } from '../../../src/logger';
import { uuidv7 } from '../../../src/ids';
import { scratchDatabase } from '../../helpers/scratch-database';
import { startStack, type Stack } from '../../helpers/stack';

describe('account-reference prefixes reserved in the control database', () => {
  let control: Awaited<ReturnType<typeof scratchDatabase>>;
  let directory: TenantDirectory;
  let stack: Stack;

  before(async () => {
    control = await scratchDatabase('prefixes', { control: true });
    directory = createTenantDirectory({
      db: knex({ client: 'pg', connection: control.url }),
      clusters: ['a', 'b'],
      logger: createLogger('silent', 'test'),
    });
    stack = await startStack();
  });
  after(async () => {
    await stack?.close();
    await directory?.close();
    await control?.drop();
  });

  it('holds a prefix for one tenant only; a tenant drawing again replaces its own reservation', async () => {
    const [first, second] = [uuidv7(), uuidv7()];
    assert.equal(await directory.reserveRefPrefix(first, 'abc123'), true);
    assert.equal(await directory.reserveRefPrefix(second, 'abc123'), false, 'taken by a tenant on another cluster');
    assert.equal(await directory.reserveRefPrefix(second, 'def456'), true);
    assert.equal(await directory.reserveRefPrefix(second, 'ghi789'), true, 'a redraw');
    assert.equal(await directory.reserveRefPrefix(first, 'def456'), true, 'freed by the redraw');
  });

  it('createTenant draws another prefix while the claim refuses one, and the tenant gets the prefix claimed', async () => {
    const refused: string[] = [];
    const claimed: string[] = [];
    const created = await stack.services.auth.createTenant('Prefixes', uuidv7(), async (tenantId, refPrefix) => {
      if (refused.length < 2) {
        refused.push(refPrefix);
        return false;
      }
      claimed.push(refPrefix);
      return directory.reserveRefPrefix(tenantId, refPrefix);
    });
    const tenant = (await stack.infra.db('tenants').where({ id: created.tenantId }).first('ref_prefix')) as { ref_prefix: string };
    assert.equal(refused.length, 2);
    assert.deepEqual(claimed, [tenant.ref_prefix]);
    assert.ok(!refused.includes(tenant.ref_prefix));
  });
});
