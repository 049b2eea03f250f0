import assert from 'node:assert/strict';
import {
  backedOff,
  decidePayment,
  initialProgress,
  judgeCredit,
  MAX_LOOKUP_INTERVAL_MS,
  mismatchOf,
  nextStep,
  NOT_KNOWN_IN_WINDOW,
  notFoundRule,
  recordLookup,
  rememberLookup,
  type CreditFacts,
  type PaymentMemory,
} from '../../src/contracts/confirmation-rules';
import type { ProviderTxnLookup } from '../../src/provider/provider-answers';

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
    assert.deepEqual(judgeCredit(credit, { ...matching, status: 'PAYMENT_FAILED' }), {
      kind: 'wrong',
      reason: 'provider reports PAYMENT_FAILED',
    });
    assert.deepEqual(judgeCredit(credit, { ...matching, status: 'REFUND' }), { kind: 'wrong', reason: 'provider reports REFUND' });
    assert.deepEqual(judgeCredit(credit, { ...matching, status: 'PROCESSING' }), {
      kind: 'undecided',
      reason: 'provider shows it PROCESSING',
    });
    assert.equal(
      judgeCredit(credit, { ...matching, status: 'PROCESSING', grossAmountKobo: '1' }).kind,
      'wrong',
      'a mismatch reverses whatever the status',
    );
    assert.deepEqual(judgeCredit(credit, { kind: 'not_found' }), { kind: 'unknown' });
    assert.equal(judgeCredit(credit, { kind: 'unavailable', reason: 'HTTP 503' }).kind, 'undecided');
  });
});

/** A window of 1,000 s from posting at 0; the default minimum of 3 spaces counted answers a third of it apart. */
const WINDOW = 1_000_000;
const rule = notFoundRule(WINDOW, 3);
const SPACING = 333_334;
const notFound: ProviderTxnLookup = { kind: 'not_found' };

describe('confirmation rules: the "not found" rule', () => {
  it('spaces counted answers a minimum-th of the window apart (rounded up); runs without a minimum keep two unspaced answers', () => {
    assert.deepEqual(rule, { answersToReverse: 3, spacingMs: SPACING });
    assert.deepEqual(notFoundRule(30 * 60_000, 3), { answersToReverse: 3, spacingMs: 10 * 60_000 });
    assert.deepEqual(notFoundRule(WINDOW, 1), { answersToReverse: 1, spacingMs: WINDOW });
    assert.deepEqual(notFoundRule(WINDOW, undefined), { answersToReverse: 2, spacingMs: 0 });
  });
});

