import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { accountHolderName } from '../../../src/sandbox/names';
import { fundAccount, provisionAccount, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { magicAccountNumber } from '../../helpers/sandbox-values';

/** A destination no other test names, whose ending picks no sandbox outcome: it pays at the first status check. */
const freshAccountNumber = (): string => `${String(randomInt(100_000, 1_000_000))}0001`;

interface Beneficiary {
  id: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  nickname: string | null;
  nameCheckedAt: string;
  createdAt: string;
}

describe('saved beneficiaries', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let other: TestTenant;
  before(async () => {
    stack = await startStack({}, { worker: true });
    tenant = await createTenant(stack);
    other = await createTenant(stack, 'Other');
  });
  after(() => stack.close());

  const save = (body: Record<string, unknown>, apiKey = tenant.apiKey) =>
    call<Beneficiary>(stack.apiUrl, 'POST', '/v1/beneficiaries', { apiKey, body });
  const get = (id: string, apiKey = tenant.apiKey) => call(stack.apiUrl, 'GET', `/v1/beneficiaries/${id}`, { apiKey });
  const remove = (id: string, apiKey = tenant.apiKey) => call(stack.apiUrl, 'DELETE', `/v1/beneficiaries/${id}`, { apiKey });
  const settle = (
    account: ProvisionedAccount,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    apiKey = tenant.apiKey,
  ) => call(stack.apiUrl, 'POST', `/v1/accounts/${account.AccountRef}/settle`, { apiKey, body, headers });
  const renameAtBank = (accountNumber: string, accountName: string | null) =>
    call(stack.sandboxUrl, 'PUT', `/sandbox/accounts/${accountNumber}/name`, { body: { accountName } });
  const beneficiaryRow = (id: string) => stack.infra.db('beneficiaries').where({ id }).first();
  /** Makes the saved name check older than BENEFICIARY_NAME_MAX_AGE (24 h). */
  const makeStale = (id: string) =>
    stack.infra
      .db('beneficiaries')
      .where({ id })
      .update({ name_checked_at: stack.infra.db.raw("now() - interval '25 hours'") });

  async function savedBeneficiary(nickname?: string): Promise<Beneficiary> {
    const saved = await save({ bankCode: '058', accountNumber: freshAccountNumber(), ...(nickname ? { nickname } : {}) });
    assert.equal(saved.status, 201, saved.text);
    return saved.body;
  }

  async function fundedAccount(): Promise<ProvisionedAccount> {
    const account = await provisionAccount(stack, tenant.apiKey);
    await fundAccount(stack, account.ID, 100_000n);
    return account;
  }

  async function ledgerBalance(account: ProvisionedAccount): Promise<string> {
    return (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body.ledgerBalance;
  }

  it("saves a destination under the provider's name; saving it again answers 200 with the same beneficiary, the name refreshed", async () => {
    const accountNumber = freshAccountNumber();
    const before = Date.now();
    const created = await save({ bankCode: '058', accountNumber, nickname: ' Rent ' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      { ...created.body, id: undefined, nameCheckedAt: undefined, createdAt: undefined },
      {
        id: undefined,
        bankCode: '058',
        accountNumber,
        accountName: accountHolderName(accountNumber),
        nickname: 'Rent',
        nameCheckedAt: undefined,
        createdAt: undefined,
      },
    );
    assert.ok(Date.parse(created.body.nameCheckedAt) >= before - 1_000);
    const row = await beneficiaryRow(created.body.id);
    assert.deepEqual([row.tenant_id, row.account_name, row.deleted_at], [tenant.tenantId, accountHolderName(accountNumber), null]);

    await renameAtBank(accountNumber, 'ADA RENAMED OBI');
    const again = await save({ bankCode: '058', accountNumber });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.id, created.body.id);
    assert.equal(again.body.accountName, 'ADA RENAMED OBI');
    assert.equal(again.body.nickname, 'Rent', 'no nickname given keeps the saved one');
    assert.ok(Date.parse(again.body.nameCheckedAt) >= Date.parse(created.body.nameCheckedAt));
    const renamed = await save({ bankCode: '058', accountNumber, nickname: 'Landlord' });
    assert.deepEqual([renamed.status, renamed.body.id, renamed.body.nickname], [200, created.body.id, 'Landlord']);
    assert.equal(Number((await stack.infra.db('beneficiaries').where({ account_number: accountNumber }).count('* as count'))[0]!.count), 1);

    // The name paid from now on changed once (the save under the same name changed none): audited with both names.
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId, target_type: 'beneficiary', target_id: created.body.id })
      .orderBy('id')
      .select('action', 'actor', 'detail');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor, row.detail.previousAccountName ?? null, row.detail.accountName]),
      [
        ['beneficiary.created', 'API key', null, accountHolderName(accountNumber)],
        ['beneficiary.renamed', 'API key', accountHolderName(accountNumber), 'ADA RENAMED OBI'],
      ],
    );
  });

  it('refuses what the lookup refuses: a bad account number or bank, an account the bank does not have', async () => {
    const shortNumber = await save({ bankCode: '058', accountNumber: '12345' });
    assert.deepEqual([shortNumber.status, (shortNumber.body as any).error], [400, 'accountNumber must be exactly 10 digits']);
    const unknownBank = await save({ bankCode: '999', accountNumber: freshAccountNumber() });
    assert.deepEqual([unknownBank.status, (unknownBank.body as any).error], [400, 'invalid bank code']);
    const noSuchAccount = await save({ bankCode: '058', accountNumber: magicAccountNumber('nameNotFound', '777000') });
    assert.deepEqual([noSuchAccount.status, (noSuchAccount.body as any).error], [404, 'bank account not found']);
    const emptyNickname = await save({ bankCode: '058', accountNumber: freshAccountNumber(), nickname: '  ' });
    assert.deepEqual([emptyNickname.status, (emptyNickname.body as any).error], [400, 'nickname must not be empty']);
    const missing = await call(stack.apiUrl, 'GET', '/v1/beneficiaries', { apiKey: tenant.apiKey });
    assert.ok(!missing.body.beneficiaries.some((saved: Beneficiary) => saved.accountNumber.endsWith('9999')));
  });

  it('lists (paged), reads and deletes; a deleted beneficiary is gone for reads but its row stays; saving it again makes a new one', async () => {
    const pageTenant = await createTenant(stack, 'Pages');
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1)
      ids.push((await save({ bankCode: '044', accountNumber: freshAccountNumber() }, pageTenant.apiKey)).body.id);
    const first = await call(stack.apiUrl, 'GET', '/v1/beneficiaries?limit=2', { apiKey: pageTenant.apiKey });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.beneficiaries.map((saved: Beneficiary) => saved.id),
      ids.slice(0, 2),
    );
    assert.deepEqual(first.body.pagination, { limit: 2, nextCursor: ids[1], hasMore: true });
    const second = await call(stack.apiUrl, 'GET', `/v1/beneficiaries?limit=2&after=${first.body.pagination.nextCursor}`, {
      apiKey: pageTenant.apiKey,
    });
    assert.deepEqual(
      second.body.beneficiaries.map((saved: Beneficiary) => saved.id),
      [ids[2]],
    );
    assert.equal(second.body.pagination.hasMore, false);
    const badLimit = await call(stack.apiUrl, 'GET', '/v1/beneficiaries?limit=0', { apiKey: pageTenant.apiKey });
    assert.deepEqual([badLimit.status, badLimit.body.error], [400, 'limit must be an integer from 1 to 200']);
    const badCursor = await call(stack.apiUrl, 'GET', '/v1/beneficiaries?after=nope', { apiKey: pageTenant.apiKey });
    assert.deepEqual([badCursor.status, badCursor.body.error], [400, 'invalid cursor']);

    const one = await get(ids[0]!, pageTenant.apiKey);
    assert.equal(one.status, 200);
    assert.equal(one.body.id, ids[0]);
    const deleted = await remove(ids[0]!, pageTenant.apiKey);
    assert.equal(deleted.status, 204, deleted.text);
    assert.deepEqual(
      [(await get(ids[0]!, pageTenant.apiKey)).status, (await get(ids[0]!, pageTenant.apiKey)).body.error],
      [404, 'beneficiary not found'],
    );
    assert.equal((await remove(ids[0]!, pageTenant.apiKey)).status, 404);
    const listed = await call(stack.apiUrl, 'GET', '/v1/beneficiaries', { apiKey: pageTenant.apiKey });
    assert.deepEqual(
      listed.body.beneficiaries.map((saved: Beneficiary) => saved.id),
      ids.slice(1),
    );
    const row = await beneficiaryRow(ids[0]!);
    assert.ok(row.deleted_at, 'the row stays, marked deleted');
    const savedAgain = await save({ bankCode: '044', accountNumber: row.account_number }, pageTenant.apiKey);
    assert.equal(savedAgain.status, 201);
    assert.notEqual(savedAgain.body.id, ids[0]);

    for (const malformed of ['not-a-uuid', '1', `${ids[1]}x`, 'x'.repeat(300)]) {
      assert.deepEqual(
        [(await get(malformed, pageTenant.apiKey)).status, (await get(malformed, pageTenant.apiKey)).body.error],
        [404, 'beneficiary not found'],
        malformed,
      );
      assert.equal((await remove(malformed, pageTenant.apiKey)).status, 404, malformed);
    }
  });

  it("keeps tenants apart: another tenant's beneficiary is not found to read, delete or pay", async () => {
    const mine = await savedBeneficiary();
    assert.deepEqual(
      [(await get(mine.id, other.apiKey)).status, (await get(mine.id, other.apiKey)).body.error],
      [404, 'beneficiary not found'],
    );
    assert.equal((await remove(mine.id, other.apiKey)).status, 404);
    assert.equal((await get(mine.id)).status, 200, 'still there for its tenant');
    const theirs = await call(stack.apiUrl, 'GET', '/v1/beneficiaries', { apiKey: other.apiKey });
    assert.ok(!theirs.body.beneficiaries.some((saved: Beneficiary) => saved.id === mine.id));
    const otherAccount = await provisionAccount(stack, other.apiKey);
    await fundAccount(stack, otherAccount.ID, 100_000n);
    const foreign = await settle(otherAccount, { amount: '1.00', beneficiaryId: mine.id }, {}, other.apiKey);
    assert.deepEqual([foreign.status, foreign.body.error], [404, 'beneficiary not found']);
    assert.equal(Number((await stack.infra.db('settlements').where({ tenant_id: other.tenantId }).count('* as count'))[0]!.count), 0);
  });

  it('settles to exactly one destination form, with a clear 400 otherwise, and 404 for an unknown or deleted beneficiary', async () => {
    const account = await fundedAccount();
    const beneficiary = await savedBeneficiary();
    const both = await settle(account, { amount: '1.00', beneficiaryId: beneficiary.id, bankCode: '058', accountNumber: '0123456789' });
    assert.deepEqual([both.status, both.body.error], [400, 'give either beneficiaryId or bankCode and accountNumber, not both']);
    const partly = await settle(account, { amount: '1.00', beneficiaryId: beneficiary.id, bankCode: '058' });
    assert.equal(partly.status, 400);
    const neither = await settle(account, { amount: '1.00' });
    assert.deepEqual([neither.status, neither.body.error], [400, 'give bankCode and accountNumber, or beneficiaryId']);
    const noNumber = await settle(account, { amount: '1.00', bankCode: '058' });
    assert.deepEqual([noNumber.status, noNumber.body.error], [400, 'accountNumber must be exactly 10 digits']);
    const noBank = await settle(account, { amount: '1.00', accountNumber: '0123456789' });
    assert.deepEqual([noBank.status, noBank.body.error], [400, 'invalid bank code']);
    const notAString = await settle(account, { amount: '1.00', beneficiaryId: 42 });
    assert.deepEqual([notAString.status, notAString.body.error], [400, 'beneficiaryId must be a string']);
    const badAmount = await settle(account, { amount: '0', beneficiaryId: beneficiary.id });
    assert.deepEqual([badAmount.status, badAmount.body.error], [400, 'invalid amount']);
    for (const unknown of [randomUUID(), 'nope']) {
      const refused = await settle(account, { amount: '1.00', beneficiaryId: unknown });
      assert.deepEqual([refused.status, refused.body.error], [404, 'beneficiary not found'], unknown);
    }
    assert.equal((await remove(beneficiary.id)).status, 204);
    const deleted = await settle(account, { amount: '1.00', beneficiaryId: beneficiary.id });
    assert.deepEqual([deleted.status, deleted.body.error], [404, 'beneficiary not found']);
    const unknownAccount = await call(stack.apiUrl, 'POST', '/v1/accounts/va_nobody_000000000000/settle', {
      apiKey: tenant.apiKey,
      body: { amount: '1.00', beneficiaryId: randomUUID() },
    });
    assert.deepEqual([unknownAccount.status, unknownAccount.body.error], [404, 'account not found']);
    assert.equal(await ledgerBalance(account), '1000.00');
  });

  it("pays a beneficiary's saved account once, paying its saved name; the transfer names the beneficiary, also after it is deleted", async () => {
    const account = await fundedAccount();
    const beneficiary = await savedBeneficiary('Supplier');
    const key = randomUUID();
    const accepted = await settle(
      account,
      { amount: '250.00', beneficiaryId: beneficiary.id, narration: 'invoice 7' },
      { 'Idempotency-Key': key },
    );
    assert.equal(accepted.status, 202, accepted.text);
    assert.deepEqual(
      { ...accepted.body, merchantTxRef: undefined },
      { merchantTxRef: undefined, status: 'pending', amount: '250.00', currency: 'NGN', accountRef: account.AccountRef },
    );
    const ref: string = accepted.body.merchantTxRef;
    const done = await eventually(
      async () => {
        const transfer = await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey });
        return transfer.body.status === 'success' ? transfer.body : null;
      },
      { what: 'the settlement to the beneficiary to succeed' },
    );
    assert.deepEqual(
      [done.bankCode, done.accountNumber, done.beneficiaryId, done.amount],
      ['058', beneficiary.accountNumber, beneficiary.id, '250.00'],
    );
    const atSandbox = (await call(stack.sandboxUrl, 'GET', `/sandbox/transfers/${ref}`)).body;
    assert.equal(atSandbox.payouts, 1);
    assert.deepEqual(
      atSandbox.submissions.map((submission: { accountNumber: string; bankCode: string }) => [
        submission.accountNumber,
        submission.bankCode,
      ]),
      [[beneficiary.accountNumber, '058']],
    );
    const row = await stack.infra.db('settlements').where({ merchant_tx_ref: ref }).first();
    assert.deepEqual([row.account_name, row.beneficiary_id], [beneficiary.accountName, beneficiary.id]);
    assert.equal(await ledgerBalance(account), '750.00');

    assert.equal((await remove(beneficiary.id)).status, 204);
    const retried = await settle(
      account,
      { amount: '250.00', beneficiaryId: beneficiary.id, narration: 'invoice 7' },
      { 'Idempotency-Key': key },
    );
    assert.deepEqual(
      [retried.status, retried.body.merchantTxRef],
      [202, ref],
      'a retry answers the settlement made, the beneficiary deleted since',
    );
    const different = await settle(account, { amount: '251.00', beneficiaryId: beneficiary.id }, { 'Idempotency-Key': key });
    assert.equal(different.status, 409);
    const afterDelete = await call(stack.apiUrl, 'GET', `/v1/transfers/${ref}`, { apiKey: tenant.apiKey });
    assert.deepEqual([afterDelete.status, afterDelete.body.beneficiaryId], [200, beneficiary.id]);
    assert.equal(await ledgerBalance(account), '750.00');
  });

  it('pays a fresh saved name without asking the bank, and re-checks a stale one: the same name renews the check and pays', async () => {
    const account = await fundedAccount();
    const beneficiary = await savedBeneficiary();
    // Fresh: the bank's new name is not asked for, so the saved name is paid.
    await renameAtBank(beneficiary.accountNumber, beneficiary.accountName.toLowerCase().replace(/ /g, '  '));
    const fresh = await settle(account, { amount: '10.00', beneficiaryId: beneficiary.id });
    assert.equal(fresh.status, 202, fresh.text);
    assert.equal(
      (await stack.infra.db('settlements').where({ merchant_tx_ref: fresh.body.merchantTxRef }).first()).account_name,
      beneficiary.accountName,
    );

    await makeStale(beneficiary.id);
    const staleAt: Date = (await beneficiaryRow(beneficiary.id)).name_checked_at;
    const rechecked = await settle(account, { amount: '20.00', beneficiaryId: beneficiary.id });
    assert.equal(rechecked.status, 202, rechecked.text);
    const row = await beneficiaryRow(beneficiary.id);
    assert.ok(row.name_checked_at.getTime() > staleAt.getTime() + 24 * 3_600_000, 'the check was renewed');
    assert.equal(row.account_name, beneficiary.accountName.toLowerCase().replace(/ /g, '  '), "the bank's spelling is kept");
    const paid = await stack.infra.db('settlements').where({ merchant_tx_ref: rechecked.body.merchantTxRef }).first();
    assert.equal(paid.account_name, row.account_name);
    assert.deepEqual(await stack.services.beneficiaries.forPayout(tenant.tenantId, beneficiary.id), {
      bankCode: '058',
      accountNumber: beneficiary.accountNumber,
      accountName: row.account_name,
    });
  });

  it('refuses a stale beneficiary whose bank now gives another name (409 naming both) or no account, writing nothing', async () => {
    const account = await fundedAccount();
    const beneficiary = await savedBeneficiary();
    await makeStale(beneficiary.id);
    const before = await beneficiaryRow(beneficiary.id);
    await renameAtBank(beneficiary.accountNumber, 'CHIOMA EZE');
    const key = randomUUID();
    const refused = await settle(account, { amount: '10.00', beneficiaryId: beneficiary.id }, { 'Idempotency-Key': key });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'account_name_mismatch');
    assert.match(refused.body.error, /"CHIOMA EZE"/);
    assert.ok(refused.body.error.includes(`"${beneficiary.accountName}"`), refused.body.error);
    await assert.rejects(stack.services.beneficiaries.forPayout(tenant.tenantId, beneficiary.id), { code: 'account_name_mismatch' });

    await renameAtBank(beneficiary.accountNumber, null);
    const gone = await settle(account, { amount: '10.00', beneficiaryId: beneficiary.id });
    assert.equal(gone.status, 404, gone.text);
    assert.equal(gone.body.code, 'beneficiary_account_not_found');
    assert.match(gone.body.error, /^bank account not found/);

    const after = await beneficiaryRow(beneficiary.id);
    assert.deepEqual([after.account_name, after.name_checked_at.getTime()], [before.account_name, before.name_checked_at.getTime()]);
    assert.equal(Number((await stack.infra.db('settlements').where({ account_id: account.ID }).count('* as count'))[0]!.count), 0);
    assert.equal(await ledgerBalance(account), '1000.00');
    assert.equal((await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.length, 1, 'only the funding credit');
    assert.equal(
      await stack.infra.db('idempotency_keys').where({ tenant_id: tenant.tenantId, key }).first(),
      undefined,
      'the key stays unclaimed',
    );
  });

  it("the dashboard's beneficiaries: operators save and delete (audited), viewers only read, and the settle form pays one", async () => {
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    const viewer = await dashboardUser(stack, tenant.tenantId, 'viewer');
    const accountNumber = freshAccountNumber();
    const refusedViewer = await call(stack.apiUrl, 'POST', '/auth/beneficiaries', {
      cookie: viewer.cookie,
      body: { bankCode: '058', accountNumber },
    });
    assert.equal(refusedViewer.status, 403);
    const created = await call(stack.apiUrl, 'POST', '/auth/beneficiaries', {
      cookie: operator.cookie,
      body: { bankCode: '058', accountNumber, nickname: 'Payroll' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.accountName, accountHolderName(accountNumber));
    const listed = await call(stack.apiUrl, 'GET', '/auth/beneficiaries?limit=200', { cookie: viewer.cookie });
    assert.ok(listed.body.beneficiaries.some((saved: Beneficiary) => saved.id === created.body.id));

    const account = await fundedAccount();
    const key = randomUUID();
    const mismatched = await call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
      cookie: operator.cookie,
      headers: { 'Idempotency-Key': key },
      body: { amount: '5.00', beneficiaryId: created.body.id, confirmedAccountName: 'SOMEONE ELSE' },
    });
    assert.deepEqual([mismatched.status, mismatched.body.code], [409, 'account_name_mismatch']);
    const settled = await call(stack.apiUrl, 'POST', `/auth/accounts/${account.AccountRef}/settle`, {
      cookie: operator.cookie,
      headers: { 'Idempotency-Key': key },
      body: { amount: '5.00', beneficiaryId: created.body.id, confirmedAccountName: created.body.accountName },
    });
    assert.equal(settled.status, 202, settled.text);

    const deleted = await call(stack.apiUrl, 'DELETE', `/auth/beneficiaries/${created.body.id}`, { cookie: operator.cookie });
    assert.equal(deleted.status, 204, deleted.text);
    const audit = await stack.infra
      .db('audit_log')
      .where({ tenant_id: tenant.tenantId })
      .whereIn('action', ['beneficiary.created', 'beneficiary.deleted', 'settlement.initiated'])
      .where((query) => query.where({ target_id: created.body.id }).orWhere({ target_id: settled.body.merchantTxRef }))
      .orderBy('id')
      .select('action', 'actor', 'detail');
    assert.deepEqual(
      audit.map((row) => [row.action, row.actor]),
      [
        ['beneficiary.created', operator.email],
        ['settlement.initiated', operator.email],
        ['beneficiary.deleted', operator.email],
      ],
    );
    assert.deepEqual(
      [audit[0].detail.accountName, audit[0].detail.nickname, audit[1].detail.beneficiaryId, audit[1].detail.accountNumber],
      [created.body.accountName, 'Payroll', created.body.id, accountNumber],
    );
  });
});
