import assert from 'node:assert/strict';
import { provision } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { settled } from './browser';
import { useDesk } from './desk';

/**
 * An account's freeze and liens from its page, in a real browser against the real processes: an operator freezes
 * the account for debits and sees it, places a lien and sees what the account may spend fall by exactly its amount,
 * then lifts both. Each step is checked on the page and then in what the API and the audit log hold.
 */
describe('account page in a browser: a freeze and a lien', function () {
  const desk = useDesk('Freeze Desk Ltd', { role: 'operator' });
  const { v1 } = desk;

  it('an operator freezes an account for debits and sees it, places a lien and sees spendable fall by exactly its amount, then lifts both', async () => {
    const account = await provision(desk.sys, desk.tenant.apiKey, { externalRef: 'frozen-shop', name: 'Tunde Stores' });
    const payment = await call(desk.sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 10_000, fee: 0, senderName: 'TOLU ADEWALE', narration: 'Invoice' },
    });
    assert.equal(payment.status, 200, payment.text);
    await eventually(async () => (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body.availableBalance === '10000.00', {
      what: 'the payment confirmed',
    });

    await desk.page.goto(`/dashboard/accounts/${account.AccountRef}`);
    await settled(desk.page);
    const spendable = desk.page.getByTestId('account-spendable');
    assert.equal(await spendable.innerText(), '₦10,000.00');

    // Freeze for debits, with a reason and a note.
    const freezeSection = desk.page.getByRole('region', { name: 'Freeze', exact: true });
    await freezeSection.getByText('Not frozen: money arrives and leaves as usual.').waitFor();
    await freezeSection.getByRole('button', { name: 'Freeze account' }).click();
    const freezeForm = freezeSection.getByRole('form', { name: 'Freeze' });
    await freezeForm.getByLabel('Frozen for').selectOption('debits');
    await freezeForm.getByLabel('Reason').selectOption('fraud_review');
    await freezeForm.getByLabel('Note (optional, kept in the audit log)').fill('recall from the payer bank');
    await freezeForm.getByRole('button', { name: 'Freeze', exact: true }).click();
    await freezeSection.getByRole('status').getByText('Account frozen for debits.').waitFor();
    await desk.page.getByTestId('account-freeze').getByText('Frozen for debits').waitFor();
    assert.match(
      await desk.page.getByTestId('account-freeze').innerText(),
      /\(Fraud review\).*no money leaves the account; payments still arrive/,
    );
    const frozen = (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body.freeze;
    assert.deepEqual([frozen?.frozenFor, frozen?.reason], ['debits', 'fraud_review']);
    const refused = await v1('POST', `/v1/accounts/${account.AccountRef}/settle`, {
      amount: '1.00',
      bankCode: '058',
      accountNumber: '0123456789',
    });
    assert.deepEqual([refused.status, refused.body.code], [409, 'account_frozen'], refused.text);

    // A lien of 2,500.50: the account may spend exactly that much less.
    const liensSection = desk.page.getByRole('region', { name: 'Liens', exact: true });
    await liensSection.getByText('No lien: nothing is set aside on this account.').waitFor();
    await liensSection.getByRole('button', { name: 'Place a lien' }).click();
    const lienForm = liensSection.getByRole('form', { name: 'Lien' });
    await lienForm.getByLabel('Amount (naira)').fill('2500.50');
    await lienForm.getByLabel('Reason').selectOption('dispute');
    await lienForm.getByRole('button', { name: 'Place lien' }).click();
    await liensSection.getByRole('status').getByText('Lien of ₦2,500.50 placed.').waitFor();
    const lienRows = desk.page.getByTestId('account-liens').locator('tbody tr');
    await lienRows.first().waitFor();
    assert.match(await lienRows.first().innerText(), /Dispute\tWhen lifted\t₦2,500\.50\tLift/);
    await desk.page.getByTestId('account-spendable').getByText('₦7,499.50').waitFor();
    assert.match(await desk.page.getByTestId('account-reserved').innerText(), /Lien: ₦2,500\.50/);
    const withLien = (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body;
    assert.deepEqual([withLien.heldBalance, withLien.reserved.lien], ['2500.50', '2500.50']);

    // Lift the lien, then the freeze.
    await lienRows.first().getByRole('button', { name: 'Lift' }).click();
    await desk.page.getByRole('dialog', { name: 'Lift the lien?' }).getByRole('button', { name: 'Lift lien' }).click();
    await liensSection.getByRole('status').getByText('Lien lifted; ₦2,500.50 released.').waitFor();
    await liensSection.getByText('No lien: nothing is set aside on this account.').waitFor();
    await desk.page.getByTestId('account-spendable').getByText('₦10,000.00').waitFor();

    await freezeSection.getByRole('button', { name: 'Lift freeze' }).click();
    await desk.page.getByRole('dialog', { name: 'Lift the freeze?' }).getByRole('button', { name: 'Lift freeze' }).click();
    await freezeSection.getByRole('status').getByText('Freeze lifted; ₦0.00 of held credits released.').waitFor();
    await freezeSection.getByText('Not frozen: money arrives and leaves as usual.').waitFor();
    const lifted = (await v1('GET', `/v1/accounts/${account.AccountRef}/balance`)).body;
    assert.deepEqual([lifted.freeze, lifted.heldBalance, lifted.reserved.lien], [null, '0.00', '0.00']);

    const audited = await desk
      .db('audit_log')
      .where({ tenant_id: desk.tenant.tenantId })
      .whereIn('action', ['account.frozen', 'account.unfrozen', 'account.lien_placed', 'account.lien_lifted'])
      .orderBy('id')
      .select('actor', 'action', 'detail');
    assert.deepEqual(
      audited.map((row) => [row.actor, row.action, row.detail.note ?? row.detail.amount ?? row.detail.released ?? null]),
      [
        [desk.user.email, 'account.frozen', 'recall from the payer bank'],
        [desk.user.email, 'account.lien_placed', '2500.50'],
        [desk.user.email, 'account.lien_lifted', '2500.50'],
        [desk.user.email, 'account.unfrozen', '0.00'],
      ],
    );
    assert.deepEqual(desk.problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });
});