describe('confirmation rules: the next step after a lookup', () => {
  const POLL = 2_000;
  const clock = (nowMs: number) => ({ nowMs, deadlineMs: WINDOW, pollIntervalMs: POLL });
  /** The progress after these answers, each at its time in `at` (all at `at` when one number). */
  const after = (answers: ProviderTxnLookup[], at: number | number[] = 0, using = rule) =>
    answers.reduce(
      (progress, answer, index) => recordLookup(progress, answer, Array.isArray(at) ? at[index]! : at, using),
      initialProgress(2_000),
    );
  const stepAfter = (times: number[]) =>
    nextStep(
      after(
        times.map(() => notFound),
        times,
      ),
      notFound,
      clock(times.at(-1)!),
      rule,
    );

  it('confirms SUCCESS and reverses a failure or refund at any time', () => {
    const found = { ...matching };
    assert.deepEqual(nextStep(after([found]), found, clock(0), rule), { kind: 'confirm' });
    const failed = { ...matching, status: 'PAYMENT_FAILED' as const };
    assert.equal(nextStep(after([failed]), failed, clock(0), rule).kind, 'reverse');
  });

  it('waits on PROCESSING, even long after the deadline', () => {
    const processing = { ...matching, status: 'PROCESSING' as const };
    assert.equal(nextStep(after([processing]), processing, clock(10_000_000), rule).kind, 'wait');
  });

  it('within the window, waits for a "not found" no longer than the time left', () => {
    const step = nextStep(backedOff(backedOff(backedOff(after([notFound], 999_000)))), notFound, clock(999_000), rule);
    assert.deepEqual(step, { kind: 'wait', ms: 1_000, why: 'not found yet, within the window' });
  });

  it('counts a "not found" only a spacing after the last counted one; the first counts whenever it comes', () => {
    const progress = after([notFound, notFound, notFound, notFound], [5, 10, SPACING + 4, SPACING + 5]);
    assert.equal(progress.lookups, 4);
    assert.equal(progress.notFoundAnswers, 2);
    assert.equal(progress.lastNotFoundCountedAtMs, SPACING + 5);
  });

  it('the window over after two "not found" answers bunched together: keeps the credit and asks again once an answer can count', () => {
    const step = stepAfter([WINDOW + 1, WINDOW + 2_001]);
    assert.equal(step.kind, 'wait', 'two answers a stalled worker fitted in do not reverse');
    assert.deepEqual(step, {
      kind: 'wait',
      ms: SPACING - 2_000 + POLL,
      why: 'window over; 1 of 3 counted "not found" answers (spaced, the last after the window)',
    });
  });

  it('a stalled worker asking three times in quick succession after the window keeps the credit, and its next lookups are spaced', () => {
    for (const times of [
      [WINDOW + 1, WINDOW + 2_001, WINDOW + 6_001],
      [WINDOW - 4_000, WINDOW - 2_000, WINDOW + 1],
    ]) {
      const step = stepAfter(times);
      assert.equal(step.kind, 'wait', `answers at ${times}`);
      assert.equal(
        step.kind === 'wait' && times.at(-1)! + step.ms,
        times[0]! + SPACING + POLL,
        'the next lookup comes a poll interval after an answer can count again',
      );
    }
    assert.equal(stepAfter([WINDOW + 1, WINDOW + 6_001, WINDOW + 1 + SPACING]).kind, 'wait', 'two counted');
    assert.deepEqual(stepAfter([WINDOW + 1, WINDOW + 6_001, WINDOW + 1 + SPACING, WINDOW + 1 + 2 * SPACING]), {
      kind: 'reverse',
      reason: NOT_KNOWN_IN_WINDOW,
    });
  });

  it('three "not found" answers spread over the window, the last after it, reverse', () => {
    assert.deepEqual(stepAfter([0, SPACING, 2 * SPACING, WINDOW + 2]), { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW });
    assert.deepEqual(
      stepAfter([0, SPACING, WINDOW]),
      { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW },
      'the third at the moment the window closes',
    );
  });

  it('three counted within the window are not enough while none counted after it: waits until one can count', () => {
    const step = stepAfter([0, 400_000, 800_000, WINDOW]);
    assert.deepEqual(step, {
      kind: 'wait',
      ms: 800_000 + SPACING - WINDOW + POLL,
      why: 'window over; 3 of 3 counted "not found" answers (spaced, the last after the window)',
    });
    assert.deepEqual(stepAfter([0, 400_000, 800_000, WINDOW, 800_000 + SPACING]), { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW });
  });

  it('a run started without a minimum keeps its rule: after the window, the second "not found" reverses', () => {
    const legacy = notFoundRule(WINDOW, undefined);
    const once = after([notFound], 2_000_000, legacy);
    assert.deepEqual(nextStep(once, notFound, clock(2_000_000), legacy), {
      kind: 'wait',
      ms: 2_000,
      why: 'window over; 1 of 2 counted "not found" answers (spaced, the last after the window)',
    });
    const twice = after([notFound, { kind: 'unavailable', reason: 'x' }, notFound], 2_000_000, legacy);
    assert.equal(nextStep(twice, notFound, clock(2_000_000), legacy).kind, 'reverse');
  });

  it('once seen, "not found" never reverses', () => {
    const seen = after([{ ...matching, status: 'PROCESSING' }, notFound, notFound, notFound], [0, SPACING, 2 * SPACING, WINDOW + 1]);
    assert.notEqual(seen.firstSeenAtMs, null);
    assert.equal(seen.notFoundAnswers, 0);
    assert.equal(nextStep(seen, notFound, clock(99_000_000), rule).kind, 'wait');
  });

  it('an unreachable provider never reverses', () => {
    const progress = after([notFound, notFound, notFound, { kind: 'unavailable', reason: 'x' }], [0, SPACING, WINDOW + 1, 99_000_000]);
    assert.equal(nextStep(progress, { kind: 'unavailable', reason: 'x' }, clock(99_000_000), rule).kind, 'wait');
  });

  it('backs off by doubling to the cap', () => {
    let progress = initialProgress(2_000);
    for (let i = 0; i < 20; i += 1) progress = backedOff(progress);
    assert.equal(progress.delayMs, MAX_LOOKUP_INTERVAL_MS);
    assert.equal(backedOff(initialProgress(2_000)).delayMs, 4_000);
  });
});

