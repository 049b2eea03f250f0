import assert from 'node:assert/strict';
import { createKnex, type Db } from '../../src/db';
import { cliTenant, provision, statementLines } from '../e2e/tenant';
import { call, eventually } from '../helpers/http';
import { startSystem, type RunningSystem } from '../helpers/processes';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../helpers/throwaway-postgres';
import { assertLedgerVerifies, cleanUp, countOf, RESILIENCE_TIMINGS } from './scenario-steps';

describe('resilience: Postgres stopped while a payment webhook arrives', () => {
  let postgres: ThrowawayPostgres | undefined;
  let sys: RunningSystem | undefined;
  let db: Db | undefined;

  after(async () => {
    await cleanUp(
      () => sys?.stop(),
      () => db?.destroy(),
      () => postgres?.destroy(),
    );
  });

  it('answers 503 and writes nothing; once Postgres is back, the provider redelivery is recorded exactly once and confirmed', async () => {
    postgres = await startThrowawayPostgres();
    sys = await startSystem({ ...RESILIENCE_TIMINGS, DATABASE_URL: postgres.url });
    const running = sys;
    db = createKnex({ DATABASE_URL: postgres.url, DATABASE_POOL_MAX: 2 });
    const { apiKey } = await cliTenant(running, 'Resilience Postgres outage');
    const account = await provision(running, apiKey);

    await postgres.stop();
    const sent = await call(running.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5_025 } });
    assert.equal(sent.body.delivery.status, 503, JSON.stringify(sent.body.delivery));
    const requestId = sent.body.requestId as string;
    const tenantCall = await call(running.apiUrl, 'GET', '/v1/me', { apiKey });
    assert.equal(tenantCall.status, 503, `the tenant API during the outage: ${tenantCall.status} ${tenantCall.text}`);

    await postgres.start();
    // Nothing of the refused webhook was written: no event, no entry, no workflow waiting to start.
    assert.equal(await countOf(db('inbound_events').where({ request_id: requestId })), 0);
    assert.equal(await countOf(db('ledger_entries').where({ account_id: account.ID })), 0);
    assert.equal(await countOf(db('workflow_outbox').whereRaw("search_attributes->>'AccountRef' = ?", [account.AccountRef])), 0);

    const redelivered = await call(running.sandboxUrl, 'POST', '/sandbox/webhooks/redeliver', { body: { requestId } });
    assert.equal(redelivered.body.delivery.status, 200, JSON.stringify(redelivered.body.delivery));
    const lines = await eventually(
      async () => {
        const current = await statementLines(running, apiKey, account.AccountRef);
        return current[0]?.entry.Status === 'confirmed' ? current : null;
      },
      { what: 'the redelivered payment to be confirmed' },
    );
    assert.deepEqual(
      lines.map((line) => [line.entry.Kind, line.entry.Amount, line.entry.Status, line.runningBalance]),
      [['payment', '5000.00', 'confirmed', '5000.00']],
    );
    // A second redelivery is a duplicate: answered 200, nothing more recorded.
    const again = await call(running.sandboxUrl, 'POST', '/sandbox/webhooks/redeliver', { body: { requestId } });
    assert.equal(again.body.delivery.status, 200);
    assert.equal(await countOf(db('inbound_events').where({ request_id: requestId })), 1);
    assert.equal((await statementLines(running, apiKey, account.AccountRef)).length, 1);
    await assertLedgerVerifies(running.env);
  });
});
