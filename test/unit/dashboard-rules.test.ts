import assert from 'node:assert/strict';
import { roleAllows, USER_ROLES } from '../../src/http/roles';
import { requiredRole } from '../../src/http/route';
import { containsPattern } from '../../src/like-pattern';

describe('dashboard rules', () => {
  it('orders roles viewer < operator < admin, each allowing what the ones below it may do', () => {
    const allowed = USER_ROLES.map((actual) => USER_ROLES.filter((required) => roleAllows(actual, required)));
    assert.deepEqual(allowed, [['viewer'], ['viewer', 'operator'], ['viewer', 'operator', 'admin']]);
  });

  it('lets a session route without a declared role be read by anyone and changed only by an admin', () => {
    assert.equal(requiredRole({ method: 'get' }), 'viewer');
    for (const method of ['post', 'patch', 'put', 'delete'] as const) assert.equal(requiredRole({ method }), 'admin');
    assert.equal(requiredRole({ method: 'post', role: 'operator' }), 'operator');
    assert.equal(requiredRole({ method: 'get', role: 'admin' }), 'admin');
  });

  it('searches names for the text itself: LIKE wildcards and the escape character are literal, case is folded', () => {
    assert.equal(containsPattern('Ada'), '%ada%');
    assert.equal(containsPattern('50%_off\\'), '%50\\%\\_off\\\\%');
  });
});
