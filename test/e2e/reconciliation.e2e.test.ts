import assert from 'node:assert/strict';
import { call, eventually } from '../helpers/http';
import { startReceiver } from '../helpers/receiver';
import { system } from './system';
import { cliTenant, provision, statementLines } from './tenant';

describe('e2e: reconciliation from the CLI', () => {
  it('credits a payment whose webhook the provider never sent (`reconcile`), delivers its webhook, and a second run changes nothing', async () => {
    const sys = await system();
    const receiver = await startReceiver([200]);
    try {
      const tenant = await cliTenant(sys);
      const account = await provision(sys, tenant.apiKey, { callbackUrl: receiver.url });
      const from = new Date(Date.now() - 1_000).toISOString();
      const paid = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
        body: { accountRef: account.AccountRef, amount: 2010, senderName: 'CHIDI EZE', suppressWebhook: true },
      });
      assert.equal(paid.status, 200);
      assert.deepEqual(await statementLines(sys, tenant.apiKey, account.AccountRef), []);

      const first = JSON.parse(await sys.cli('reconcile', '--from', from, '--json')) as {
        run: Record<string, any>;
        findings: Record<string, number>;
      };
      assert.equal(first.run.Status, 'succeeded');
      assert.equal(first.findings.missing_credit, 1);
      const [line] = await statementLines(sys, tenant.apiKey, account.AccountRef);
      assert.deepEqual(
        [line?.entry.ProviderTxnRef, line?.entry.Amount, line?.entry.Narration],
        [paid.body.transactionId, '2000.00', 'CHIDI EZE'],
      );
      await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', {
        what: 'confirmation',
      });
      await eventually(async () => receiver.calls.length === 1, { what: 'the payment.received delivery' });
      assert.equal(JSON.parse(receiver.calls[0]!.body).gross_amount, '2010.00');

      const second = await sys.cli('reconcile', '--from', from);
      assert.match(second, /succeeded/);
      assert.match(second, /repaired 0,/);
      assert.doesNotMatch(second, /missing_credit/);
      assert.equal((await statementLines(sys, tenant.apiKey, account.AccountRef)).length, 1);
      const runs = await call(sys.apiUrl, 'GET', '/v1/reconciliation/runs', { apiKey: tenant.apiKey });
      assert.deepEqual(
        runs.body.runs.map((run: { Trigger: string; Repaired: number; Status: string }) => [run.Trigger, run.Status, run.Repaired]),
        [
          ['cli', 'succeeded', 0],
          ['cli', 'succeeded', 1],
        ],
      );
      assert.deepEqual((JSON.parse(await sys.cli('ledger:verify', '--json')) as { problems: unknown[] }).problems, []);
    } finally {
      await receiver.close();
    }
  });
});
