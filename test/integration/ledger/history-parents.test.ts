import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { fundAccount, provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { rolledBack } from '../../helpers/rolled-back';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

// The ledger's history names its tenant and account without a foreign key (whose check would share-lock both
// rows from every payment): Postgres refuses to delete a tenant or an account that has history instead, and
// ledger:verify names any row whose tenant or account is missing.
describe('the ledger: the tenants and accounts its history names', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let funded: ProvisionedAccount;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
    funded = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, funded.ID, 500_00n);
  });
  after(() => stack.close());

  it('refuses to delete, renumber or truncate an account or a tenant with ledger history', async () => {
    const db = stack.infra.db;
    await assert.rejects(db('virtual_accounts').where({ id: funded.ID }).delete(), /account .* has ledger history: DELETE refused/);
    await assert.rejects(
      db('virtual_accounts').where({ id: funded.ID }).update({ id: randomUUID() }),
      /account .* has ledger history: UPDATE refused/,
    );
    await assert.rejects(db.raw('TRUNCATE virtual_accounts CASCADE'), /virtual_accounts holds the parents of ledger history/);
    await assert.rejects(db.raw('TRUNCATE tenants CASCADE'), /tenants holds the parents of ledger history/);
    // Refused before any foreign key of the tenant's other rows (its API keys, its accounts) is looked at.
    await assert.rejects(db('tenants').where({ id: tenant.tenantId }).delete(), /tenant .* has ledger history: DELETE refused/);
    assert.ok(await db('virtual_accounts').where({ id: funded.ID }).first());
  });

  it('lets an account with no history go', async () => {
    const unused = await provisionAccount(stack, tenant.apiKey);
    await rolledBack(stack, async (trx) => {
      assert.equal(await trx('virtual_accounts').where({ id: unused.ID }).delete(), 1);
    });
  });

  it('ledger:verify names a history row whose tenant or account does not exist', async () => {
    assert.deepEqual(await createLedgerVerificationRepo(stack.infra.db).problems(), []);
    const missingTenant = randomUUID();
    const missingAccount = randomUUID();
    await rolledBack(stack, async (trx) => {
      const transactionId = randomUUID();
      await trx('ledger_system_posting_rows').insert([
        { transaction_id: transactionId, account: 'clearing', tenant_id: missingTenant, kind: 'payout', amount: 100, reference: 'orphan' },
        { transaction_id: transactionId, account: 'costs', tenant_id: missingTenant, kind: 'payout', amount: -100, reference: 'orphan' },
      ]);
      const eventId = randomUUID();
      await trx('tenant_events').insert({
        id: eventId,
        tenant_id: missingTenant,
        type: 'test',
        subject: 'orphan',
        sequence: 1,
        data: '{}',
      });
      // An entry naming an account that does not exist, balanced by a system posting in the same statement.
      const entryId = randomUUID();
      await trx.raw(
        `WITH e AS (
           INSERT INTO ledger_entries (id, tenant_id, account_id, seq, direction, kind, amount, status, provider_txn_ref,
                                       transaction_group_id, balance_after, credits_to_date, debits_to_date, created_at, transaction_id)
           VALUES (:entryId, :tenantId, :missingAccount, 1, 'credit', 'payment', 100, 'confirmed', :entryId, :entryId, 100, 100, 0, now(), :entryId)
           RETURNING 1
         ), x AS (
           INSERT INTO ledger_system_posting_rows (transaction_id, account, tenant_id, kind, amount, reference)
           VALUES (:entryId, 'clearing', :tenantId, 'payment', -100, 'orphan') RETURNING 1
         ) SELECT 1`,
        { entryId, tenantId: tenant.tenantId, missingAccount },
      );
      const orphans = (await createLedgerVerificationRepo(trx).problems()).filter((problem) => problem.check === 'orphan_references');
      const details = orphans.map((problem) => problem.detail);
      assert.ok(
        details.includes(`ledger_system_posting_rows row ${transactionId}/clearing names tenant ${missingTenant}, which does not exist`),
        details.join('\n'),
      );
      assert.ok(details.includes(`tenant_events row ${eventId} names tenant ${missingTenant}, which does not exist`), details.join('\n'));
      assert.ok(
        details.includes(`ledger_entries row ${entryId} names account ${missingAccount}, which does not exist`),
        details.join('\n'),
      );
      assert.equal(orphans.length, 4, details.join('\n'));
    });
  });

  it('ledger:verify names an inbound event or a payment variance whose entry does not exist', async () => {
    const missingEntry = randomUUID();
    await rolledBack(stack, async (trx) => {
      const eventId = randomUUID();
      await trx('inbound_events').insert({
        id: eventId,
        category: 'payment',
        signature_valid: true,
        tenant_id: tenant.tenantId,
        account_id: funded.ID,
        entry_id: missingEntry,
      });
      await trx('ledger_payment_variances').insert({
        entry_id: missingEntry,
        tenant_id: tenant.tenantId,
        account_id: funded.ID,
        expected_amount: 100,
        amount_received: 90,
        variance: 'under',
        action: 'flagged',
        closes_account: false,
      });
      const details = (await createLedgerVerificationRepo(trx).problems())
        .filter((problem) => problem.check === 'orphan_references')
        .map((problem) => problem.detail);
      assert.deepEqual(details.sort(), [
        `inbound_events row ${eventId} names entry ${missingEntry}, which does not exist`,
        `ledger_payment_variances row ${missingEntry} names entry ${missingEntry}, which does not exist`,
      ]);
    });
  });
});
