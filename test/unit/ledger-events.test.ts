import assert from 'node:assert/strict';
import { accountsOf, moneyEventsOf, type ToldResult } from '../../src/events/ledger-events';
import type { LedgerEntry } from '../../src/ledger/ledger.types';

const TENANT = '0190f0c8-9a1e-7c3b-8f00-00000000000a';
const GROUP = '0190f0c8-9a1e-7c3b-8f00-1234567890ab';
const PAYEE = '0190f0c8-9a1e-7c3b-8f00-0000000000a1';
const OTHER = '0190f0c8-9a1e-7c3b-8f00-0000000000a2';
const REFS = new Map([
  [PAYEE, 'ACC-PAYEE'],
  [OTHER, 'ACC-OTHER'],
]);

let next = 0;
const entry = (change: Partial<LedgerEntry>): LedgerEntry => ({
  id: `0190f0c8-9a1e-7c3b-8f00-${String((next += 1)).padStart(12, '0')}`,
  tenantId: TENANT,
  accountId: PAYEE,
  seq: 1n,
  direction: 'credit',
  kind: 'payment',
  amount: 5_000_00n,
  fee: 25_00n,
  currency: 'NGN',
  status: 'provisional',
  narration: 'Ada',
  providerTxnRef: 'TXN-1',
  transactionGroupId: GROUP,
  transactionId: GROUP,
  reversesEntryId: null,
  balanceAfter: 5_000_00n,
  creditsToDate: 5_000_00n,
  debitsToDate: 0n,
  createdAt: new Date('2026-11-29T08:00:00Z'),
  ...change,
});

/** Each event as the outbox stores it: tenant, type and the data's bytes. */
const told = (result: ToldResult, reason?: string, settlement?: 'failed' | 'refunded') =>
  moneyEventsOf(result, REFS, reason === undefined ? undefined : { reason, settlement }).map((event) => ({
    tenantId: event.tenantId,
    type: event.type,
    data: JSON.stringify(event.data),
  }));

describe('money events from what the ledger did', () => {
  it('a reversed payment credit is told as payment.reversed: the credit reversed, its account and the reason', () => {
    const original = entry({ status: 'reversed' });
    const reversal = entry({ direction: 'debit', kind: 'reversal', status: 'confirmed', reversesEntryId: original.id });
    assert.deepEqual(told({ kind: 'reversed', original, reversal }, 'the provider does not know it'), [
      {
        tenantId: TENANT,
        type: 'payment.reversed',
        data: `{"transactionGroupId":"${GROUP}","accountRef":"ACC-PAYEE","amount":"5000.00","currency":"NGN","reason":"the provider does not know it"}`,
      },
    ]);
  });

  it("a settlement's debit reversed is told as the settlement's end, failed or refunded, with its merchantTxRef and the reason", () => {
    const original = entry({
      direction: 'debit',
      kind: 'settlement',
      status: 'reversed',
      amount: 1_000_00n,
      fee: 0n,
      providerTxnRef: 'MTX-9',
    });
    const reversal = entry({ kind: 'reversal', status: 'confirmed', reversesEntryId: original.id });
    assert.deepEqual(told({ kind: 'reversed', original, reversal }, 'provider reports PAYMENT_FAILED', 'failed'), [
      {
        tenantId: TENANT,
        type: 'settlement.failed',
        data: '{"merchantTxRef":"MTX-9","accountRef":"ACC-PAYEE","amount":"1000.00","currency":"NGN","status":"failed","reason":"provider reports PAYMENT_FAILED"}',
      },
    ]);
    assert.deepEqual(told({ kind: 'reversed', original, reversal }, 'provider refunded the transfer', 'refunded'), [
      {
        tenantId: TENANT,
        type: 'settlement.refunded',
        data: '{"merchantTxRef":"MTX-9","accountRef":"ACC-PAYEE","amount":"1000.00","currency":"NGN","status":"refunded","reason":"provider refunded the transfer"}',
      },
    ]);
    assert.throws(() => told({ kind: 'reversed', original, reversal }, 'why'), /how the settlement ended/);
  });

  it('a settlement paid is told as settlement.succeeded, from its debit', () => {
    const debit = entry({
      direction: 'debit',
      kind: 'settlement',
      status: 'confirmed',
      amount: 1_000_00n,
      fee: 0n,
      providerTxnRef: 'MTX-9',
    });
    assert.deepEqual(told({ kind: 'settlement_paid', debit }), [
      {
        tenantId: TENANT,
        type: 'settlement.succeeded',
        data: '{"merchantTxRef":"MTX-9","accountRef":"ACC-PAYEE","amount":"1000.00","currency":"NGN","status":"success","reason":null}',
      },
    ]);
  });

  it('a restored credit is told as payment.restored, for the amount the restoration credited', () => {
    const original = entry({ status: 'reversed' });
    const restored = entry({ kind: 'adjustment', status: 'confirmed', amount: 4_000_00n });
    assert.deepEqual(told({ kind: 'restored', original, entry: restored, held: 0n }, 'the provider shows it paid'), [
      {
        tenantId: TENANT,
        type: 'payment.restored',
        data: `{"transactionGroupId":"${GROUP}","accountRef":"ACC-PAYEE","amount":"4000.00","currency":"NGN","reason":"the provider shows it paid"}`,
      },
    ]);
  });

  it('a compensated credit is told as payment.compensated, for the amount the compensating debit took back', () => {
    const credit = entry({ status: 'confirmed' });
    const debit = entry({ direction: 'debit', kind: 'adjustment', status: 'confirmed', amount: 5_000_00n });
    assert.deepEqual(told({ kind: 'compensated', credit, debit, takenBack: [] }, 'the provider reports this payment refunded'), [
      {
        tenantId: TENANT,
        type: 'payment.compensated',
        data: `{"transactionGroupId":"${GROUP}","accountRef":"ACC-PAYEE","amount":"5000.00","currency":"NGN","reason":"the provider reports this payment refunded"}`,
      },
    ]);
  });

  it('a transfer is told as transfer.completed: its reference is the transfer, with both accounts and what the limits hold', () => {
    const transferId = '0190f0c8-9a1e-7c3b-8f00-00000000f001';
    const debit = entry({
      accountId: PAYEE,
      direction: 'debit',
      kind: 'transfer',
      status: 'confirmed',
      amount: 250_50n,
      narration: 'rent',
    });
    const credit = entry({ accountId: OTHER, kind: 'transfer', status: 'confirmed', amount: 250_50n, narration: 'rent' });
    const result: ToldResult = { kind: 'transferred', reference: transferId, transactionId: GROUP, debit, credit, held: 50n };
    assert.deepEqual(accountsOf(result), [PAYEE, OTHER]);
    assert.deepEqual(told(result), [
      {
        tenantId: TENANT,
        type: 'transfer.completed',
        data: `{"transferId":"${transferId}","fromAccountRef":"ACC-PAYEE","toAccountRef":"ACC-OTHER","amount":"250.50","currency":"NGN","narration":"rent","heldAmount":"0.50"}`,
      },
    ]);
  });

  it('refuses to tell a correction without its reason, or an event naming an account whose reference it was not given', () => {
    const original = entry({ status: 'reversed' });
    const reversal = entry({ direction: 'debit', kind: 'reversal', status: 'confirmed' });
    assert.throws(() => told({ kind: 'reversed', original, reversal }), /told with its reason/);
    assert.throws(
      () => moneyEventsOf({ kind: 'reversed', original: entry({ accountId: TENANT }), reversal }, REFS, { reason: 'x' }),
      /no reference for account/,
    );
  });
});
