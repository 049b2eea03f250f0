import assert from 'node:assert/strict';
import { uuidv7 } from '../../../src/ids';
import { fromLookup } from '../../../src/reconciliation/provider-rows';
import { createReconciliationMatchingRepo, pageOfRows } from '../../../src/reconciliation/reconciliation-matching.repo';
import { createReconciliationRunsRepo } from '../../../src/reconciliation/reconciliation-runs.repo';
import { fundAccount, provisionAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

const DESTINATION = { bankCode: '058', accountNumber: '0123456789' };

/**
 * A single lookup's answer and the ledger's state are read at different moments: a payout can be paid
 * between the two (a lookup that lags, a run that waited for the provider). Only an answer asked after
 * the ledger paid it is held against the ledger.
 */
describe('reconciliation: a lookup answer is judged against what the ledger did before it was asked', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let paidRef: string;
  let paidAt: Date;
  before(async () => {
    stack = await startStack({}, { worker: true });
    tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 500_000n);
    const settled = await call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, {
      apiKey: tenant.apiKey,
      body: { amount: '1000.00', ...DESTINATION },
    });
    assert.equal(settled.status, 202, settled.text);
    await eventually(
      async () =>
        (await call(stack.apiUrl, 'GET', `/v1/transfers/${settled.body.merchantTxRef}`, { apiKey: tenant.apiKey })).body.status ===
        'success',
      { what: 'the payout' },
    );
    const attempt = await stack.infra
      .db('settlement_attempts')
      .where({ outcome: 'success' })
      .whereLike('provider_ref', `${settled.body.merchantTxRef}-%`)
      .first();
    paidRef = attempt.provider_ref;
    paidAt = attempt.updated_at;
  });
  after(() => stack.close());

  async function outcomeOf(askedFrom: Date): Promise<string> {
    const runId = uuidv7();
    await createReconciliationRunsRepo(stack.infra.db).insert({
      id: runId,
      tenantId: tenant.tenantId,
      trigger: 'tenant',
      windowFrom: new Date(Date.now() - 3_600_000),
      windowTo: new Date(),
      workflowId: `test:${runId}`,
    });
    const page = pageOfRows([fromLookup({ kind: 'attempt', providerRef: paidRef }, null)]);
    await createReconciliationMatchingRepo(stack.infra.db).stagePage({ id: runId, scopeTenantId: tenant.tenantId }, page, {
      graceSeconds: 0,
      lookedUp: true,
      askedFrom,
    });
    const row = await stack.infra.db('reconciliation_provider_rows').where({ run_id: runId }).first('outcome');
    return row.outcome;
  }

  it('holds "not found" against a payout the ledger paid before the lookup was asked', async () => {
    assert.equal(await outcomeOf(new Date(paidAt.getTime() + 1_000)), 'settlement_not_at_provider');
  });

  it('leaves in flight a payout the ledger paid after the lookup was asked, for the next run to ask again', async () => {
    assert.equal(await outcomeOf(new Date(paidAt.getTime() - 1_000)), 'in_flight');
  });
});
