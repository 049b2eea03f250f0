import assert from 'node:assert/strict';
import { transactionListDataSchema } from '../../src/provider/spec-provider/provider.schemas';

const row = (fields: Record<string, unknown>) => ({
  id: 'API-VACT_TRA-1',
  status: 'SUCCESS',
  amount: 5025,
  timeCreated: '2026-11-22T10:15:30Z',
  ...fields,
});
const parse = (...results: unknown[]) => transactionListDataSchema.safeParse({ results, cursor: 'next' });

describe('provider listing schema', () => {
  it('reads a row into kobo and nulls: numbers or decimal text, absent fields null, entryType in capitals or null', () => {
    const parsed = parse(
      row({
        fixedCharge: 25,
        entryType: 'credit',
        type: 'vact_transfer',
        currency: 'NGN',
        recipientAccountNumber: '0123456789',
        senderName: 'ADA OBI',
        narration: 'Invoice',
        timeUpdated: 'ignored',
      }),
      row({ amount: '100.0', fixedCharge: '0.5', entryType: 'sideways', merchantTxRef: 'mtx_1-1' }),
      row({ amount: 0.29, fixedCharge: null, entryType: null }),
    );
    assert.ok(parsed.success);
    assert.equal(parsed.data.nextCursor, 'next');
    assert.deepEqual(parsed.data.transactions[0], {
      id: 'API-VACT_TRA-1',
      status: 'SUCCESS',
      amountKobo: 502_500n,
      feeKobo: 2_500n,
      type: 'vact_transfer',
      entryType: 'CREDIT',
      currency: 'NGN',
      merchantTxRef: null,
      recipientAccountNumber: '0123456789',
      senderName: 'ADA OBI',
      narration: 'Invoice',
      timeCreated: '2026-11-22T10:15:30Z',
    });
    assert.deepEqual(
      parsed.data.transactions.slice(1).map((t) => [t.amountKobo, t.feeKobo, t.entryType, t.type, t.currency, t.merchantTxRef]),
      [
        [10_000n, 50n, null, '', null, 'mtx_1-1'],
        [29n, null, null, '', null, null],
      ],
    );
  });

  it('refuses a row whose amount or fee is not naira to the kobo, naming the field', () => {
    for (const [fields, field, message] of [
      [{ amount: 1.005 }, 'amount', 'not a naira amount: 1.005'],
      [{ fixedCharge: -1 }, 'fixedCharge', 'not a naira amount: -1'],
      [{ amount: '10.001' }, 'amount', 'not a naira amount: 10.001'],
    ] as const) {
      const parsed = parse(row({}), row(fields));
      assert.ok(!parsed.success, JSON.stringify(fields));
      assert.deepEqual([parsed.error.issues[0]?.message, parsed.error.issues[0]?.path], [message, ['results', 1, field]]);
    }
    assert.ok(!parse(row({ amount: 'ten' })).success);
    assert.ok(!parse(row({ id: '' })).success);
    assert.deepEqual(transactionListDataSchema.safeParse({ results: [] }).data, { transactions: [], nextCursor: null });
  });
});
