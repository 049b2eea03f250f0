import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cutBatches, keywordListBytes, SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES } from '../../src/payments/confirmation-batches';
import {
  backedOff,
  decidePayment,
  initialProgress,
  judgeCredit,
  MAX_LOOKUP_INTERVAL_MS,
  mismatchOf,
  nextStep,
  NOT_KNOWN_IN_WINDOW,
  recordLookup,
  rememberLookup,
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

describe('confirmation rules: a batch payment decided from its claim\'s memory', () => {
  const never = { seen: false, notFoundAnswers: 0 };
  const decide = (memory: { seen: boolean; notFoundAnswers: number }, lookup: ProviderTxnLookup, windowOver: boolean) =>
    decidePayment(credit, rememberLookup(memory, lookup), lookup, windowOver);

  it('confirms a match and reverses a failure, a refund or another transaction, whatever the window', () => {
    assert.deepEqual(decide(never, matching, false), { kind: 'confirm' });
    assert.deepEqual(decide(never, { ...matching, status: 'REFUND' }, false), { kind: 'reverse', reason: 'provider reports REFUND' });
    assert.equal(decide(never, { ...matching, transactionId: 'txn-2' }, true).kind, 'reverse');
  });

  it('keeps PROCESSING and an unreachable provider however long after the window', () => {
    assert.equal(decide(never, { ...matching, status: 'PROCESSING' }, true).kind, 'keep');
    assert.equal(decide(never, { kind: 'unavailable', reason: 'HTTP 503' }, true).kind, 'keep');
  });

  it('reverses "not found" only after the window, on the second such answer, and never once the provider has shown it', () => {
    const notFound: ProviderTxnLookup = { kind: 'not_found' };
    assert.equal(decide(never, notFound, false).kind, 'keep', 'within the window');
    assert.deepEqual(decide(never, notFound, true), { kind: 'keep', reason: 'window over; asking once more' });
    const once = rememberLookup(never, notFound);
    assert.deepEqual(decide(once, notFound, true), { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW });
    const seen = rememberLookup(never, { ...matching, status: 'PROCESSING' });
    assert.deepEqual(rememberLookup(seen, notFound), { seen: true, notFoundAnswers: 0 });
    assert.equal(decide(rememberLookup(seen, notFound), notFound, true).kind, 'keep');
  });
});

describe('batch cutting: one tenant per batch, within the size and the search attribute limits', () => {
  const queued = (tenantId: string, count: number, accounts = 1) =>
    Array.from({ length: count }, (_unused, index) => ({
      entryId: `${tenantId}-${index}`,
      tenantId,
      accountRef: `va_${tenantId}_${index % accounts}`,
      providerTxnRef: `API-VACT_TRA-9A8B7-${randomUUID()}`,
    }));

  it("never mixes tenants, keeps each tenant's queue order, stops at the maximum size and gives every tenant a batch before anyone a second", () => {
    const [a, b, c] = [queued('a', 9), queued('b', 3), queued('c', 5)];
    const batches = cutBatches([...a.slice(0, 5), ...b, ...a.slice(5), ...c], 4);
    assert.deepEqual(batches.map((batch) => batch.map((item) => item.entryId)), [
      ['a-0', 'a-1', 'a-2', 'a-3'],
      ['b-0', 'b-1', 'b-2'],
      ['c-0', 'c-1', 'c-2', 'c-3'],
      ['a-4', 'a-5', 'a-6', 'a-7'],
      ['c-4'],
      ['a-8'],
    ]);
  });

  it("cuts where the provider references would pass Temporal's 2 KB value limit: 34 of the provider's 55-character references", () => {
    const batches = cutBatches(queued('t', 100), 500);
    assert.deepEqual(batches.map((batch) => batch.length), [34, 34, 32]);
    for (const batch of batches) {
      assert.ok(keywordListBytes(batch.map((item) => item.providerTxnRef)) <= SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES);
      assert.ok(keywordListBytes(batch.map((item) => item.accountRef)) <= SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES);
    }
  });

  it('cuts on the account list too, and counts an account once however many of its payments a batch holds', () => {
    const long = queued('t', 60, 60).map((item) => ({ ...item, providerTxnRef: `r${item.entryId}`, accountRef: `${item.accountRef}_${'x'.repeat(60)}` }));
    assert.ok(cutBatches(long, 500).every((batch) => keywordListBytes(batch.map((item) => item.accountRef)) <= SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES));
    assert.ok(cutBatches(long, 500).length > 1);
    const oneAccount = queued('t', 30, 1).map((item) => ({ ...item, providerTxnRef: `r${item.entryId}` }));
    assert.deepEqual(cutBatches(oneAccount, 500).map((batch) => batch.length), [30]);
  });
});
