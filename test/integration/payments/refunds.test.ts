import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLedgerVerificationRepo } from '../../../src/ledger/ledger-verification.repo';
import { accountHolderName } from '../../../src/sandbox/names';
import { paymentEvent, provisionAccount, sendProviderEvent, type ProvisionedAccount } from '../../helpers/fixtures';
import { approvalUsers, asUser } from '../../helpers/approvals';
import { call, eventually } from '../../helpers/http';
import { magicAccountNumber } from '../../helpers/sandbox-values';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';

describe('refunds of inbound payments', () => {
  let stack: Stack;
  let tenant: TestTenant;
  before(async () => {
    stack = await startStack({ SETTLEMENT_RETRY_SCHEDULE: '200ms', SETTLEMENT_POLL_INTERVAL: '200ms' }, { worker: true });
    tenant = await createTenant(stack);
  });
  after(() => stack.close());
  afterEach(async () => {
    assert.deepEqual(await createLedgerVerificationRepo(stack.infra.db).problems(), [], 'ledger:verify');
  });

  /** Payer account numbers of their own per test, so each test's transfers at the sandbox are its own. */
  let payerCount = 0;
  const newPayer = (ending?: string): string => {
    payerCount += 1;
    const prefix = `05${String(payerCount).padStart(4, '0')}`;
    return ending ? `${prefix}${ending}` : `${prefix}${String(1000 + payerCount).slice(-4)}`;
  };

  /**
   * A payment of 10,000.00 net (10,025.00 less the 25.00 fee) from a payer at GUARANTY TRUST BANK, named as the sandbox's
   * name enquiry names the payer's account; confirmed unless told otherwise.
   */
  async function payment(options: { payerAccount?: string; confirm?: boolean; tenant?: TestTenant } = {}) {
    const owner = options.tenant ?? tenant;
    const payerAccount = options.payerAccount ?? newPayer();
    const account = await provisionAccount(stack, owner.apiKey);
    const paid = await sendProviderEvent(
      stack,
      paymentEvent({
        accountRef: account.AccountRef,
        amount: 10_025,
        fee: 25,
        senderName: accountHolderName(payerAccount),
        senderAccountNumber: payerAccount,
        senderBankName: 'GUARANTY TRUST BANK',
      }),
    );
    assert.equal(paid.status, 200);
    const credit = await stack.infra
      .db('ledger_entries')
      .where({ account_id: account.ID, kind: 'payment' })
      .first('id', 'transaction_group_id');
    if (options.confirm !== false) await stack.infra.db.transaction((trx) => stack.services.postingEngine.confirm(trx, credit.id));
    return { account, payerAccount, group: credit.transaction_group_id as string };
  }

  const refund = (group: string, body: Record<string, unknown>, key: string = randomUUID(), apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'POST', `/v1/payments/${group}/refunds`, {
      apiKey,
      headers: { 'Idempotency-Key': key },
      body: { reason: 'paid twice', ...body },
    });
  const refundsOf = (group: string, apiKey = tenant.apiKey) => call(stack.apiUrl, 'GET', `/v1/payments/${group}/refunds`, { apiKey });
  const settlementsOf = (account: ProvisionedAccount) =>
    stack.infra.db('settlements').where({ account_id: account.ID }).orderBy('created_at').select('merchant_tx_ref', 'amount', 'narration');
  const atSandbox = async (merchantTxRef: string) => (await call(stack.sandboxUrl, 'GET', `/sandbox/transfers/${merchantTxRef}`)).body;
  const refundEnds = (group: string, refundId: string, status: string) =>
    eventually(
      async () => {
        const listed = await refundsOf(group);
        const found = listed.body.refunds.find((candidate: { refundId: string }) => candidate.refundId === refundId);
        return found?.status === status ? listed.body : null;
      },
      { what: `refund ${refundId} ${status}` },
    );
  const refundEvents = (group: string) =>
    stack.infra
      .db('tenant_events')
      .where({ tenant_id: tenant.tenantId, subject: group })
      .whereIn('type', ['payment.refund_created', 'payment.refund_succeeded', 'payment.refund_failed'])
      .orderBy('sequence')
      .select('type', 'sequence', 'data');

  it('pays a partial and then the full remainder to the payer’s account, one transfer each, and refuses a third', async () => {
    const { account, payerAccount, group } = await payment();

    const partial = await refund(group, { amount: '4000.00', metadata: { ticket: 'T-1' } });
    assert.equal(partial.status, 202, partial.text);
    assert.deepEqual(
      { ...partial.body, refundId: undefined, merchantTxRef: undefined, createdAt: undefined },
      {
        refundId: undefined,
        transactionGroupId: group,
        accountRef: account.AccountRef,
        amount: '4000.00',
        currency: 'NGN',
        reason: 'paid twice',
        status: 'pending',
        failureReason: null,
        merchantTxRef: undefined,
        metadata: { ticket: 'T-1' },
        createdAt: undefined,
      },
    );
    await refundEnds(group, partial.body.refundId, 'success');

    const rest = await refund(group, {});
    assert.equal(rest.status, 202, rest.text);
    assert.equal(rest.body.amount, '6000.00');
    const done = await refundEnds(group, rest.body.refundId, 'success');
    assert.equal(done.refundable, '0.00');
    assert.deepEqual(
      done.refunds.map((made: { amount: string; status: string }) => [made.amount, made.status]),
      [
        ['4000.00', 'success'],
        ['6000.00', 'success'],
      ],
    );

    const tagged = await call(stack.apiUrl, 'GET', `/v1/payments/${group}/refunds?metadata[ticket]=T-1`, { apiKey: tenant.apiKey });
    assert.deepEqual(
      tagged.body.refunds.map((made: { refundId: string }) => made.refundId),
      [partial.body.refundId],
    );
    const third = await refund(group, { amount: '1.00' });
    assert.equal(third.status, 409, third.text);
    assert.equal(third.body.code, 'nothing_to_refund');

    // One settlement each, naming the payment, and one payout each at the sandbox, to the payer's account.
    const made = await settlementsOf(account);
    assert.deepEqual(
      made.map((settlement) => [settlement.merchant_tx_ref, settlement.amount, settlement.narration]),
      [
        [partial.body.merchantTxRef, '400000', `Refund of payment ${group}`],
        [rest.body.merchantTxRef, '600000', `Refund of payment ${group}`],
      ],
    );
    for (const merchantTxRef of [partial.body.merchantTxRef, rest.body.merchantTxRef]) {
      const transfer = await atSandbox(merchantTxRef);
      assert.equal(transfer.payouts, 1);
      assert.deepEqual(
        transfer.submissions.map((submission: { accountNumber: string; bankCode: string }) => [
          submission.accountNumber,
          submission.bankCode,
        ]),
        [[payerAccount, '058']],
      );
    }
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.equal(balance.body.ledgerBalance, '0.00');

    // The statement's refund lines name the payment they refund.
    const statement = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/statement`, { apiKey: tenant.apiKey });
    const debits = statement.body.lines.filter((line: { entry: { Direction: string } }) => line.entry.Direction === 'debit');
    assert.deepEqual(
      debits.map((line: { entry: { Narration: string } }) => line.entry.Narration),
      [`Refund of payment ${group}`, `Refund of payment ${group}`],
    );

    // Each refund told as made and as paid, on the payment.
    const told = await refundEvents(group);
    assert.deepEqual(
      told.map((event) => [event.type, event.data.refundId, event.data.status]),
      [
        ['payment.refund_created', partial.body.refundId, 'pending'],
        ['payment.refund_succeeded', partial.body.refundId, 'success'],
        ['payment.refund_created', rest.body.refundId, 'pending'],
        ['payment.refund_succeeded', rest.body.refundId, 'success'],
      ],
    );
    assert.deepEqual(told[0]!.data, {
      refundId: partial.body.refundId,
      transactionGroupId: group,
      accountRef: account.AccountRef,
      amount: '4000.00',
      currency: 'NGN',
      merchantTxRef: partial.body.merchantTxRef,
      reason: 'paid twice',
      status: 'pending',
      metadata: { ticket: 'T-1' },
    });
  });

  it('refuses more than the payment has left to refund, writing nothing', async () => {
    const { account, group } = await payment();
    const over = await refund(group, { amount: '10000.01' });
    assert.equal(over.status, 409, over.text);
    assert.equal(over.body.code, 'refund_exceeds_payment');
    assert.match(over.body.error, /10000\.01 is more than the payment has left to refund: 10000\.00/);
    assert.deepEqual(await settlementsOf(account), []);
    assert.deepEqual((await refundsOf(group)).body.refunds, []);
  });

  it('lets exactly one of concurrent refunds of the whole payment through', async () => {
    const { account, group } = await payment();
    const answers = await Promise.all(Array.from({ length: 6 }, () => refund(group, { amount: '10000.00' })));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [202, 409, 409, 409, 409, 409], answers.map((answer) => answer.text).join('\n'));
    for (const refused of answers.filter((answer) => answer.status === 409))
      assert.match(refused.body.code, /^(refund_exceeds_payment|nothing_to_refund|insufficient_funds)$/);
    assert.equal((await settlementsOf(account)).length, 1);
    assert.equal((await refundsOf(group)).body.refunds.length, 1);
  });

  it('refuses a payment the provider has not confirmed yet', async () => {
    const { account, group } = await payment({ confirm: false });
    const refused = await refund(group, { amount: '100.00' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'payment_not_confirmed');
    assert.deepEqual(await settlementsOf(account), []);
  });

  it('refuses to pay an account the provider names otherwise than the payment names the payer, naming both', async () => {
    const { account, payerAccount, group } = await payment();
    const renamed = await call(stack.sandboxUrl, 'PUT', `/sandbox/accounts/${payerAccount}/name`, { body: { accountName: 'KEMI ADEOLA' } });
    assert.equal(renamed.status, 200, renamed.text);
    const refused = await refund(group, { amount: '100.00' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'payer_name_mismatch');
    assert.ok(refused.body.error.includes('"KEMI ADEOLA"'), refused.body.error);
    assert.ok(refused.body.error.includes(`"${accountHolderName(payerAccount)}"`), refused.body.error);
    assert.deepEqual(await settlementsOf(account), []);
  });

  it('answers another tenant’s payment, and no payment, as not found', async () => {
    const other = await createTenant(stack, 'Other Tenant');
    const { group } = await payment({ tenant: other });
    const refused = await refund(group, { amount: '100.00' });
    assert.equal(refused.status, 404, refused.text);
    assert.equal((await refundsOf(group)).status, 404);
    assert.equal((await refund(randomUUID(), { amount: '100.00' })).status, 404);
    assert.equal((await refund('not-a-payment', { amount: '100.00' })).status, 404);
  });

  it('answers a retry under the same Idempotency-Key with the same refund, and another request under it with 409', async () => {
    const { account, group } = await payment();
    const key = randomUUID();
    const first = await refund(group, { amount: '2500.00' }, key);
    assert.equal(first.status, 202, first.text);
    const again = await refund(group, { amount: '2500.00' }, key);
    assert.equal(again.status, 202, again.text);
    assert.equal(again.body.refundId, first.body.refundId);
    assert.equal(again.body.merchantTxRef, first.body.merchantTxRef);
    const changed = await refund(group, { amount: '2600.00' }, key);
    assert.equal(changed.status, 409, changed.text);
    assert.equal((await settlementsOf(account)).length, 1);
    assert.equal(
      (await call(stack.apiUrl, 'POST', `/v1/payments/${group}/refunds`, { apiKey: tenant.apiKey, body: { reason: 'x' } })).status,
      400,
    );
  });

  it('holds a refund under the tenant’s approval policy, counting it against the payment until an approver lets it pay', async () => {
    const held = await createTenant(stack, 'Approving Tenant');
    const { approver } = await approvalUsers(stack, held.tenantId, { payoutAtOrAbove: '1000' });
    const { account, group } = await payment({ tenant: held });
    const asked = await refund(group, { amount: '4000.00' }, randomUUID(), held.apiKey);
    assert.equal(asked.status, 202, asked.text);
    assert.equal(asked.body.status, 'awaiting_approval');
    const waiting = (await refundsOf(group, held.apiKey)).body;
    assert.deepEqual([waiting.refundable, waiting.refunds[0].status], ['6000.00', 'awaiting_approval']);
    assert.deepEqual(await settlementsOf(account), []);
    const over = await refund(group, { amount: '6000.01' }, randomUUID(), held.apiKey);
    assert.deepEqual([over.status, over.body.code], [409, 'refund_exceeds_payment'], over.text);

    const approved = await asUser(stack, approver, 'POST', `/auth/approvals/${asked.body.merchantTxRef}/approve`);
    assert.equal(approved.status, 202, approved.text);
    const paid = await eventually(
      async () => {
        const listed = (await refundsOf(group, held.apiKey)).body;
        return listed.refunds[0]?.status === 'success' ? listed : null;
      },
      { what: 'the approved refund paid' },
    );
    assert.equal(paid.refundable, '6000.00');
    assert.deepEqual(
      (await settlementsOf(account)).map((settlement) => settlement.merchant_tx_ref),
      [asked.body.merchantTxRef],
    );
    const told = await stack.infra
      .db('tenant_events')
      .where({ tenant_id: held.tenantId, subject: group })
      .whereIn('type', ['payment.refund_created', 'payment.refund_succeeded'])
      .orderBy('sequence')
      .select('type');
    assert.deepEqual(
      told.map((event) => event.type),
      ['payment.refund_created', 'payment.refund_succeeded'],
    );
  });

  it('gives a failed refund’s money back to the account and lets it be refunded again', async () => {
    const { account, group } = await payment({ payerAccount: magicAccountNumber('failsEverySubmission', newPayer().slice(0, 6)) });
    const failing = await refund(group, {});
    assert.equal(failing.status, 202, failing.text);
    const failed = await refundEnds(group, failing.body.refundId, 'failed');
    assert.equal(failed.refundable, '10000.00');
    const balance = await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey });
    assert.equal(balance.body.ledgerBalance, '10000.00');
    const told = await refundEvents(group);
    assert.deepEqual(
      told.map((event) => [event.type, event.data.status]),
      [
        ['payment.refund_created', 'pending'],
        ['payment.refund_failed', 'failed'],
      ],
    );
    const retried = await refund(group, { amount: '10000.00' });
    assert.equal(retried.status, 202, retried.text);
  });
});
