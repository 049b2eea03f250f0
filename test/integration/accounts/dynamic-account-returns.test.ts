import assert from 'node:assert/strict';
import { createDynamicAccountsService } from '../../../src/dynamic-accounts/dynamic-accounts.service';
import { createMismatchReturnsRepo } from '../../../src/dynamic-accounts/mismatch-returns.repo';
import type { HoldsService } from '../../../src/kyc-limits/holds.service';
import { createLogger } from '../../../src/logger';
import { provisionAccount, type ProvisionedAccount } from '../../helpers/fixtures';
import { call } from '../../helpers/http';
import { dashboardUser } from '../../helpers/session';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

/** A payer whose name the sandbox's name enquiry gives as the payment names them (its default sender name). */
const PAYER_ACCOUNT = '0123456789';

/**
 * Two returns runs over one held payment, interleaved by hand: no worker runs here, so each pass is the test's, and
 * the credit is confirmed through the posting engine. A run's claim runs out after a minute; the tests age it.
 */
describe('dynamic accounts: returns racing', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack();
    tenant = await createTenant(stack);
  });
  after(() => stack.close());

  const logger = createLogger('silent', 'test');
  /** A returns run whose holds are the stack's, but with `returning` run first when it starts a return. */
  const returnsRun = (returning?: () => Promise<void>) => {
    const holds: HoldsService = {
      ...stack.services.holds,
      returnHeldMismatch: async (...args) => {
        await returning?.();
        return stack.services.holds.returnHeldMismatch(...args);
      },
    };
    const service = createDynamicAccountsService({ db: stack.infra.db, holds, logger });
    return { pass: () => service.returnDue({ budgetMs: 60_000 }) };
  };
  /** Every claim of a return run out, as a minute later. */
  const claimsRunOut = () =>
    stack.infra.db('dynamic_account_returns').update({ attempted_at: stack.infra.db.raw("now() - interval '2 minutes'") });

  /** A confirmed under-payment to an `exact`, `return` account, held in full to return. */
  async function heldToReturn(): Promise<{ account: ProvisionedAccount; entryId: string }> {
    const account = await provisionAccount(stack, tenant.apiKey, { expectedAmount: '100.00', amountPolicy: 'exact', onMismatch: 'return' });
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', {
      body: { accountRef: account.AccountRef, amount: 60, fee: 0.5, senderAccountNumber: PAYER_ACCOUNT },
    });
    assert.equal(sent.body.delivery.status, 200, sent.text);
    const hold = await stack.infra.db('ledger_reservations').where({ account_id: account.ID }).first('owner_id as entry_id', 'kind');
    assert.equal(hold.kind, 'payment_mismatch');
    await stack.infra.db.transaction((trx) => stack.services.postingEngine.confirm(trx, hold.entry_id));
    return { account, entryId: hold.entry_id as string };
  }
  const returnRow = (entryId: string) =>
    stack.infra.db('dynamic_account_returns').where({ entry_id: entryId }).first('status', 'reason', 'merchant_tx_ref', 'claim_token');
  const payouts = (account: ProvisionedAccount) => stack.infra.db('settlements').where({ account_id: account.ID }).pluck('merchant_tx_ref');
  const told = (account: ProvisionedAccount) =>
    stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId })
      .whereIn('type', ['payment.mismatch_returned', 'payment.mismatch_held'])
      .whereRaw("data->>'accountRef' = ?", [account.AccountRef])
      .orderBy('sequence')
      .select('type', 'data');
  const heldBalance = async (account: ProvisionedAccount) =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body.heldBalance;
  /** The payment was returned by one payout, recorded as returned under it; that payout's reference. */
  async function returnedOnce(account: ProvisionedAccount, entryId: string): Promise<string | undefined> {
    const [merchantTxRef, ...others] = await payouts(account);
    assert.deepEqual(others, [], 'one payout');
    assert.deepEqual(
      { ...(await returnRow(entryId)), claim_token: undefined },
      {
        status: 'returned',
        reason: null,
        merchant_tx_ref: merchantTxRef,
        claim_token: undefined,
      },
    );
    return merchantTxRef;
  }

  it('a returns run whose claim another took over pays nothing and records nothing; the newer claim returns it once', async () => {
    const { account, entryId } = await heldToReturn();
    let newerClaim: string | undefined;
    await returnsRun(async () => {
      await claimsRunOut();
      newerClaim = await createMismatchReturnsRepo(stack.infra.db).claim({ entryId, tenantId: tenant.tenantId, accountId: account.ID });
    }).pass();
    assert.ok(newerClaim, 'the other run claimed the return once the first claim ran out');
    assert.deepEqual(await payouts(account), [], 'the first run paid nothing');
    assert.equal(await heldBalance(account), '59.50');
    assert.deepEqual(await returnRow(entryId), { status: 'returning', reason: null, merchant_tx_ref: null, claim_token: newerClaim });
    assert.deepEqual(await told(account), []);

    await claimsRunOut();
    await returnsRun().pass();
    const merchantTxRef = await returnedOnce(account, entryId);
    assert.deepEqual(
      (await told(account)).map((event: { type: string; data: { merchantTxRef?: string } }) => [event.type, event.data.merchantTxRef]),
      [['payment.mismatch_returned', merchantTxRef]],
    );
  });

  it("a returns run that finds the payment returned by the run that took over is no refusal: the winner's record stands", async () => {
    const { account, entryId } = await heldToReturn();
    // The older run claims, stalls past its minute; the newer claims and returns the payment; then the older goes on (a 409).
    await returnsRun(async () => {
      await claimsRunOut();
      await returnsRun().pass();
    }).pass();
    await returnedOnce(account, entryId);
    assert.deepEqual(
      (await told(account)).map((event: { type: string }) => event.type),
      ['payment.mismatch_returned'],
      'no payment.mismatch_held',
    );
  });

  it("an operator's return while a returns run's is under way is no refusal: the run lets its claim go", async () => {
    const { account, entryId } = await heldToReturn();
    const operator = await dashboardUser(stack, tenant.tenantId, 'operator');
    await returnsRun(async () => {
      const returned = await call(stack.apiUrl, 'POST', `/auth/holds/${entryId}/return`, {
        cookie: operator.cookie,
        body: { note: 'the payer asked' },
      });
      assert.equal(returned.status, 202, returned.text);
    }).pass();
    assert.equal((await payouts(account)).length, 1, "the operator's payout only");
    assert.equal(await returnRow(entryId), undefined, 'no automatic return recorded, and none refused');
    assert.deepEqual(await told(account), []);
    assert.equal(await heldBalance(account), '0.00');
  });

  it('a run retried after dying just past the payout (a worker restart) finds nothing due: one payout', async () => {
    const { account, entryId } = await heldToReturn();
    const holds: HoldsService = {
      ...stack.services.holds,
      returnHeldMismatch: async (...args) => {
        await stack.services.holds.returnHeldMismatch(...args);
        throw new Error('the worker died after the payout committed');
      },
    };
    const dying = createDynamicAccountsService({ db: stack.infra.db, holds, logger });
    assert.deepEqual(await dying.returnDue({ budgetMs: 60_000 }), { found: 1 });
    await claimsRunOut();
    assert.deepEqual(await returnsRun().pass(), { found: 0 }, 'the retry finds the payment returned');
    await returnedOnce(account, entryId);
  });

  it('records a return or a refusal only under the claim that is current and still under way', async () => {
    const { account, entryId } = await heldToReturn();
    const returns = createMismatchReturnsRepo(stack.infra.db);
    const first = await returns.claim({ entryId, tenantId: tenant.tenantId, accountId: account.ID });
    assert.ok(first);
    assert.equal(await returns.claim({ entryId, tenantId: tenant.tenantId, accountId: account.ID }), undefined, 'claimed already');
    await claimsRunOut();
    const second = await returns.claim({ entryId, tenantId: tenant.tenantId, accountId: account.ID });
    assert.ok(second && second !== first);
    assert.equal(await returns.refused(entryId, first, 'too late'), false);
    assert.equal(await returns.returned(entryId, first, 'MTX-OLD'), false);
    assert.equal(await returns.returned(entryId, second, 'MTX-NEW'), true);
    assert.equal(await returns.refused(entryId, second, 'after it was returned'), false, 'a returned row stays returned');
    assert.deepEqual(
      { ...(await returnRow(entryId)), claim_token: undefined },
      {
        status: 'returned',
        reason: null,
        merchant_tx_ref: 'MTX-NEW',
        claim_token: undefined,
      },
    );
    await returns.dropped(entryId, second);
    assert.equal((await returnRow(entryId))?.status, 'returned', 'only a return under way is let go');

    // The repo alone wrote these records and paid nothing (ledger:verify would name the payout that is not there):
    // taken out, the returns run returns the payment for real.
    await stack.infra.db('dynamic_account_returns').where({ entry_id: entryId }).delete();
    await returnsRun().pass();
    await returnedOnce(account, entryId);
  });
});
