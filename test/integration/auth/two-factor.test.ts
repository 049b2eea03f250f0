import assert from 'node:assert/strict';
import { generate } from 'otplib';
import { call } from '../../helpers/http';
import { dashboardUser, signIn, type DashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const STEP_MS = 30_000;

describe('two-factor sign-in (TOTP)', () => {
  // The API judges codes by this clock: a test moves it instead of waiting, and makes its codes for it.
  let now = 0;
  let stack: Stack;
  before(async () => {
    stack = await startStack({}, { clock: () => now });
  });
  after(() => stack.close());
  beforeEach(() => {
    // One second into a time step, so "the next step" is exactly STEP_MS on.
    now = Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000;
  });

  const codeAt = (secret: string, atMs: number) => generate({ secret, epoch: Math.floor(atMs / 1000) });
  const post = (cookie: string, path: string, body?: unknown) =>
    call(stack.apiUrl, 'POST', path, { cookie, ...(body === undefined ? {} : { body }) });
  const auditOf = (tenantId: string, action: string) =>
    stack.infra.db('audit_log').where({ tenant_id: tenantId, action }).orderBy('id').select('user_id', 'target_id', 'detail');
  /** Any other dashboard page's read. */
  const auditLogStatus = async (cookie: string) => (await call(stack.apiUrl, 'GET', '/auth/audit-log', { cookie })).status;

  /** Enrols the signed-in user with a code of the current step; returns the secret and the recovery codes. */
  async function enrol(user: DashboardUser): Promise<{ secret: string; recoveryCodes: string[] }> {
    const started = await post(user.cookie, '/auth/two-factor/enrolment');
    assert.equal(started.status, 201, started.text);
    const confirmed = await post(user.cookie, '/auth/two-factor/enrolment/confirm', { code: await codeAt(started.body.secret, now) });
    assert.equal(confirmed.status, 200, confirmed.text);
    return { secret: started.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
  }

  /** Signs in with the password: the session cookie of a session waiting for its second factor. */
  async function passwordStep(user: DashboardUser): Promise<string> {
    const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: user.email, password: user.password } });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.secondFactorRequired, true);
    return (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  }

  it('enrols with a secret and QR code confirmed by a code, shows recovery codes once and keeps only their hashes', async () => {
    const tenant = await createTenant(stack);
    const user = await dashboardUser(stack, tenant.tenantId, 'operator');
    const started = await post(user.cookie, '/auth/two-factor/enrolment');
    assert.equal(started.status, 201, started.text);
    const secret: string = started.body.secret;
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(started.body.otpauthUri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('issuer'), 'NUBAN ledger');
    assert.ok(decodeURIComponent(uri.pathname).endsWith(user.email), uri.pathname);
    assert.match(started.body.qrCodeSvg, /^<svg [^>]*viewBox/);

    const wrong = await post(user.cookie, '/auth/two-factor/enrolment/confirm', { code: await codeAt(secret, now - 5 * STEP_MS) });
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal(wrong.body.code, 'invalid_code');
    assert.equal((await post(user.cookie, '/auth/two-factor/enrolment/confirm', { code: '12345' })).status, 400);

    const confirmed = await post(user.cookie, '/auth/two-factor/enrolment/confirm', { code: await codeAt(secret, now) });
    assert.equal(confirmed.status, 200, confirmed.text);
    const recoveryCodes: string[] = confirmed.body.recoveryCodes;
    assert.equal(recoveryCodes.length, 10);
    assert.equal(new Set(recoveryCodes).size, 10);
    for (const code of recoveryCodes) assert.match(code, /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);

    const stored = await stack.infra.db('totp_recovery_codes').where({ user_id: user.userId });
    assert.equal(stored.length, 10);
    const storedText = JSON.stringify(stored);
    for (const code of recoveryCodes) assert.ok(!storedText.includes(code) && !storedText.includes(code.replace(/-/g, '')));
    const enrolment = await stack.infra.db('totp_enrolments').where({ id: user.userId }).first();
    assert.ok(enrolment.confirmed_at);
    assert.ok(!String(enrolment.secret_enc).includes(secret), 'the secret is stored encrypted');

    const again = await post(user.cookie, '/auth/two-factor/enrolment');
    assert.equal(again.status, 409, 'a confirmed authenticator is not replaced without turning it off');
    const status = await call(stack.apiUrl, 'GET', '/auth/two-factor', { cookie: user.cookie });
    assert.deepEqual(status.body, {
      enrolled: true,
      recoveryCodesLeft: 10,
      tenantRequires: false,
      requiredForRoles: ['operator', 'approver', 'admin'],
      requiredOfYou: false,
    });
    const audit = await auditOf(tenant.tenantId, 'two_factor.enrolled');
    assert.deepEqual(
      audit.map((row) => [row.user_id, row.target_id]),
      [[user.userId, user.userId]],
    );
  });

  it('holds a password-only session until a code: a wrong one, a replayed one and one of another user are refused', async () => {
    const tenant = await createTenant(stack);
    const user = await dashboardUser(stack, tenant.tenantId, 'operator');
    const other = await dashboardUser(stack, tenant.tenantId, 'operator');
    const { secret } = await enrol(user);
    const { secret: otherSecret } = await enrol(other);

    const half = await passwordStep(user);
    assert.equal(await auditLogStatus(half), 403, 'a session waiting for its code can do nothing else');
    const refused = await call(stack.apiUrl, 'GET', '/auth/audit-log', { cookie: half });
    assert.equal(refused.body.code, 'second_factor_required');
    const session = await call(stack.apiUrl, 'GET', '/auth/session', { cookie: half });
    assert.equal(session.status, 200);
    assert.equal(session.body.stage, 'awaiting_code');
    assert.equal((await post(half, '/auth/two-factor/step-up', { code: await codeAt(secret, now) })).status, 403);

    now += STEP_MS;
    const wrong = await post(half, '/auth/two-factor/sign-in', { code: await codeAt(otherSecret, now) });
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal(wrong.body.code, 'invalid_code');
    const replayedEnrolmentCode = await post(half, '/auth/two-factor/sign-in', { code: await codeAt(secret, now - STEP_MS) });
    assert.equal(replayedEnrolmentCode.status, 401, 'the code that confirmed the enrolment is spent');
    assert.equal(replayedEnrolmentCode.body.code, 'code_already_used');

    const code = await codeAt(secret, now);
    const signedIn = await post(half, '/auth/two-factor/sign-in', { code });
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal(await auditLogStatus(half), 200);
    assert.equal((await call(stack.apiUrl, 'GET', '/auth/session', { cookie: half })).body.stage, 'signed_in');
    assert.equal((await post(half, '/auth/two-factor/sign-in', { code })).status, 403, 'a signed-in session has no second step');

    // The same code, from another sign-in, in the same step and in the next (where it is still within the window).
    const second = await passwordStep(user);
    const replay = await post(second, '/auth/two-factor/sign-in', { code });
    assert.equal(replay.status, 401, replay.text);
    assert.equal(replay.body.code, 'code_already_used');
    now += STEP_MS;
    assert.equal((await post(second, '/auth/two-factor/sign-in', { code })).body.code, 'code_already_used');
    assert.equal(await auditLogStatus(second), 403);
    assert.equal((await post(second, '/auth/two-factor/sign-in', { code: await codeAt(secret, now) })).status, 200);

    const signIns = await auditOf(tenant.tenantId, 'session.signed_in');
    assert.deepEqual(
      signIns.filter((row) => row.user_id === user.userId).map((row) => row.detail),
      [{}, { secondFactor: 'totp' }, { secondFactor: 'totp' }],
      'the password step alone is not recorded as a sign-in',
    );
  });

  it('signs in with a recovery code once, records its use, and a used one never again', async () => {
    const tenant = await createTenant(stack);
    const user = await dashboardUser(stack, tenant.tenantId, 'admin');
    const { recoveryCodes } = await enrol(user);

    const half = await passwordStep(user);
    const typed = ` ${recoveryCodes[3]!.toUpperCase()} `;
    const signedIn = await post(half, '/auth/two-factor/sign-in', { recoveryCode: typed });
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal(await auditLogStatus(half), 200);
    assert.equal(
      (await call(stack.apiUrl, 'GET', '/auth/two-factor', { cookie: half })).body.recoveryCodesLeft,
      9,
      'the used code is spent',
    );

    const again = await passwordStep(user);
    const reused = await post(again, '/auth/two-factor/sign-in', { recoveryCode: recoveryCodes[3] });
    assert.equal(reused.status, 401, reused.text);
    assert.equal(await auditLogStatus(again), 403);
    assert.equal((await post(again, '/auth/two-factor/sign-in', { recoveryCode: 'aaaa-bbbb-cccc-dddd' })).status, 401);
    assert.equal((await post(again, '/auth/two-factor/sign-in', {})).status, 400);

    const used = await auditOf(tenant.tenantId, 'two_factor.recovery_code_used');
    assert.deepEqual(
      used.map((row) => row.detail),
      [{ recoveryCodesLeft: 9 }],
    );
    const signIns = (await auditOf(tenant.tenantId, 'session.signed_in')).filter((row) => row.user_id === user.userId);
    assert.deepEqual(signIns.at(-1)!.detail, { secondFactor: 'recovery_code' });
  });

  it("locks a user's codes after five wrong ones, the right code included, with Retry-After", async () => {
    const tenant = await createTenant(stack);
    const user = await dashboardUser(stack, tenant.tenantId, 'operator');
    const { secret } = await enrol(user);
    now += STEP_MS;
    const half = await passwordStep(user);
    const right = await codeAt(secret, now);
    const wrongCode = right === '000000' ? '000001' : '000000';
    for (let attempt = 1; attempt <= 5; attempt += 1)
      assert.equal((await post(half, '/auth/two-factor/sign-in', { code: wrongCode })).status, 401, `attempt ${attempt}`);
    const locked = await post(half, '/auth/two-factor/sign-in', { code: right });
    assert.equal(locked.status, 429, locked.text);
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
    assert.equal(await auditLogStatus(half), 403);
    // The lock is the user's, not the session's.
    const fromElsewhere = await passwordStep(user);
    assert.equal((await post(fromElsewhere, '/auth/two-factor/sign-in', { code: right })).status, 429);

    // Another user's codes are theirs alone.
    const other = await dashboardUser(stack, tenant.tenantId, 'operator');
    const { secret: otherSecret } = await enrol(other);
    now += STEP_MS;
    assert.equal((await post(await passwordStep(other), '/auth/two-factor/sign-in', { code: await codeAt(otherSecret, now) })).status, 200);
  });

  it('sends the roles that move money or administer to enrol when the tenant requires it, and leaves viewers be', async () => {
    const tenant = await createTenant(stack);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const viewer = await dashboardUser(stack, tenant.tenantId, 'viewer');
    assert.equal((await call(stack.apiUrl, 'PUT', '/auth/two-factor/requirement', { cookie: operator.cookie })).status, 403);
    const on = await call(stack.apiUrl, 'PUT', '/auth/two-factor/requirement', { cookie: admin.cookie });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.tenantRequires, true);

    for (const user of [admin, operator]) {
      const refused = await call(stack.apiUrl, 'GET', '/auth/audit-log', { cookie: user.cookie });
      assert.equal(refused.status, 403, `${user.email} goes to enrolment first`);
      assert.equal(refused.body.code, 'two_factor_enrolment_required');
      assert.equal((await call(stack.apiUrl, 'GET', '/auth/session', { cookie: user.cookie })).body.stage, 'must_enrol');
    }
    assert.equal(await auditLogStatus(viewer.cookie), 200, 'a viewer moves no money');
    // A new sign-in is sent there as well (a password alone, since there is no authenticator yet).
    const fresh = await signIn(stack, operator.email, operator.password);
    assert.equal(await auditLogStatus(fresh), 403);
    assert.equal((await post(operator.cookie, '/auth/two-factor/disable')).status, 403);

    await enrol(operator);
    assert.equal(await auditLogStatus(operator.cookie), 200);
    assert.equal(await auditLogStatus(fresh), 200);
    assert.equal(await auditLogStatus(admin.cookie), 403, 'the admin has still to enrol');

    const turnedOn = await auditOf(tenant.tenantId, 'two_factor_requirement.turned_on');
    assert.deepEqual(
      turnedOn.map((row) => [row.user_id, row.detail]),
      [[admin.userId, { roles: ['operator', 'approver', 'admin'] }]],
    );
    // Where it is required, an operator's own two-factor sign-in stays on.
    const disable = await post(operator.cookie, '/auth/two-factor/disable');
    assert.equal(disable.status, 409, disable.text);
  });

  it('asks for a code given within five minutes before the requirement or one’s own two-factor sign-in is turned off', async () => {
    const tenant = await createTenant(stack);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const unenrolled = await dashboardUser(stack, tenant.tenantId, 'admin');
    const turnOff = (cookie: string) => call(stack.apiUrl, 'DELETE', '/auth/two-factor/requirement', { cookie });
    const { secret } = await enrol(admin);
    assert.equal((await call(stack.apiUrl, 'PUT', '/auth/two-factor/requirement', { cookie: admin.cookie })).status, 200);

    now += 5 * 60_000 + 1000;
    const stale = await turnOff(admin.cookie);
    assert.equal(stale.status, 403, stale.text);
    assert.equal(stale.body.code, 'fresh_code_required');
    const noAuthenticator = await turnOff(unenrolled.cookie);
    assert.equal(noAuthenticator.status, 403);
    assert.equal(noAuthenticator.body.code, 'two_factor_enrolment_required');

    const wrong = await post(admin.cookie, '/auth/two-factor/step-up', { code: await codeAt(secret, now - 3 * STEP_MS) });
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal((await turnOff(admin.cookie)).status, 403);
    const stepUp = await post(admin.cookie, '/auth/two-factor/step-up', { code: await codeAt(secret, now) });
    assert.equal(stepUp.status, 200, stepUp.text);
    now += 4 * 60_000;
    const off = await turnOff(admin.cookie);
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.tenantRequires, false);
    assert.equal((await auditOf(tenant.tenantId, 'two_factor_requirement.turned_off')).length, 1);

    // Without a requirement, an admin without an authenticator cannot give a code at all.
    const notEnrolled = await turnOff(unenrolled.cookie);
    assert.equal(notEnrolled.status, 403);
    assert.equal(notEnrolled.body.code, 'two_factor_not_enrolled');

    // Turning one's own off: fresh at first, stale after five minutes, fresh again after a step-up.
    now += 2 * 60_000;
    const staleDisable = await post(admin.cookie, '/auth/two-factor/disable');
    assert.equal(staleDisable.body.code, 'fresh_code_required');
    assert.equal((await post(admin.cookie, '/auth/two-factor/step-up', { code: await codeAt(secret, now) })).status, 200);
    assert.equal((await post(admin.cookie, '/auth/two-factor/disable')).status, 204);
    assert.equal((await auditOf(tenant.tenantId, 'two_factor.disabled')).length, 1);
    const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: admin.email, password: admin.password } });
    assert.equal(login.body.secondFactorRequired, false);
  });

  it("lets an admin reset another user's two-factor sign-in, ending their sessions, and records it", async () => {
    const tenant = await createTenant(stack);
    const admin = await dashboardUser(stack, tenant.tenantId, 'admin');
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const stranger = await dashboardUser(stack, (await createTenant(stack)).tenantId, 'admin');
    const reset = (cookie: string, userId: string) => post(cookie, `/auth/users/${userId}/two-factor/reset`);
    await enrol(operator);
    await enrol(admin);

    assert.equal((await reset(admin.cookie, operator.userId)).status, 200);
    // Enrolled again, to reset it once more from the other side of the checks.
    const operatorAgain = { ...operator, cookie: await signIn(stack, operator.email, operator.password) };
    await enrol(operatorAgain);
    assert.equal((await reset(operator.cookie, admin.userId)).status, 401, 'the first reset ended the operator’s sessions');
    assert.equal((await reset(operatorAgain.cookie, admin.userId)).status, 403, 'an operator resets no one');
    assert.equal((await reset(stranger.cookie, operator.userId)).status, 404, "another tenant's admin cannot see the user");
    assert.equal((await reset(admin.cookie, admin.userId)).status, 409, 'an admin turns their own off with a code');

    const done = await reset(admin.cookie, operator.userId);
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { sessionsEnded: 1 });
    assert.equal(await auditLogStatus(operatorAgain.cookie), 401);
    const login = await call(stack.apiUrl, 'POST', '/auth/login', { body: { email: operator.email, password: operator.password } });
    assert.equal(login.body.secondFactorRequired, false, 'the password alone signs in after a reset');
    assert.equal((await reset(admin.cookie, operator.userId)).status, 409, 'nothing left to reset');
    assert.equal(
      await stack.infra
        .db('totp_recovery_codes')
        .where({ user_id: operator.userId })
        .count()
        .first()
        .then((row) => Number(row!.count)),
      0,
    );

    const audit = await auditOf(tenant.tenantId, 'two_factor.reset');
    assert.deepEqual(
      audit.map((row) => [row.user_id, row.target_id, row.detail]),
      [
        [admin.userId, operator.userId, { email: operator.email, sessionsEnded: 1 }],
        [admin.userId, operator.userId, { email: operator.email, sessionsEnded: 1 }],
      ],
    );
  });
});
