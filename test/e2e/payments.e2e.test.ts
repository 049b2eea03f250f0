import assert from 'node:assert/strict';
import { paymentEvent } from '../helpers/fixtures';
import { call, eventually } from '../helpers/http';
import { signProviderEvent } from '../../src/provider/spec-provider/webhook-signature';
import { createTemporalClient } from '../../src/temporal/client';
import { system } from './system';
import { cliTenant, provision, statementLines } from './tenant';
import { paymentConfirmationBatchWorkflowId } from '../../src/contracts/payment-confirmation.contract';
import { keptWaitingPastItsWindow } from '../helpers/confirmation';

describe('e2e: payments from the sandbox to the statement', () => {
  it('shows a sandbox payment as provisional, then confirmed within seconds', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    const sent = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, senderName: 'BOLA ADE' },
    });
    assert.equal(sent.body.delivery.status, 200);
    const first = await statementLines(sys, tenant.apiKey, account.AccountRef);
    assert.equal(first.length, 1);
    assert.ok(['provisional', 'confirmed'].includes(first[0]!.entry.Status!));
    assert.deepEqual([first[0]!.entry.Amount, first[0]!.entry.Fee, first[0]!.entry.Narration], ['5000.00', '25.00', 'BOLA ADE']);
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]!.entry.Status === 'confirmed', {
      what: 'confirmation',
    });
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
      { what: 'the reversal' },
    );
    assert.deepEqual(
      lines.map((line) => [line.entry.Kind, line.entry.Direction, line.entry.Status, line.runningBalance]),
      [
        ['payment', 'credit', 'reversed', '1000.00'],
        ['reversal', 'debit', 'confirmed', '0.00'],
      ],
    );
  });

  it("with the provider's lookup lag shorter than the window, the credit ends confirmed, not reversed", async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    await call(sys.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025, lookupLagMs: 2_500 } });
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', {
      what: 'confirmation',
    });
    assert.equal((await statementLines(sys, tenant.apiKey, account.AccountRef)).length, 1, 'no reversal entry');
  });

  it('a payment the provider shows PROCESSING past the window stays provisional, then confirms', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    // PROCESSING at the provider until the test says otherwise.
    const sent = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, status: 'PROCESSING' },
    });
    // Its batch looks it up after the 4 s window is over and keeps it: the credit waits, provisional.
    const temporal = createTemporalClient({
      TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!,
      TEMPORAL_NAMESPACE: sys.env.TEMPORAL_NAMESPACE ?? 'default',
    });
    try {
      await keptWaitingPastItsWindow(temporal, sent.body.transactionId);
    } finally {
      await temporal.connection.close();
    }
    const waiting = await statementLines(sys, tenant.apiKey, account.AccountRef);
    assert.deepEqual(
      waiting.map((line) => line.entry.Status),
      ['provisional'],
    );
    await call(sys.sandboxUrl, 'POST', `/sandbox/payments/${sent.body.transactionId}/status`, { body: { status: 'SUCCESS' } });
    await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', {
      what: 'confirmation',
    });
    assert.equal((await statementLines(sys, tenant.apiKey, account.AccountRef)).length, 1, 'no reversal entry');
  });

  it('a batch confirmation terminated by an operator releases its payment to the convergence check; a new batch confirms it', async () => {
    const sys = await system();
    const tenant = await cliTenant(sys);
    const account = await provision(sys, tenant.apiKey);
    // PROCESSING at the provider until the test says otherwise: the batch still runs when it is terminated.
    const sent = await call(sys.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 5025, status: 'PROCESSING' },
    });
    const temporal = createTemporalClient({
      TEMPORAL_ADDRESS: sys.env.TEMPORAL_ADDRESS!,
      TEMPORAL_NAMESPACE: sys.env.TEMPORAL_NAMESPACE ?? 'default',
    });
    const batchesOf = async (): Promise<Array<{ workflowId: string; status: string }>> => {
      const found: Array<{ workflowId: string; status: string }> = [];
      for await (const execution of temporal.workflow.list({ query: `ProviderTxnRefs = '${sent.body.transactionId}'` }))
        found.push({ workflowId: execution.workflowId, status: execution.status.name });
      return found;
    };
    try {
      // Found the way an operator would: by the payment's provider reference, in the batch's keyword list.
      const [running] = await eventually(
        async () => {
          const found = (await batchesOf()).filter((execution) => execution.status === 'RUNNING');
          return found.length > 0 ? found : null;
        },
        { what: 'the batch to be listed by ProviderTxnRefs' },
      );
      assert.match(running!.workflowId, new RegExp(`^${paymentConfirmationBatchWorkflowId('')}`));
      await temporal.workflow.getHandle(running!.workflowId).terminate('operator terminated it');
      // The provider says SUCCESS only once the convergence check has released the payment to a new batch. Before
      // that, a round of the terminated batch still running on the worker (it learns of the termination
      // when it next reports) holds the claim and could confirm the payment itself, which is right for the
      // money but is not what this test is about.
      const [successor] = await eventually(
        async () => {
          const found = (await batchesOf()).filter(
            (execution) => execution.status === 'RUNNING' && execution.workflowId !== running!.workflowId,
          );
          return found.length > 0 ? found : null;
        },
        { what: 'a new batch holding the released payment' },
      );
      await call(sys.sandboxUrl, 'POST', `/sandbox/payments/${sent.body.transactionId}/status`, { body: { status: 'SUCCESS' } });
      await eventually(async () => (await statementLines(sys, tenant.apiKey, account.AccountRef))[0]?.entry.Status === 'confirmed', {
        what: 'the released payment confirmed by a new batch',
      });
      const all = await eventually(
        async () => {
          const found = await batchesOf();
          return found.some((execution) => execution.workflowId === successor!.workflowId && execution.status === 'COMPLETED')
            ? found
            : null;
        },
        { what: 'the new batch completed in visibility' },
      );
      assert.ok(all.some((execution) => execution.workflowId === running!.workflowId && execution.status === 'TERMINATED'));
      assert.equal((await statementLines(sys, tenant.apiKey, account.AccountRef)).length, 1, 'no reversal entry');
    } finally {
      await temporal.connection.close();
    }
  });
});
