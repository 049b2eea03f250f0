import assert from 'node:assert/strict';
import {
  backedOff,
  initialProgress,
  judgeCredit,
  MAX_LOOKUP_INTERVAL_MS,
  mismatchOf,
  nextStep,
  recordLookup,
  type CreditFacts,
} from '../../src/payments/confirmation-rules';
import type { ProviderTxnLookup } from '../../src/temporal/payloads';

type Found = Extract<ProviderTxnLookup, { kind: 'found' }>;

const credit: CreditFacts = { providerTxnRef: 'txn-1', aliasAccountRef: 'va_abc_1', grossAmountKobo: '502500', currency: 'NGN' };
const matching: Found = {
  kind: 'found',
  status: 'SUCCESS',
  grossAmountKobo: '502500',
  feeKobo: '2500',
  transactionId: 'txn-1',
  accountRef: 'va_abc_1',
  type: 'vact_transfer',
  merchantTxRef: null,
  currency: 'NGN',
};

describe('confirmation rules: comparing the provider transaction with the credit', () => {
  it('matches when every returned field is equal', () => {
    assert.equal(mismatchOf(credit, matching), null);
    assert.deepEqual(judgeCredit(credit, matching), { kind: 'matches' });
  });

  it('names each field that differs: id, account, direction, currency, gross amount', () => {
    const cases: Array<[Partial<Found>, RegExp]> = [
      [{ transactionId: 'txn-2' }, /transaction txn-2 is not txn-1/],
      [{ accountRef: 'va_other_2' }, /account va_other_2, not va_abc_1/],
      [{ type: 'transfer' }, /outgoing transfer/],
      [{ merchantTxRef: 'mtx_1-1' }, /outgoing transfer/],
      [{ currency: 'USD' }, /currency USD differs from NGN/],
      [{ grossAmountKobo: '502501' }, /amount 502501 kobo differs from 502500 kobo/],
    ];
    for (const [change, reason] of cases) {
      assert.match(mismatchOf(credit, { ...matching, ...change }) ?? '', reason, JSON.stringify(change));
      assert.equal(judgeCredit(credit, { ...matching, ...change }).kind, 'wrong');
    }
  });

  it('a field the lookup does not return is not a mismatch; a missing currency means NGN', () => {
    const sparse: Found = { kind: 'found', status: 'SUCCESS', grossAmountKobo: '502500', feeKobo: null, transactionId: 'txn-1' };
    assert.equal(mismatchOf(credit, sparse), null);
    assert.equal(mismatchOf(credit, { ...sparse, accountRef: null, type: null, merchantTxRef: null, currency: null }), null);
    assert.match(mismatchOf({ ...credit, currency: 'USD' }, sparse) ?? '', /currency NGN differs from USD/);
  });

  it('a fee that differs is not a mismatch (the money arrived; the fee is recorded from the webhook)', () => {
    assert.equal(mismatchOf(credit, { ...matching, feeKobo: '5000' }), null);
  });

  it('judges failed, refunded, processing, unknown and unreachable answers', () => {
    assert.deepEqual(judgeCredit(credit, { ...matching, status: 'PAYMENT_FAILED' }), { kind: 'wrong', reason: 'provider reports PAYMENT_FAILED' });
    assert.deepEqual(judgeCredit(credit, { ...matching, status: 'REFUND' }), { kind: 'wrong', reason: 'provider reports REFUND' });
    assert.deepEqual(judgeCredit(credit, { ...matching, status: 'PROCESSING' }), { kind: 'undecided', reason: 'provider shows it PROCESSING' });
    assert.equal(judgeCredit(credit, { ...matching, status: 'PROCESSING', grossAmountKobo: '1' }).kind, 'wrong', 'a mismatch reverses whatever the status');
    assert.deepEqual(judgeCredit(credit, { kind: 'not_found' }), { kind: 'unknown' });
    assert.equal(judgeCredit(credit, { kind: 'unavailable', reason: 'HTTP 503' }).kind, 'undecided');
  });
});

describe('confirmation rules: the next step after a lookup', () => {
  const clock = (nowMs: number) => ({ nowMs, deadlineMs: 1_000_000, pollIntervalMs: 2_000 });
  const after = (answers: ProviderTxnLookup[], nowMs = 0) => answers.reduce((progress, answer) => recordLookup(progress, answer, nowMs), initialProgress(2_000));

  it('confirms SUCCESS and reverses a failure or refund at any time', () => {
    const found = { ...matching };
    assert.deepEqual(nextStep(after([found]), found, clock(0)), { kind: 'confirm' });
    const failed = { ...matching, status: 'PAYMENT_FAILED' as const };
    assert.equal(nextStep(after([failed]), failed, clock(0)).kind, 'reverse');
  });

  it('waits on PROCESSING, even long after the deadline', () => {
    const processing = { ...matching, status: 'PROCESSING' as const };
    assert.equal(nextStep(after([processing]), processing, clock(10_000_000)).kind, 'wait');
  });

  it('within the window, waits for a "not found" no longer than the time left', () => {
    const step = nextStep(backedOff(backedOff(backedOff(after([{ kind: 'not_found' }])))), { kind: 'not_found' }, clock(999_000));
    assert.deepEqual(step, { kind: 'wait', ms: 1_000, why: 'not found yet, within the window' });
  });

  it('after the window, reverses "not found" only on the second answer', () => {
    const once = after([{ kind: 'not_found' }]);
    assert.deepEqual(nextStep(once, { kind: 'not_found' }, clock(2_000_000)), { kind: 'wait', ms: 2_000, why: 'window over; asking once more' });
    const twice = after([{ kind: 'not_found' }, { kind: 'unavailable', reason: 'x' }, { kind: 'not_found' }]);
    assert.equal(nextStep(twice, { kind: 'not_found' }, clock(2_000_000)).kind, 'reverse');
  });

  it('once seen, "not found" never reverses', () => {
    const seen = after([{ ...matching, status: 'PROCESSING' }, { kind: 'not_found' }, { kind: 'not_found' }, { kind: 'not_found' }]);
    assert.notEqual(seen.firstSeenAtMs, null);
    assert.equal(seen.notFoundAnswers, 0);
    assert.equal(nextStep(seen, { kind: 'not_found' }, clock(99_000_000)).kind, 'wait');
  });

  it('an unreachable provider never reverses', () => {
    const progress = after([{ kind: 'not_found' }, { kind: 'not_found' }, { kind: 'unavailable', reason: 'x' }]);
    assert.equal(nextStep(progress, { kind: 'unavailable', reason: 'x' }, clock(99_000_000)).kind, 'wait');
  });

  it('backs off by doubling to the cap', () => {
    let progress = initialProgress(2_000);
    for (let i = 0; i < 20; i += 1) progress = backedOff(progress);
    assert.equal(progress.delayMs, MAX_LOOKUP_INTERVAL_MS);
    assert.equal(backedOff(initialProgress(2_000)).delayMs, 4_000);
  });
});

describe('confirmation rules: intervals', () => {
  it('never asks in a tight loop, even with a zero interval configured', () => {
    const progress = initialProgress(0);
    assert.equal(progress.delayMs, 100);
    assert.deepEqual(nextStep(recordLookup(progress, { kind: 'not_found' }, 0), { kind: 'not_found' }, { nowMs: 10, deadlineMs: 0, pollIntervalMs: 0 }), {
      kind: 'wait',
      ms: 100,
      why: 'window over; asking once more',
    });
  });
});
