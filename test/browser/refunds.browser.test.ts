import assert from 'node:assert/strict';
import { accountHolderName } from '../../src/sandbox/names';
import { provision } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { settled } from './browser';
import { useDesk } from './desk';

/**
 * A refund of a payment from its line on the account's statement, in a real browser against the real processes: the
 * dialog shows the provider's name for the payer's account and what may be refunded, the operator refunds part of it,
 * and the payer is paid once at the sandbox; the refund is then listed in the dialog and audited.
 */
describe('account page in a browser: a refund of a payment', function () {
  const desk = useDesk('Refund Desk Ltd', { role: 'operator' });
  const { v1 } = desk;

  it('an operator refunds part of a confirmed payment from its statement line, seeing the payer’s account named first, and the payer is paid once', async () => {
    const payerAccount = '0123450042';
    const payerName = accountHolderName(payerAccount);
    const account = await provision(desk.sys, desk.tenant.apiKey, { externalRef: 'refund-shop', name: 'Kola Stores' });
    const paid = await call(desk.sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 10_000, fee: 0, senderAccountNumber: payerAccount, narration: 'Invoice' },
    });
    assert.equal(paid.status, 200, paid.text);
    await eventually(async () => (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body.availableBalance === '10000.00', {
      what: 'the payment confirmed',
    });

    await desk.page.goto(`/dashboard/accounts/${account.AccountRef}`);
    await settled(desk.page);
    const paymentLine = desk.page.getByRole('region', { name: 'Statement entries' }).locator('tbody tr').first();
    await paymentLine.getByRole('button', { name: 'Refund' }).click();
    const dialog = desk.page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.getByTestId('refund-account-name').getByText(payerName).waitFor();
    assert.match(await dialog.getByTestId('refund-destination').innerText(), /The names match\./);
    assert.equal(await dialog.getByTestId('refund-refundable').innerText(), '₦10,000.00');
    assert.equal(await dialog.getByLabel('Amount (naira)').inputValue(), '10000.00');
    await dialog.getByLabel('Amount (naira)').fill('4000');
    await dialog.getByLabel('Reason').fill('customer paid twice');
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await desk.page.getByRole('status').getByText(`₦4,000.00 being refunded to ${payerName}`, { exact: false }).waitFor();

    const transactionGroupId = (await v1('GET', `/v1/accounts/${account.AccountRef}/statement`)).body.lines[0].entry.TransactionGroupId;
    const done = await eventually(
      async () => {
        const listed = (await v1('GET', `/v1/payments/${transactionGroupId}/refunds`)).body;
        return listed.refunds[0]?.status === 'success' ? listed : null;
      },
      { what: 'the refund paid' },
    );
    assert.deepEqual(
      [done.refundable, done.refunds.length, done.refunds[0].amount, done.refunds[0].reason],
      ['6000.00', 1, '4000.00', 'customer paid twice'],
    );
    const atSandbox = (await call(desk.sys.sandboxUrl, 'GET', `/sandbox/transfers/${done.refunds[0].merchantTxRef}`)).body;
    assert.equal(atSandbox.payouts, 1);
    assert.equal(atSandbox.submissions[0].accountNumber, payerAccount);

    // The dialog lists the refund made, and offers what is left.
    await desk.page.reload();
    await settled(desk.page);
    const line = desk.page
      .getByRole('region', { name: 'Statement entries' })
      .locator('tbody tr')
      .filter({ hasText: 'Payment received' })
      .first();
    await line.getByRole('button', { name: 'Refund' }).click();
    const again = desk.page.getByRole('dialog', { name: 'Refund this payment?' });
    await again.getByTestId('refund-refundable').getByText('₦6,000.00').waitFor();
    await again.getByTestId('payment-refunds').getByText('₦4,000.00').waitFor();
    await again.getByRole('button', { name: 'Cancel' }).click();

    const audited = await desk
      .db('audit_log')
      .where({ tenant_id: desk.tenant.tenantId, action: 'payment.refunded' })
      .select('actor', 'detail');
    assert.deepEqual(
      audited.map((row) => [row.actor, row.detail.amount, row.detail.reason]),
      [[desk.user.email, '4000.00', 'customer paid twice']],
    );
    assert.deepEqual(desk.problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });
});
