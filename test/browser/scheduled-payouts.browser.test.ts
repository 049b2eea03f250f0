import assert from 'node:assert/strict';
import { provision } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { settled } from './browser';
import { useDesk } from './desk';

/**
 * The Scheduled payouts page, in a real browser against the real processes: a payout scheduled through the API a day
 * ahead is listed with its Lagos time, amount and destination; an operator cancels it from the page, and the API then
 * shows it cancelled with its money released, and the audit log names the operator.
 */
describe('scheduled payouts page in a browser', function () {
  const desk = useDesk('Payroll Desk Ltd', { role: 'operator' });
  const { v1 } = desk;

  it('an operator sees a scheduled payout with its Lagos time and cancels it, releasing its money', async () => {
    const account = await provision(desk.sys, desk.tenant.apiKey, { externalRef: 'payroll', name: 'Payroll Account' });
    const payment = await call(desk.sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 10_000, fee: 0, senderName: 'TOLU ADEWALE', narration: 'Funding' },
    });
    assert.equal(payment.status, 200, payment.text);
    await eventually(async () => (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body.availableBalance === '10000.00', {
      what: 'the payment confirmed',
    });
    // A whole Lagos minute a day ahead, so the page shows it to the second without rounding.
    const at = new Date(Math.ceil((Date.now() + 86_400_000) / 60_000) * 60_000);
    const scheduled = await v1('POST', `/v1/accounts/${account.AccountRef}/settle`, {
      amount: '4250.00',
      bankCode: '058',
      accountNumber: '0123456789',
      scheduledFor: at.toISOString(),
    });
    assert.equal(scheduled.status, 202, scheduled.text);
    const ref = scheduled.body.merchantTxRef as string;
    assert.equal((await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body.reserved.scheduled_payout, '4250.00');

    await desk.page.goto('/dashboard/scheduled-payouts');
    await settled(desk.page);
    const row = desk.page.locator(`[data-testid="scheduled-payout-row"][data-ref="${ref}"]`);
    await row.waitFor();
    const lagosTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'Africa/Lagos' }).format(at);
    const cells = await row.locator('td').allInnerTexts();
    assert.deepEqual(cells.slice(0, 5), [lagosTime, account.AccountRef, '₦4,250.00', '0123456789 (058)', ref]);

    await row.getByRole('button', { name: 'Cancel' }).click();
    await desk.page.getByRole('dialog', { name: 'Cancel the payout of ₦4,250.00?' }).getByRole('button', { name: 'Cancel payout' }).click();
    await desk.page.getByRole('status').getByText('Payout of ₦4,250.00 cancelled: its money is released.').waitFor();
    await desk.page.getByText('No payout is scheduled.').waitFor();

    const cancelled = (await v1('GET', `/v1/transfers/${ref}`)).body;
    assert.deepEqual([cancelled.status, cancelled.schedule.state], ['cancelled', 'cancelled']);
    const balance = (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body;
    assert.deepEqual([balance.heldBalance, balance.reserved.scheduled_payout], ['0.00', '0.00']);
    const audited = await desk
      .db('audit_log')
      .where({ tenant_id: desk.tenant.tenantId, action: 'settlement.cancelled' })
      .select('actor', 'target_id');
    assert.deepEqual(
      audited.map((entry) => [entry.actor, entry.target_id]),
      [[desk.user.email, ref]],
    );
    assert.deepEqual(desk.problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });
});
