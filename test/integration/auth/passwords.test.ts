import assert from 'node:assert/strict';
import { call } from '../../helpers/http';
import { dashboardUser, signIn } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

describe('dashboard password change and admin-issued reset', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const sessionStatus = async (cookie: string) => (await call(stack.apiUrl, 'GET', '/auth/session', { cookie })).status;
  const loginStatus = async (email: string, password: string) =>
    (await call(stack.apiUrl, 'POST', '/auth/login', { body: { email, password } })).status;
  const auditOf = (userId: string) =>
    stack.infra.db('audit_log').where({ target_type: 'user', target_id: userId }).orderBy('id').select('action', 'user_id', 'detail');

  it("changes a signed-in user's password only with the current one, and ends their other sessions but not this one", async () => {
    const tenant = await createTenant(stack);
    const user = await dashboardUser(stack, tenant.tenantId, 'viewer');
    const other = await signIn(stack, user.email, user.password);
    const change = (body: Record<string, unknown>) => call(stack.apiUrl, 'POST', '/auth/password', { cookie: user.cookie, body });

    const wrong = await change({ currentPassword: 'not my password at all', newPassword: 'a brand new password' });
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal(wrong.body.error, 'the current password is not right');
    const short = await change({ currentPassword: user.password, newPassword: 'short' });
    assert.equal(short.status, 400);
    assert.equal(short.body.error, 'password must be at least 12 characters');
    assert.equal(await sessionStatus(other), 200, 'a refused change ends nothing');

    const changed = await change({ currentPassword: user.password, newPassword: 'a brand new password' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body, { sessionsEnded: 1 });
    assert.equal(await sessionStatus(other), 401);
    assert.equal(await sessionStatus(user.cookie), 200);
    assert.equal(await loginStatus(user.email, user.password), 401);
    assert.equal(await loginStatus(user.email, 'a brand new password'), 200);
    const audit = (await auditOf(user.userId)).filter((row) => row.action === 'user.password_changed');
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]!.detail, { sessionsEnded: 1, resetTokensCancelled: 0 });
  });

  it('lets an admin issue a one-time reset token, shown once, that sets a new password and ends every session of the user', async () => {
    const tenant = await createTenant(stack);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const user = await dashboardUser(stack, tenant.tenantId, 'operator');
    const issue = (cookie: string, userId: string) => call(stack.apiUrl, 'POST', `/auth/users/${userId}/password-reset`, { cookie });
    const reset = (token: string, newPassword: string) =>
      call(stack.apiUrl, 'POST', '/auth/password-reset', { body: { token, newPassword } });

    const stranger = await dashboardUser(stack, (await createTenant(stack)).tenantId, 'admin');
    assert.equal((await issue(stranger.cookie, user.userId)).status, 404, "another tenant's admin cannot reset this user");
    assert.equal((await issue(user.cookie, user.userId)).status, 403, 'an operator cannot issue resets');

    const replaced = await issue(admin.cookie, user.userId);
    assert.equal(replaced.status, 201, replaced.text);
    const issued = await issue(admin.cookie, user.userId);
    assert.equal(issued.status, 201);
    assert.ok(Date.parse(issued.body.expiresAt) > Date.now());
    const stored = await stack.infra.db('password_reset_tokens').where({ user_id: user.userId });
    assert.ok(
      stored.every((row) => !JSON.stringify(row).includes(issued.body.token)),
      'only the hash is stored',
    );
    assert.equal(await sessionStatus(user.cookie), 200, 'issuing a token changes nothing yet');
    assert.equal(await loginStatus(user.email, user.password), 200);

    assert.equal((await reset(replaced.body.token, 'a password set by the user')).status, 400, 'a newer token replaces an older one');
    assert.equal((await reset(issued.body.token, 'too short')).status, 400);
    const done = await reset(issued.body.token, 'a password set by the user');
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { sessionsEnded: 2 });
    assert.equal(await sessionStatus(user.cookie), 401);
    assert.equal(await loginStatus(user.email, user.password), 401);
    assert.equal(await loginStatus(user.email, 'a password set by the user'), 200);

    const again = await reset(issued.body.token, 'another password entirely');
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'invalid_reset_token');
    assert.equal(await loginStatus(user.email, 'a password set by the user'), 200, 'a used token changes nothing');

    const actions = (await auditOf(user.userId)).filter((row) => row.action.startsWith('user.password'));
    assert.deepEqual(
      actions.map((row) => [row.action, row.user_id]),
      [
        ['user.password_reset_issued', admin.userId],
        ['user.password_reset_issued', admin.userId],
        ['user.password_reset', user.userId],
      ],
    );
  });

  it("cancels the user's outstanding reset tokens when they change their password", async () => {
    const tenant = await createTenant(stack);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const user = await dashboardUser(stack, tenant.tenantId, 'operator');
    const issued = await call(stack.apiUrl, 'POST', `/auth/users/${user.userId}/password-reset`, { cookie: admin.cookie });
    assert.equal(issued.status, 201, issued.text);

    const changed = await call(stack.apiUrl, 'POST', '/auth/password', {
      cookie: user.cookie,
      body: { currentPassword: user.password, newPassword: 'the password the user chose' },
    });
    assert.equal(changed.status, 200, changed.text);
    const reset = await call(stack.apiUrl, 'POST', '/auth/password-reset', {
      body: { token: issued.body.token, newPassword: 'a password set with an old token' },
    });
    assert.equal(reset.status, 400, 'a token issued before the change no longer sets a password');
    assert.equal(reset.body.code, 'invalid_reset_token');
    assert.equal(await loginStatus(user.email, 'the password the user chose'), 200);
    const audit = (await auditOf(user.userId)).filter((row) => row.action === 'user.password_changed');
    assert.deepEqual(audit[0]!.detail, { sessionsEnded: 0, resetTokensCancelled: 1 });
  });

  it('refuses an expired token', async () => {
    const tenant = await createTenant(stack);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const user = await dashboardUser(stack, tenant.tenantId, 'viewer');
    const issued = await call(stack.apiUrl, 'POST', `/auth/users/${user.userId}/password-reset`, { cookie: admin.cookie });
    await stack.infra
      .db('password_reset_tokens')
      .where({ user_id: user.userId })
      .update({ expires_at: stack.infra.db.raw("now() - interval '1 second'") });
    const expired = await call(stack.apiUrl, 'POST', '/auth/password-reset', {
      body: { token: issued.body.token, newPassword: 'a password set too late' },
    });
    assert.equal(expired.status, 400);
    assert.equal(expired.body.code, 'invalid_reset_token');
    assert.equal(await sessionStatus(user.cookie), 200);
  });
});
