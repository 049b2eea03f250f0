import assert from 'node:assert/strict';
import { paymentEvent, provisionAccount, sendProviderEvent, statement, type ProvisionedAccount } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack, type TestTenant } from '../../helpers/stack';
import { formatKobo } from '../../../src/money';

interface StatementLine {
  entry: { Kind: string; Direction: string; Amount: string; Status: string; Narration: string; ProviderTxnRef: string };
}

describe('split rules', () => {
  let stack: Stack;
  let tenant: TestTenant;
  let other: TestTenant;
  before(async () => {
    stack = await startStack({ CONFIRMATION_WINDOW: '3s', CONFIRMATION_POLL_INTERVAL: '500ms' }, { worker: true });
    tenant = await createTenant(stack);
    other = await createTenant(stack, 'Other Tenant');
  });
  after(() => stack.close());

  const putRule = (account: string, body: unknown, apiKey = tenant.apiKey) =>
    call(stack.apiUrl, 'PUT', `/v1/accounts/${account}/split-rule`, { apiKey, body });
  const lines = async (account: ProvisionedAccount): Promise<StatementLine[]> =>
    (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines;
  const balance = async (account: ProvisionedAccount): Promise<string> =>
    (await call(stack.apiUrl, 'GET', `/v1/accounts/${account.AccountRef}/balance`, { apiKey: tenant.apiKey })).body.ledgerBalance;

  it('stores, shows and removes a rule; refuses bad parts with a reason and other tenants with 404', async () => {
    const [main, seller, platform] = [
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
    ];
    const stored = await putRule(main.AccountRef, {
      parts: [
        { toAccountRef: seller.AccountRef, percent: 12.5 },
        { toAccountRef: platform.AccountRef, amount: '100.00' },
      ],
      feeBearer: 'split',
    });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(stored.body.parts, [
      { toAccountRef: seller.AccountRef, percent: 12.5, amount: null },
      { toAccountRef: platform.AccountRef, percent: null, amount: '100.00' },
    ]);
    const shown = await call(stack.apiUrl, 'GET', `/v1/accounts/${main.AccountRef}/split-rule`, { apiKey: tenant.apiKey });
    assert.deepEqual(shown.body, stored.body);

    const refusals: Array<[unknown, number, string]> = [
      // Below one hundredth, a percentage would be stored as a part of nothing.
      ...[1e-9, 0.001, 0.004].map((tiny): [unknown, number, string] => [
        { parts: [{ toAccountRef: seller.AccountRef, percent: tiny }], feeBearer: 'split' },
        400,
        'percent must be a number from 0.01 to 100, with at most two decimals',
      ]),
      [{ parts: [{ toAccountRef: main.AccountRef, percent: 10 }], feeBearer: 'split' }, 400, 'a split part cannot pay the account itself'],
      [
        {
          parts: [
            { toAccountRef: seller.AccountRef, percent: 60 },
            { toAccountRef: platform.AccountRef, percent: 40.01 },
          ],
          feeBearer: 'split',
        },
        400,
        'the parts add up to more than 100 percent',
      ],
      [
        {
          parts: [
            { toAccountRef: seller.AccountRef, percent: 10 },
            { toAccountRef: seller.AccountRef, percent: 10 },
          ],
          feeBearer: 'split',
        },
        400,
        'each account may appear in one part only',
      ],
      [
        { parts: [{ toAccountRef: seller.AccountRef, percent: 10, amount: '1.00' }], feeBearer: 'split' },
        400,
        'each part names either percent or amount, not both',
      ],
      [
        { parts: [{ toAccountRef: seller.AccountRef, percent: 10.005 }], feeBearer: 'split' },
        400,
        'percent must be a number from 0.01 to 100, with at most two decimals',
      ],
      [{ parts: [], feeBearer: 'split' }, 400, 'a split rule needs at least one part'],
      [{ parts: [{ toAccountRef: seller.AccountRef, percent: 10 }], feeBearer: 'nobody' }, 400, 'feeBearer must be "account" or "split"'],
      [{ parts: [{ toAccountRef: 'VA-NOPE', percent: 10 }], feeBearer: 'split' }, 404, 'account not found'],
    ];
    for (const [body, status, error] of refusals) {
      const refused = await putRule(main.AccountRef, body);
      assert.equal(refused.status, status, JSON.stringify(body));
      assert.equal(refused.body.error, error, JSON.stringify(body));
    }
    // Nothing refused changed the stored rule.
    assert.deepEqual(
      (await call(stack.apiUrl, 'GET', `/v1/accounts/${main.AccountRef}/split-rule`, { apiKey: tenant.apiKey })).body,
      stored.body,
    );

    // Another tenant sees no account, and cannot name this tenant's account as a part.
    const theirs = await provisionAccount(stack, other.apiKey);
    assert.equal((await call(stack.apiUrl, 'GET', `/v1/accounts/${main.AccountRef}/split-rule`, { apiKey: other.apiKey })).status, 404);
    assert.equal(
      (await putRule(main.AccountRef, { parts: [{ toAccountRef: seller.AccountRef, percent: 1 }], feeBearer: 'split' }, other.apiKey))
        .status,
      404,
    );
    const crossTenant = await putRule(
      theirs.AccountRef,
      { parts: [{ toAccountRef: seller.AccountRef, percent: 1 }], feeBearer: 'split' },
      other.apiKey,
    );
    assert.deepEqual([crossTenant.status, crossTenant.body.error], [404, 'account not found']);

    assert.equal((await call(stack.apiUrl, 'DELETE', `/v1/accounts/${main.AccountRef}/split-rule`, { apiKey: tenant.apiKey })).status, 204);
    const gone = await call(stack.apiUrl, 'GET', `/v1/accounts/${main.AccountRef}/split-rule`, { apiKey: tenant.apiKey });
    assert.deepEqual([gone.status, gone.body.error], [404, 'split rule not found']);
    assert.equal((await call(stack.apiUrl, 'DELETE', `/v1/accounts/${main.AccountRef}/split-rule`, { apiKey: tenant.apiKey })).status, 404);
  });

  it('moves the parts when a payment is confirmed, shown on each statement with the payment it came from', async () => {
    const [shop, seller, platform] = [
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
    ];
    assert.equal(
      (
        await putRule(shop.AccountRef, {
          parts: [
            { toAccountRef: seller.AccountRef, percent: 50 },
            { toAccountRef: platform.AccountRef, amount: '100.00' },
          ],
          feeBearer: 'account',
        })
      ).status,
      200,
    );
    // 5,025.00 paid, 25.00 kept by the provider: the shop bears the fee, so half of the gross moves.
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: shop.AccountRef, amount: 5025 } });
    assert.equal(sent.body.delivery.status, 200);
    const paymentRef = sent.body.transactionId as string;
    await eventually(async () => (await lines(seller)).length === 1, { what: 'the split at confirmation' });

    const shopLines = await lines(shop);
    assert.deepEqual(
      shopLines.map((line) => [line.entry.Kind, line.entry.Direction, line.entry.Amount, line.entry.Status]),
      [
        ['payment', 'credit', '5000.00', 'confirmed'],
        ['transfer', 'debit', '2512.50', 'confirmed'],
        ['transfer', 'debit', '100.00', 'confirmed'],
      ],
    );
    const [toSeller] = await lines(seller);
    const [toPlatform] = await lines(platform);
    assert.deepEqual(
      [toSeller!.entry.Kind, toSeller!.entry.Direction, toSeller!.entry.Amount, toPlatform!.entry.Amount],
      ['transfer', 'credit', '2512.50', '100.00'],
    );
    for (const line of [shopLines[1]!, shopLines[2]!, toSeller!, toPlatform!])
      assert.match(line.entry.Narration, new RegExp(`split of payment ${paymentRef}`));
    assert.deepEqual([await balance(shop), await balance(seller), await balance(platform)], ['2387.50', '2512.50', '100.00']);

    // Each part is a transfer of the shop's, naming the payment it came from.
    const listed = await call(stack.apiUrl, 'GET', `/v1/accounts/${shop.AccountRef}/transfers`, { apiKey: tenant.apiKey });
    assert.deepEqual(
      listed.body.transfers
        .map((transfer: Record<string, unknown>) => [transfer.toAccountRef, transfer.amount, transfer.source, transfer.splitOfPayment])
        .sort(),
      [
        [platform.AccountRef, '100.00', 'split', paymentRef],
        [seller.AccountRef, '2512.50', 'split', paymentRef],
      ].sort(),
    );

    const books = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: tenant.apiKey });
    assert.equal(books.body.total, '0.00');
  });

  it('splits the payment that completes a checkout account, then the account closes', async () => {
    const seller = await provisionAccount(stack, tenant.apiKey);
    for (const opened of [{ expectedAmount: '5025.00' }, { expectedAmount: '5025.00', amountPolicy: 'exact', onMismatch: 'return' }]) {
      const checkout = await provisionAccount(stack, tenant.apiKey, opened);
      assert.equal(
        (await putRule(checkout.AccountRef, { parts: [{ toAccountRef: seller.AccountRef, percent: 50 }], feeBearer: 'account' })).status,
        200,
      );
      const sellerBefore = (await lines(seller)).length;
      const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: checkout.AccountRef, amount: 5025 } });
      assert.equal(sent.body.delivery.status, 200);
      const moves = await eventually(
        async () => {
          const rows = await stack.infra
            .db('split_moves')
            .where({ from_account_id: checkout.ID })
            .select('transfer_id', 'not_moved_reason');
          return rows.length > 0 ? rows : null;
        },
        { what: 'the split at confirmation' },
      );
      assert.deepEqual(
        moves.map((move: { transfer_id: string | null; not_moved_reason: string | null }) => [
          move.transfer_id !== null,
          move.not_moved_reason,
        ]),
        [[true, null]],
        JSON.stringify(opened),
      );
      // Half of the gross 5,025.00 went to the seller; the account keeps the rest, and is closed.
      assert.equal((await lines(seller)).length, sellerBefore + 1);
      assert.deepEqual((await lines(seller)).at(-1)!.entry.Amount, '2512.50');
      assert.equal(await balance(checkout), '2487.50');
      const closed = await call(stack.apiUrl, 'GET', `/v1/accounts/${checkout.AccountRef}`, { apiKey: tenant.apiKey });
      assert.equal(closed.body.Status, 'expired');
    }
    assert.equal(await balance(seller), '5025.00');
    const books = await call(stack.apiUrl, 'GET', '/v1/ledger/balances', { apiKey: tenant.apiKey });
    assert.equal(books.body.total, '0.00');
  });

  it("moves only the payment's unheld money, and records a part it cannot move (a suspended customer) with the reason", async () => {
    const [shop, seller, dormant] = [
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
      await provisionAccount(stack, tenant.apiKey),
    ];
    assert.equal(
      (
        await putRule(shop.AccountRef, {
          parts: [
            { toAccountRef: dormant.AccountRef, amount: '1.00' },
            { toAccountRef: seller.AccountRef, percent: 90 },
          ],
          feeBearer: 'split',
        })
      ).status,
      200,
    );
    await stack.infra.db('customers').where({ id: dormant.CustomerID }).update({ status: 'suspended' });
    // More than the tier-1 single-credit limit of 50,000.00: the part over it is held.
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: shop.AccountRef, amount: 60_000 } });
    assert.equal(sent.body.delivery.status, 200);
    await eventually(async () => (await lines(seller)).length === 1, { what: 'the split at confirmation' });

    const [credit] = await lines(shop);
    const net = BigInt(credit!.entry.Amount.replace('.', ''));
    const held = BigInt(
      (await call(stack.apiUrl, 'GET', `/v1/accounts/${shop.AccountRef}/balance`, { apiKey: tenant.apiKey })).body.heldBalance.replace(
        '.',
        '',
      ),
    );
    assert.ok(held > 0n, 'part of the payment is held');
    // 90% of the net would be more than its unheld part: the seller gets the unheld part less the first part's 1.00
    // (counted though it could not move: a part never takes what the parts before it were due).
    assert.equal((await lines(seller))[0]!.entry.Amount, formatKobo(net - held - 100n));
    assert.deepEqual(await lines(dormant), []);
    const moves = await stack.infra.db('split_moves').where({ from_account_id: shop.ID }).orderBy('position');
    assert.deepEqual(
      moves.map((move: { position: number; transfer_id: string | null; not_moved_reason: string | null }) => [
        move.position,
        move.transfer_id !== null,
        move.not_moved_reason,
      ]),
      [
        [1, false, `the customer of account ${dormant.AccountRef} is suspended`],
        [2, true, null],
      ],
    );
  });

  it('never splits a payment the provider did not confirm: nothing moves while it is provisional, nor once it is reversed', async () => {
    const [shop, seller] = [await provisionAccount(stack, tenant.apiKey), await provisionAccount(stack, tenant.apiKey)];
    assert.equal(
      (await putRule(shop.AccountRef, { parts: [{ toAccountRef: seller.AccountRef, percent: 100 }], feeBearer: 'split' })).status,
      200,
    );
    // A webhook for a payment the provider never made: provisional, then reversed when the window ends.
    assert.equal((await sendProviderEvent(stack, paymentEvent({ accountRef: shop.AccountRef, amount: 1010, fee: 10 }))).status, 200);
    assert.deepEqual(
      (await lines(shop)).map((line) => [line.entry.Kind, line.entry.Status]),
      [['payment', 'provisional']],
    );
    assert.deepEqual(await lines(seller), []);
    await eventually(async () => (await lines(shop)).some((line) => line.entry.Kind === 'reversal'), { what: 'the reversal' });
    assert.deepEqual(await lines(seller), []);
    assert.deepEqual([await balance(shop), await balance(seller)], ['0.00', '0.00']);
  });
});
