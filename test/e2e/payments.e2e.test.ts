import assert from 'node:assert/strict';
import { paymentEvent } from '../helpers/fixtures';
import { call, eventually } from '../helpers/http';
import { signProviderEvent } from '../../src/payments/provider-signature';
import { createTemporalClient } from '../../src/temporal/client';
import { paymentConfirmationWorkflowId } from '../../src/temporal/workflow-ids';
import { system } from './system';
import { cliTenant, provision, statementLines } from './tenant';

describe('e2e: payments from the sandbox to the statement', () => {
  it('shows a sandbox payment as provisional, then confirmed within seconds', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    const sent = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025, senderName: 'BOLA ADE' } });
    assert.equal(sent.body.delivery.status, 200);
    const first = await statementLines(sys, tenant.apiKey, account.AccountRef);
    assert.equal(first.length, 1);
    assert.ok(['provisional', 'confirmed'].includes(first[0]!.entry.Status!));
    assert.deepEqual([first[0]!.entry.Amount, first[0]!.entry.Fee, first[0]!.entry.Narration], ['5000.00', '25.00', 'BOLA ADE']);
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]!.entry.Status === 'confirmed', { timeoutMs: 15_000, what: 'confirmation' });
  });

  it('reverses a webhook for a transaction the provider never saw, keeping the original visible', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    const payload = paymentEvent({ accountRef: account.AccountRef, amount: 1010, fee: 10 });
    const timestamp = new Date().toISOString();
    const secret = sys.env.PROVIDER_WEBHOOKS_SIGNING_SECRET ?? 'sk_sandbox_provider_local_dev';
    const response = await call(sys.apiUrl, 'POST', '/webhooks/provider', {
      rawBody: JSON.stringify(payload),
      headers: { 'provider-signature': signProviderEvent(secret, payload, timestamp), 'provider-timestamp': timestamp },
    });
    assert.equal(response.status, 200);
    const lines = await eventually(
      async () => {
        const current = await statementLines(sys, tenant.apiKey, account.AccountRef);
        return current.length === 2 ? current : null;
      },
      { timeoutMs: 20_000, what: 'the reversal' },
    );
    assert.deepEqual(
      lines.map((line) => [line.entry.Kind, line.entry.Direction, line.entry.Status, line.runningBalance]),
      [
        ['payment', 'credit', 'reversed', '1000.00'],
        ['reversal', 'debit', 'confirmed', '0.00'],
      ],
    );
  });

  it('with the provider\'s lookup lag shorter than the window, the credit ends confirmed, not reversed', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025, lookupLagMs: 2_500 } });
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', { timeoutMs: 20_000, what: 'confirmation' });
    assert.equal((await statementLines(sys, tenant.apiKey, account.AccountRef)).length, 1, 'no reversal entry');
  });

  it('a payment the provider shows PROCESSING past the window stays provisional, then confirms', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025, processingMs: 8_000 } });
    // The 4 s window is over: the credit waits, provisional.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const waiting = await statementLines(sys, tenant.apiKey, account.AccountRef);
    assert.deepEqual(
      waiting.map((line) => line.entry.Status),
      ['provisional'],
    );
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', { timeoutMs: 25_000, what: 'confirmation' });
    assert.equal((await statementLines(sys, tenant.apiKey, account.AccountRef)).length, 1, 'no reversal entry');
  });

  it('a confirmation terminated by an operator is restarted by the sweep and completes', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025, processingMs: 6_000 } });
    const [line] = await statementLines(sys, tenant.apiKey, account.AccountRef);
    const temporal = createTemporalClient({ TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!, TEMPORAL_NAMESPACE: sys.env.TEMPORAL_NAMESPACE ?? 'default' });
    try {
      const handle = temporal.workflow.getHandle(paymentConfirmationWorkflowId(line!.entry.ID!));
      const terminated = await eventually(
        async () => {
          const described = await handle.describe();
          return described.status.name === 'RUNNING' ? described.runId : null;
        },
        { timeoutMs: 20_000, what: 'the confirmation to run' },
      );
      await handle.terminate('operator terminated it');
      await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', { timeoutMs: 30_000, what: 'the restarted confirmation' });
      const latest = await handle.describe();
      assert.notEqual(latest.runId, terminated);
      assert.equal(latest.status.name, 'COMPLETED');
    } finally {
      await temporal.connection.close();
    }
  });
});
