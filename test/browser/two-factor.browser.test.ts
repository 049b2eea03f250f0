import assert from 'node:assert/strict';
import { generate } from 'otplib';
import { assertAccessible, screenshot, settled, signIn } from './browser';
import { useDesk } from './desk';

/** The code an authenticator app shows `aheadMs` from now (a code of the next step is accepted too). */
const codeOf = (secret: string, aheadMs = 0) => generate({ secret, epoch: Math.floor((Date.now() + aheadMs) / 1000) });

/** Two-factor sign-in as a user meets it: enrolment with the key the page shows, then signing out and in with a code. */
describe('two-factor sign-in in a browser', function () {
  const desk = useDesk('Two Factor Ltd', { role: 'operator', signedIn: false });

  const auditRows = (action: string) =>
    desk.db('audit_log').where({ tenant_id: desk.tenant.tenantId, action }).orderBy('id').select('actor', 'target_id', 'detail');

  it('enrols with a code computed from the key shown, then signs out and signs in again with a code', async () => {
    await signIn(desk.page, desk.user);
    await desk.page.getByRole('link', { name: 'Two-factor' }).click();
    await settled(desk.page);
    await desk.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    assert.match(await desk.page.getByTestId('two-factor-state').innerText(), /^Off/);

    await desk.page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await desk.page.getByTestId('totp-secret').innerText()).trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await desk.page.getByRole('img', { name: 'QR code of your authenticator key' }).locator('svg').waitFor();
    await assertAccessible(desk.page, 'two-factor enrolment');
    await screenshot(desk.page, 'two-factor-enrolment', 'desktop');

    await desk.page.getByLabel('Code from the app').fill(await codeOf(secret));
    await desk.page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const codes = desk.page.getByTestId('recovery-codes').locator('li');
    await codes.first().waitFor();
    assert.equal(await codes.count(), 10);
    await desk.page.getByRole('button', { name: 'I have stored them' }).click();
    await desk.page.getByText('On: signing in asks for a code of your authenticator app. 10 recovery code(s) left.').waitFor();

    await desk.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await desk.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await desk.page.getByLabel('Email').fill(desk.user.email);
    await desk.page.getByLabel('Password').fill(desk.user.password);
    await desk.page.getByRole('button', { name: 'Sign in' }).click();
    await desk.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await assertAccessible(desk.page, 'two-factor sign-in');
    await screenshot(desk.page, 'two-factor-sign-in', 'desktop');

    // A wrong code is refused on the page; the code of the next step (the enrolment's is spent) signs in.
    const next = await codeOf(secret, 30_000);
    await desk.page.getByLabel('Code from the app').fill(next === '000000' ? '000001' : '000000');
    await desk.page.getByRole('button', { name: 'Sign in' }).click();
    await desk.page.getByRole('alert').getByText('that code is not right').waitFor();
    await desk.page.getByLabel('Code from the app').fill(next);
    await desk.page.getByRole('button', { name: 'Sign in' }).click();
    await desk.page.getByTestId('whoami').waitFor();
    assert.match(await desk.page.getByTestId('whoami').innerText(), new RegExp(desk.user.email.replace(/[.+]/g, '\\$&')));

    const enrolled = await auditRows('two_factor.enrolled');
    assert.equal(enrolled.length, 1);
    assert.equal(enrolled[0]!.actor, desk.user.email);
    const signIns = await auditRows('session.signed_in');
    assert.deepEqual(
      signIns.map((row) => row.detail),
      [{}, { secondFactor: 'totp' }],
    );
    assert.deepEqual(desk.problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });
});