describe('confirmation rules: intervals', () => {
  it('never asks in a tight loop, even with a zero interval and a zero window configured', () => {
    const progress = initialProgress(0);
    assert.equal(progress.delayMs, 100);
    const zero = notFoundRule(0, 3);
    assert.deepEqual(nextStep(recordLookup(progress, notFound, 0, zero), notFound, { nowMs: 10, deadlineMs: 0, pollIntervalMs: 0 }, zero), {
      kind: 'wait',
      ms: 100,
      why: 'window over; 1 of 3 counted "not found" answers (spaced, the last after the window)',
    });
  });
});

describe("confirmation rules: a batch payment decided from its claim's memory", () => {
  const never: PaymentMemory = { seen: false, notFoundAnswers: 0, lastNotFoundCountedAtMs: null };
  /** The memory after "not found" answers at these times. */
  const notFoundAt = (times: number[]) => times.reduce((memory, atMs) => rememberLookup(memory, notFound, atMs, rule), never);
  const decide = (memory: PaymentMemory, lookup: ProviderTxnLookup, nowMs: number) =>
    decidePayment(credit, rememberLookup(memory, lookup, nowMs, rule), lookup, { nowMs, windowEndsAtMs: WINDOW }, rule);

  it('confirms a match and reverses a failure, a refund or another transaction, whatever the window', () => {
    assert.deepEqual(decide(never, matching, 0), { kind: 'confirm' });
    assert.deepEqual(decide(never, { ...matching, status: 'REFUND' }, 0), { kind: 'reverse', reason: 'provider reports REFUND' });
    assert.equal(decide(never, { ...matching, transactionId: 'txn-2' }, WINDOW).kind, 'reverse');
  });

  it('keeps PROCESSING and an unreachable provider however long after the window', () => {
    assert.equal(decide(never, { ...matching, status: 'PROCESSING' }, WINDOW).kind, 'keep');
    assert.equal(decide(never, { kind: 'unavailable', reason: 'HTTP 503' }, WINDOW).kind, 'keep');
  });

  it('keeps "not found" within the window, and after it while fewer than the minimum spaced answers counted', () => {
    assert.deepEqual(decide(never, notFound, 0), { kind: 'keep', reason: 'not found yet, within the window' });
    assert.equal(decide(never, notFound, WINDOW + 1).kind, 'keep', 'one answer');
    assert.equal(decide(notFoundAt([WINDOW + 1]), notFound, WINDOW + 2_001).kind, 'keep', 'two answers bunched after the window');
    assert.equal(
      decide(notFoundAt([WINDOW + 1, WINDOW + 2_001]), notFound, WINDOW + 6_001).kind,
      'keep',
      'three answers bunched after the window',
    );
  });

  it('reverses "not found" once three answers spread over the window counted, the last after it', () => {
    assert.deepEqual(decide(notFoundAt([0, SPACING]), notFound, WINDOW + 1), { kind: 'reverse', reason: NOT_KNOWN_IN_WINDOW });
    assert.deepEqual(decide(notFoundAt([WINDOW + 1, WINDOW + 1 + SPACING]), notFound, WINDOW + 1 + 2 * SPACING), {
      kind: 'reverse',
      reason: NOT_KNOWN_IN_WINDOW,
    });
  });

  it('never reverses "not found" once the provider has shown the transaction', () => {
    const seen = rememberLookup(never, { ...matching, status: 'PROCESSING' }, 0, rule);
    assert.deepEqual(rememberLookup(seen, notFound, SPACING, rule), { seen: true, notFoundAnswers: 0, lastNotFoundCountedAtMs: null });
    assert.equal(
      decide(rememberLookup(rememberLookup(seen, notFound, SPACING, rule), notFound, 2 * SPACING, rule), notFound, WINDOW + 1).kind,
      'keep',
    );
  });
});
