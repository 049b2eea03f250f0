import assert from 'node:assert/strict';
import { PERMISSION_NAMES, roleHas, USER_ROLES } from '../../src/http/roles';
import { requiredPermission } from '../../src/http/route';
import { containsPattern } from '../../src/like-pattern';

describe('dashboard rules', () => {
  it('gives each role its set of permissions: moving money, approving it and setting its rules are separate', () => {
    const held = Object.fromEntries(USER_ROLES.map((role) => [role, PERMISSION_NAMES.filter((permission) => roleHas(role, permission))]));
    assert.deepEqual(held, {
      viewer: ['read'],
      operator: ['read', 'operate', 'move_money'],
      approver: ['read', 'approve_money'],
      admin: ['read', 'operate', 'move_money', 'approve_money', 'set_money_rules', 'manage_access'],
    });
  });

  it('lets a session route without a declared permission be read by anyone and changed only with manage_access', () => {
    assert.equal(requiredPermission({ method: 'get' }), 'read');
    for (const method of ['post', 'patch', 'put', 'delete'] as const) assert.equal(requiredPermission({ method }), 'manage_access');
    assert.equal(requiredPermission({ method: 'post', permission: 'move_money' }), 'move_money');
    assert.equal(requiredPermission({ method: 'get', permission: 'manage_access' }), 'manage_access');
  });

  it('searches names for the text itself: LIKE wildcards and the escape character are literal, case is folded', () => {
    assert.equal(containsPattern('Ada'), '%ada%');
    assert.equal(containsPattern('50%_off\\'), '%50\\%\\_off\\\\%');
  });
});
