import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { provision } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { assertAccessible, settled } from './browser';
import { useDesk } from './desk';

/** A two-decimal amount as the dashboard shows it: ₦1,234.50. */
const naira = (amount: string): string => {
  const [whole = '0', fraction = '00'] = amount.split('.');
  return `₦${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
};

/** An instant as a datetime-local input takes it in Lagos (to the second): 2026-11-30T23:59:59. */
const lagosInput = (at: Date): string =>
  new Intl.DateTimeFormat('sv-SE', { timeZone: 'Africa/Lagos', dateStyle: 'short', timeStyle: 'medium' }).format(at).replace(' ', 'T');

/**
 * Searching by metadata and the balance history, in a real browser against the real processes: two accounts tagged
 * over the API, the Accounts page filtered by one tag shows exactly that account (and its page its metadata); the
 * account's balance as of an instant before and after a payment, and its day in the daily balances.
 */
describe('dashboard in a browser: metadata search and balance history', function () {
  const desk = useDesk('Metadata Search Ltd', { role: 'operator' });

  const v1 = (path: string) => desk.v1('GET', path);

  async function open(url: string): Promise<void> {
    await desk.page.goto(url);
    await settled(desk.page);
  }

  it('filters the accounts by a metadata key and value, showing exactly the tagged account, and its metadata on its page', async () => {
    const orderId = `A-${randomUUID().slice(0, 8)}`;
    const tagged = await provision(desk.sys, desk.tenant.apiKey, { name: 'Tagged Obi', metadata: { orderId, loan: 'L-9' } });
    const otherTag = await provision(desk.sys, desk.tenant.apiKey, {
      name: 'Other Obi',
      metadata: { orderId: `${orderId}-2`, loan: 'L-9' },
    });
    await provision(desk.sys, desk.tenant.apiKey, { name: 'Untagged Obi' });

    await open('/dashboard/accounts');
    await desk.page.getByLabel('Metadata key').fill('orderId');
    await desk.page.getByLabel('Metadata value').fill(orderId);
    await desk.page.getByRole('button', { name: 'Search' }).click();
    await desk.page.waitForURL(/metaKey=orderId/);
    await settled(desk.page);
    const rows = desk.page.getByRole('region', { name: 'Accounts' }).locator('tbody tr');
    assert.deepEqual(await rows.locator('td:first-child').allInnerTexts(), [tagged.AccountRef]);
    await assertAccessible(desk.page, 'accounts filtered by metadata');

    // A tag both accounts share lists both; a value nobody has, none.
    await open('/dashboard/accounts?metaKey=loan&metaValue=L-9');
    assert.deepEqual((await rows.locator('td:first-child').allInnerTexts()).sort(), [tagged.AccountRef, otherTag.AccountRef].sort());
    await open('/dashboard/accounts?metaKey=loan&metaValue=L-10');
    await desk.page.getByText('No account matches metadata loan = “L-10”.').waitFor();
    // The transfers list takes the same filter (no transfer carries this tag).
    await open(`/dashboard/transfers?metaKey=orderId&metaValue=${orderId}`);
    await desk.page.getByText(`No transfer carries metadata orderId = “${orderId}”.`).waitFor();
    await assertAccessible(desk.page, 'transfers filtered by metadata');

    await open(`/dashboard/accounts/${tagged.AccountRef}`);
    const metadata = desk.page.getByTestId('metadata');
    const [keys, values] = [await metadata.locator('dt').allInnerTexts(), await metadata.locator('dd').allInnerTexts()];
    // Shown in the order Postgres keeps the keys (jsonb's own), each key beside its value.
    assert.deepEqual(Object.fromEntries(keys.map((key, index) => [key, values[index]])), { orderId, loan: 'L-9' });
    assert.deepEqual(desk.problems.splice(0), []);
  });

  it("shows the account's balance as of an instant before and after a payment, and its day's balances", async () => {
    const account = await provision(desk.sys, desk.tenant.apiKey, { name: 'History Obi' });
    // The inputs take whole seconds: the instant before is this second's start, before the payment is posted.
    const before = new Date(Math.floor(Date.now() / 1000) * 1000);
    const paid = await call(desk.sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 2500, senderName: 'TOLU ADEWALE', narration: 'Invoice' },
    });
    assert.equal(paid.status, 200, paid.text);
    const balance = await eventually(
      async () => {
        const now = (await v1(`/v1/accounts/${account.AccountRef}/balance`)).body;
        return now.ledgerBalance !== '0.00' && now;
      },
      { what: 'the payment credited' },
    );
    // The instant after: the next whole second once the credit is posted, and not in the future when asked.
    const after = new Date(Math.ceil(Date.now() / 1000) * 1000);
    await eventually(async () => Date.now() >= after.getTime(), { what: 'the instant after to pass', intervalMs: 100 });

    await open(`/dashboard/accounts/${account.AccountRef}`);
    const asOf = desk.page.getByLabel('As of (Lagos time)');
    const shown = desk.page.getByTestId('balance-as-of-ledger');
    await asOf.fill(lagosInput(before));
    await desk.page.getByRole('button', { name: 'Show balance' }).click();
    await settled(desk.page);
    assert.equal(await shown.innerText(), '₦0.00');
    const atAfter = (await v1(`/v1/accounts/${account.AccountRef}/balance?at=${encodeURIComponent(after.toISOString())}`)).body;
    assert.equal(atAfter.ledgerBalance, balance.ledgerBalance);
    await asOf.fill(lagosInput(after));
    await desk.page.getByRole('button', { name: 'Show balance' }).click();
    await eventually(async () => (await shown.innerText()) === naira(atAfter.ledgerBalance), {
      what: 'the balance after the payment shown',
    });

    const today = lagosInput(new Date()).slice(0, 10);
    await desk.page.getByLabel('First day').fill(today);
    await desk.page.getByLabel('Last day (included)').fill(today);
    await desk.page.getByRole('button', { name: 'Show days' }).click();
    await settled(desk.page);
    const days = (await v1(`/v1/accounts/${account.AccountRef}/daily-balances?from=${today}&to=${today}`)).body.days;
    const cells = await desk.page.getByTestId('daily-balances').locator('tbody tr').first().locator('td').allInnerTexts();
    assert.deepEqual(cells.slice(1), [
      naira(days[0].openingBalance),
      naira(days[0].credits),
      naira(days[0].debits),
      naira(days[0].closingBalance),
    ]);
    await assertAccessible(desk.page, 'account balance history');
    assert.deepEqual(desk.problems.splice(0), []);
  });
});
