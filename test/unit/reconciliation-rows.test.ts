import assert from 'node:assert/strict';
import type { ProviderListedTransaction } from '../../src/provider/spec-provider/spec-provider.types';
import { outcomeOf } from '../../src/reconciliation/findings';
import { fromListing, verdictOf } from '../../src/provider/spec-provider/listing-rows';
import { fromLookup } from '../../src/reconciliation/provider-rows';
import { lowestUuidv7Before, pageOfRows } from '../../src/reconciliation/reconciliation-matching.repo';
import { uuidv7 } from '../../src/ids';

const listed = (overrides: Partial<ProviderListedTransaction>): ProviderListedTransaction => ({
  id: 'API-VACT_TRA-1',
  status: 'SUCCESS',
  amountKobo: 502_500n,
  feeKobo: 2_500n,
  type: 'vact_transfer',
  entryType: null,
  currency: 'NGN',
  merchantTxRef: null,
  recipientAccountNumber: '0123456789',
  senderName: 'ADA OBI',
  narration: 'Invoice',
  timeCreated: '2026-11-22T10:15:30.123Z',
  ...overrides,
});

describe('reconciliation: provider rows', () => {
  it("reduces the provider's statuses to a verdict; anything unfinished is pending", () => {
    assert.deepEqual(
      ['SUCCESS', 'payment_successful', 'PAYMENT_FAILED', 'REFUND', 'REVERSED', 'PROCESSING', 'NEW', 'PENDING_BILLING', 'whatever'].map(
        verdictOf,
      ),
      ['success', 'success', 'failed', 'refund', 'refund', 'pending', 'pending', 'pending', 'pending'],
    );
  });

  it('takes the direction from entryType, else from the type, else from a merchantTxRef', () => {
    assert.equal(fromListing(listed({ entryType: 'DEBIT', type: 'vact_transfer' })).direction, 'debit');
    assert.equal(fromListing(listed({ type: 'transfer' })).direction, 'debit');
    assert.equal(fromListing(listed({ type: 'vact_transfer' })).direction, 'credit');
    assert.equal(fromListing(listed({ type: 'unknown', merchantTxRef: 'mtx_1-1' })).direction, 'debit');
    assert.equal(fromListing(listed({ type: 'unknown' })).direction, 'credit');
  });

  it("makes a virtual account's listing row that account's credit, whatever the row omits", () => {
    const row = fromListing(listed({ entryType: null, type: '', recipientAccountNumber: null, merchantTxRef: 'mtx_1-1' }), '9876543210');
    assert.deepEqual([row.direction, row.recipientAccountNumber], ['credit', '9876543210']);
    assert.deepEqual([fromListing(listed({})).direction, fromListing(listed({})).recipientAccountNumber], ['credit', '0123456789']);
  });

  it('serializes a page of rows once, under the column names the staging statement reads', () => {
    const rows = [fromListing(listed({ id: 'T-1' })), fromListing(listed({ id: 'T-2', feeKobo: null }))];
    const page = pageOfRows(rows);
    assert.equal(page.size, 2);
    const parsed = JSON.parse(page.json) as Array<Record<string, unknown>>;
    assert.deepEqual(
      parsed.map((row) => [row.provider_txn_id, row.amount, row.fee, row.recipient_account_number, row.direction]),
      [
        ['T-1', '502500', '2500', '0123456789', 'credit'],
        ['T-2', '502500', '0', '0123456789', 'credit'],
      ],
    );
    assert.deepEqual(Object.keys(parsed[0]!).sort(), [
      'alias_account_ref',
      'amount',
      'currency',
      'direction',
      'fee',
      'merchant_tx_ref',
      'narration',
      'provider_txn_id',
      'raw_status',
      'recipient_account_number',
      'sender_name',
      'status',
      'time_created',
    ]);
    assert.deepEqual(pageOfRows([]), { json: '[]', size: 0 });
  });

  it('carries kobo as text, a missing fee as zero, and times Postgres reads alike', () => {
    const row = fromListing(listed({ feeKobo: null, timeCreated: '2026-11-22T10:15:30Z' }));
    assert.deepEqual([row.amount, row.fee, row.timeCreated, row.status], ['502500', '0', '2026-11-22T10:15:30.000Z', 'success']);
    assert.equal(fromListing(listed({ timeCreated: 'yesterday' })).timeCreated, null);
  });

  it('keys a lookup by the reference the ledger holds; one the provider does not know is not_found', () => {
    const credit = fromLookup({ kind: 'credit', providerTxnRef: 'T-1' }, null);
    assert.deepEqual([credit.providerTxnId, credit.direction, credit.status, credit.amount], ['T-1', 'credit', 'not_found', null]);
    const attempt = fromLookup({ kind: 'attempt', providerRef: 'mtx_1-2' }, null);
    assert.deepEqual([attempt.providerTxnId, attempt.merchantTxRef, attempt.direction], ['not-found:mtx_1-2', 'mtx_1-2', 'debit']);
    const found = fromLookup(
      { kind: 'attempt', providerRef: 'mtx_1-2' },
      {
        id: 'API-BANK_TRF-9',
        status: 'REFUND',
        amountKobo: 100n,
        feeKobo: null,
        type: 'transfer',
        currency: 'NGN',
        merchantTxRef: 'mtx_1-2',
        aliasAccountReference: null,
        timeCreated: '2026-11-22T10:15:30Z',
      },
    );
    assert.deepEqual(
      [found.providerTxnId, found.merchantTxRef, found.status, found.rawStatus, found.fee, found.currency],
      ['API-BANK_TRF-9', 'mtx_1-2', 'refund', 'REFUND', '0', 'NGN'],
    );
  });

  it('bounds settlement ids by time: no UUIDv7 made at or after a moment sorts below its bound', () => {
    const moment = new Date();
    const bound = lowestUuidv7Before(moment);
    assert.match(bound, /^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-000000000000$/);
    for (let i = 0; i < 100; i += 1) assert.ok(uuidv7() > bound);
    assert.ok(lowestUuidv7Before(new Date(moment.getTime() + 120_000)) > uuidv7());
  });

  it('names a run by the worst it found', () => {
    assert.deepEqual(
      [
        outcomeOf({ alerts: 1, reported: 1, repaired: 3 }),
        outcomeOf({ alerts: 0, reported: 2, repaired: 3 }),
        outcomeOf({ alerts: 0, reported: 0, repaired: 3 }),
        outcomeOf({ alerts: 0, reported: 0, repaired: 0 }),
      ],
      ['alert', 'exceptions', 'repaired', 'clean'],
    );
  });
});
