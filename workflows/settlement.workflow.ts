import { condition, defineQuery, defineSignal, proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/settlements.activities';
import {
  PAYOUT_SIGNAL,
  type PayoutSignal,
  type SettlementInput,
  type SettlementWorkflowState,
  type SettlementWorkflowStatus,
  type SubmissionResult,
} from '../src/temporal/payloads';
import { SETTLEMENT_STATUS } from '../src/temporal/search-attributes';

// Each activity is one provider call (10 s deadline, plus a token refresh at worst) around short
// transactions: a worker that dies mid-activity delays the settlement by this much at most.
const activities = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const MAX_POLL_MS = 60_000;
const MAX_REFUND_POLL_MS = 60 * 60_000;

export const payoutSignal = defineSignal<[PayoutSignal]>(PAYOUT_SIGNAL);
export const settlementStatusQuery = defineQuery<SettlementWorkflowState>('status');

type AttemptOutcome = { kind: 'success'; feeKobo: string | null } | { kind: 'failed'; reason: string } | { kind: 'refund' } | { kind: 'closed' };

/**
 * Pays a settlement out: up to maxAttempts submissions, each under its own reference `<ref>-<n>`.
 * A new reference is used only once the previous one has definitely failed; an ambiguous submission is
 * resolved by a status lookup first (and repeated under the same reference, which the provider dedups).
 * All attempts failing reverses the debit (status failed); a provider refund at any point reverses it
 * too (status refunded); after success, refunds are still watched for refundWatchMs.
 */
export async function settlementWorkflow(input: SettlementInput): Promise<SettlementWorkflowStatus> {
  const state: SettlementWorkflowState = { status: 'pending', attempt: 0, providerRef: null, lastProviderStatus: null };
  // References the provider has sent news about since the workflow last waited for them.
  const news = new Set<string>();
  setHandler(settlementStatusQuery, () => state);
  setHandler(payoutSignal, (signal) => {
    news.add(signal.providerRef);
  });

  const setStatus = (status: SettlementWorkflowStatus): SettlementWorkflowStatus => {
    if (state.status !== status) upsertSearchAttributes([{ key: SETTLEMENT_STATUS, value: status }]);
    state.status = status;
    return status;
  };

  /** Sleeps up to `ms`, waking early when the provider's webhook for `providerRef` arrives (or arrived meanwhile). */
  const waitForNews = async (providerRef: string, ms: number): Promise<void> => {
    await condition(() => news.has(providerRef), ms);
    news.delete(providerRef);
  };

  const awaitOutcome = async (attempt: number, providerRef: string, submission: SubmissionResult): Promise<AttemptOutcome> => {
    if (submission.kind === 'settlement_closed') return { kind: 'closed' };
    if (submission.kind === 'rejected') return { kind: 'failed', reason: submission.reason };
    let current: SubmissionResult = submission;
    let delay = input.pollIntervalMs;
    for (;;) {
      const lookup = await activities.lookupTransferStatus(providerRef);
      state.lastProviderStatus = lookup.kind === 'found' ? lookup.status : lookup.kind;
      if (lookup.kind === 'found') {
        if (lookup.status === 'SUCCESS') return { kind: 'success', feeKobo: lookup.feeKobo };
        if (lookup.status === 'PAYMENT_FAILED') return { kind: 'failed', reason: 'provider reports PAYMENT_FAILED' };
        if (lookup.status === 'REFUND') return { kind: 'refund' };
      }
      if (lookup.kind === 'not_found' && current.kind === 'ambiguous') {
        // The provider has no record of it: repeating the same reference cannot pay twice.
        current = await activities.submitSettlementAttempt(input.settlementId, attempt);
        if (current.kind === 'settlement_closed') return { kind: 'closed' };
        if (current.kind === 'rejected') return { kind: 'failed', reason: current.reason };
        continue;
      }
      await waitForNews(providerRef, delay);
      delay = Math.min(Math.round(delay * 1.5), MAX_POLL_MS);
    }
  };

  const watchForRefund = async (providerRef: string): Promise<SettlementWorkflowStatus> => {
    const deadline = Date.now() + input.refundWatchMs;
    let delay = input.pollIntervalMs;
    while (Date.now() < deadline) {
      await waitForNews(providerRef, Math.min(delay, deadline - Date.now()));
      const lookup = await activities.lookupTransferStatus(providerRef);
      if (lookup.kind === 'found' && lookup.status === 'REFUND') {
        return setStatus(await activities.refundSettlement(input.settlementId, 'provider refunded the transfer after success'));
      }
      delay = Math.min(delay * 2, MAX_REFUND_POLL_MS);
    }
    return state.status;
  };

  const destination = await activities.checkSettlementDestination(input.settlementId);
  if (destination.kind === 'closed') return setStatus(destination.status);
  if (destination.kind === 'invalid') return setStatus(await activities.failSettlement(input.settlementId, destination.reason));

  for (let attempt = 1; attempt <= input.maxAttempts; attempt += 1) {
    const providerRef = `${input.merchantTxRef}-${attempt}`;
    state.attempt = attempt;
    state.providerRef = providerRef;
    const submission = await activities.submitSettlementAttempt(input.settlementId, attempt);
    if (submission.kind !== 'settlement_closed') setStatus('processing');
    const outcome = await awaitOutcome(attempt, providerRef, submission);
    if (outcome.kind === 'closed') return state.status;
    if (outcome.kind === 'refund') return setStatus(await activities.refundSettlement(input.settlementId, 'provider refunded the transfer'));
    if (outcome.kind === 'success') {
      const status = setStatus(await activities.completeSettlement(input.settlementId, attempt, outcome.feeKobo));
      return status === 'success' ? watchForRefund(providerRef) : status;
    }
    await activities.markSettlementAttemptFailed(input.settlementId, attempt, outcome.reason);
    if (attempt < input.maxAttempts) {
      await sleep(input.retryScheduleMs[Math.min(attempt - 1, input.retryScheduleMs.length - 1)] ?? 0);
    }
  }
  return setStatus(await activities.failSettlement(input.settlementId, `all ${input.maxAttempts} submission attempts failed`));
}
