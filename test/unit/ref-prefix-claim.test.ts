import assert from 'node:assert/strict';
import { createRefPrefixClaim } from '../../src/clusters/ref-prefix-claim';

const NEW_TENANT = '01890000-0000-7000-8000-0000000000e1';
const OLD_TENANT = '01890000-0000-7000-8000-0000000000c1';

describe('the account-reference prefix of a new tenant, unique across clusters', () => {
  /** A directory whose unique prefixes are a map (prefix → tenant), reserving as the control database's constraint does. */
  function fakeDirectory(reserved: Map<string, string>) {
    return {
      reserveRefPrefix: async (tenantId: string, refPrefix: string) => {
        const holder = reserved.get(refPrefix);
        if (holder !== undefined && holder !== tenantId) return false;
        for (const [prefix, tenant] of reserved) if (tenant === tenantId) reserved.delete(prefix);
        reserved.set(refPrefix, tenantId);
        return true;
      },
    };
  }

  it('refuses a prefix a tenant on another cluster holds, though the directory has no row of it (made before the directory)', async () => {
    const reserved = new Map<string, string>();
    const claim = createRefPrefixClaim({
      holderOn: [async () => undefined, async (prefix) => (prefix === 'old123' ? OLD_TENANT : undefined)],
      directory: fakeDirectory(reserved),
    });
    assert.equal(await claim(NEW_TENANT, 'old123'), false);
    assert.equal(reserved.size, 0, 'nothing reserved');
    assert.equal(await claim(NEW_TENANT, 'new456'), true);
    assert.deepEqual([...reserved], [['new456', NEW_TENANT]]);
  });

  it('refuses a prefix the directory holds for another tenant (made on another cluster), and moves its own reservation on a redraw', async () => {
    const reserved = new Map([['taken1', OLD_TENANT]]);
    const claim = createRefPrefixClaim({ holderOn: [async () => undefined, async () => undefined], directory: fakeDirectory(reserved) });
    assert.equal(await claim(NEW_TENANT, 'taken1'), false);
    assert.equal(await claim(NEW_TENANT, 'first1'), true);
    assert.equal(await claim(NEW_TENANT, 'again2'), true, 'a redraw after a clash on its own cluster');
    assert.deepEqual([...reserved].sort(), [
      ['again2', NEW_TENANT],
      ['taken1', OLD_TENANT],
    ]);
  });
});
