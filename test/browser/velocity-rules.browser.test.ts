import assert from 'node:assert/strict';
import { call } from '../helpers/http';
import { addOperator, newContext, settled, signIn } from './browser';
import { useDesk } from './desk';

/**
 * The velocity rules page, in a real browser against the real processes: an admin (who may set the rules that move
 * money) sees the API's refusal of a rule that does not hold together, adds a rule over credits and sees it listed,
 * then deletes it; an operator is not offered the page. Each step is checked on the page and then in what the API and
 * the audit log hold.
 */
describe('velocity rules page in a browser', function () {
  const desk = useDesk('Velocity Desk Ltd', { role: 'admin', signedIn: false });

  const rulesOfTenant = async () =>
    (await call(desk.sys.apiUrl, 'GET', '/v1/velocity-rules', { apiKey: desk.tenant.apiKey })).body.data as Array<Record<string, unknown>>;

  it("an admin sees the API's refusal, adds a credit rule and sees it listed, then deletes it; both audited", async () => {
    await signIn(desk.page, desk.user);
    await desk.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Velocity rules' }).click();
    await desk.page.getByRole('heading', { name: 'Velocity rules' }).waitFor();
    await settled(desk.page);
    await desk.page.getByText('No velocity rules: payouts and payments move as the API describes.').waitFor();

    const form = desk.page.getByRole('form', { name: 'Add a velocity rule' });
    await form.getByLabel('Rule over').selectOption('credits');
    await form.getByLabel('Measure').selectOption('count');
    await form.getByLabel('At most (a number)').fill('3');
    await form.getByLabel('Scope').selectOption('customer');
    await form.getByLabel('Window (seconds)').fill('3600');
    assert.deepEqual(await form.getByLabel('Past the rule').locator('option').allInnerTexts(), [
      'Hold the credit until an operator releases it',
    ]);
    // No message: the API refuses the rule and says why; the page shows its words.
    await form.getByRole('button', { name: 'Add rule' }).click();
    const refusal = desk.page.getByTestId('velocity-rule-error');
    await refusal.getByText('a holding rule names the message that says why the credit is held').waitFor();
    assert.deepEqual(await rulesOfTenant(), [], 'nothing stored');
    assert.deepEqual(
      desk.problems.splice(0).filter((problem) => !/status of 400/.test(problem)),
      [],
      "only the refused rule's 400",
    );

    await form.getByLabel('Message').fill('More than three payments an hour: check the payer');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await desk.page.getByRole('status').getByText('Rule added: At most 3 credits per customer').waitFor();
    const rows = desk.page.getByRole('region', { name: 'Velocity rules' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    assert.match(
      await rows.first().innerText(),
      /At most 3 credits per customer \(all of the customer's accounts\) in 1 h\thold\tMore than three payments an hour: check the payer/,
    );
    const [stored] = await rulesOfTenant();
    assert.deepEqual(
      [stored?.subject, stored?.measure, stored?.maxCount, stored?.scope, stored?.windowSeconds, stored?.action, stored?.message],
      ['credits', 'count', 3, 'customer', 3600, 'hold', 'More than three payments an hour: check the payer'],
    );

    await rows.first().getByRole('button', { name: 'Delete' }).click();
    await desk.page.getByRole('dialog', { name: 'Delete this rule?' }).getByRole('button', { name: 'Delete' }).click();
    await desk.page.getByRole('status').getByText('Rule deleted.').waitFor();
    await desk.page.getByText('No velocity rules: payouts and payments move as the API describes.').waitFor();
    assert.deepEqual(await rulesOfTenant(), []);

    const audited = await desk
      .db('audit_log')
      .where({ tenant_id: desk.tenant.tenantId })
      .whereIn('action', ['velocity_rule.created', 'velocity_rule.deleted'])
      .orderBy('id')
      .select('actor', 'action', 'target_id');
    assert.deepEqual(
      audited.map((row) => [row.actor, row.action, row.target_id]),
      [
        [desk.user.email, 'velocity_rule.created', stored?.id],
        [desk.user.email, 'velocity_rule.deleted', stored?.id],
      ],
    );
    assert.deepEqual(desk.problems.splice(0), [], 'no console error, CSP refusal or failed request');
  });

  it('an operator, who may not set the rules that move money, is not offered the page', async () => {
    const operator = await addOperator(desk.db, desk.sys.env, desk.tenant.tenantId, 'operator');
    const operatorContext = await newContext(desk.browser, desk.sys.apiUrl);
    const operatorPage = await operatorContext.newPage();
    await signIn(operatorPage, operator);
    assert.equal(await operatorPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Velocity rules' }).count(), 0);
    await operatorPage.goto('/dashboard/velocity-rules');
    await operatorPage.getByText('Only a user who may set the rules that move money manages velocity rules.').waitFor();
    await operatorContext.close();
  });
});
