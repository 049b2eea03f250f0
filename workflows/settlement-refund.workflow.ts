import {
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  sleep,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import type { SettlementActivities } from '../activities/settlements.activities';
import { continueAsNewWith, historyIsLong } from './continue-as-new';
import { MAX_PROVIDER_BACKOFF_MS, pace } from './pacing';
import { ACCOUNT_REF, MERCHANT_TX_REF, SETTLEMENT_STATUS, TENANT_ID } from '../src/contracts/search-attributes';
import { settlementWorkflow } from './settlement.workflow';
import { payoutSignal, type SettlementRefundInput, settlementWorkflowId } from '../src/contracts/settlement.contract';

// Start-to-close from the settlement's input (PROVIDER_TIMEOUT); runs started without it allow a minute.
const refundActivities = (startToCloseMs: number | undefined) =>
  proxyActivities<SettlementActivities>({
    startToCloseTimeout: startToCloseMs ?? '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

/** How a refund event ended: applied to the settlement, recorded on a failed attempt, never confirmed, or about no attempt of it. */
export type SettlementRefundOutcome = 'refunded' | 'attempt_refunded' | 'not_refunded' | 'not_applicable';

/**
 * Started by each signed payout_refund event (its id carries the event's request id, so a second
 * refund event after this one ended is processed too). The activity reverses the debit only when the
 * provider's own lookup shows the settlement's successful attempt as REFUND; a webhook that arrives
 * before the lookup agrees is re-checked with back-off for recheckMs (an outage does not count down).
 */
export async function settlementRefundWorkflow(input: SettlementRefundInput): Promise<SettlementRefundOutcome> {
  const { refundSettlement } = refundActivities(input.settlement.activityTimeoutMs);
  const progress = input.progress ?? { untilMs: Date.now() + input.recheckMs, delayMs: input.pollIntervalMs };
  for (;;) {
    if (historyIsLong()) await continueAsNewWith<typeof settlementRefundWorkflow>({ ...input, progress });

    const check = await refundSettlement(input.settlementId, input.providerRef);
    if (check.kind === 'refunded') {
      await showOnSettlementWorkflow(input);
      return 'refunded';
    }
    if (check.kind === 'attempt_refunded' || check.kind === 'not_applicable') return check.kind;
    if (check.kind === 'not_refunded' && Date.now() >= progress.untilMs) return 'not_refunded';
    const { waitMs, nextDelayMs } = pace(
      progress.delayMs,
      MAX_PROVIDER_BACKOFF_MS,
      check.kind === 'unavailable' ? check.retryAfterMs : undefined,
    );
    progress.delayMs = nextDelayMs;
    await sleep(check.kind === 'not_refunded' ? Math.min(waitMs, Math.max(1, progress.untilMs - Date.now())) : waitMs);
  }
}

/**
 * Keeps SettlementStatus equal to the database: a settlement workflow still running is woken (its own
 * lookup then sees the refund); one that has finished gets a new run under the same id, which reads
 * the settlement's status and ends, so the id's latest run shows `refunded`.
 */
async function showOnSettlementWorkflow(input: SettlementRefundInput): Promise<void> {
  const workflowId = settlementWorkflowId(input.merchantTxRef);
  const inherited = workflowInfo().typedSearchAttributes;
  const attributes: SearchAttributePair[] = [{ key: SETTLEMENT_STATUS, value: 'refunded' }];
  for (const key of [TENANT_ID, ACCOUNT_REF, MERCHANT_TX_REF]) {
    const value = inherited.get(key);
    if (value !== undefined) attributes.push({ key, value });
  }
  for (let tries = 0; tries < 5; tries += 1) {
    try {
      const run = await startChild(settlementWorkflow, {
        workflowId,
        args: [input.settlement],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: attributes,
      });
      // It only reads the settlement and ends; waiting for it keeps the two histories in order.
      await run.result().catch((error: unknown) => log.warn('settlement status run failed', { workflowId, error: String(error) }));
      return;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    try {
      await getExternalWorkflowHandle(workflowId).signal(payoutSignal, { type: 'payout_refund', providerRef: input.providerRef });
      return;
    } catch {
      // It finished between the two calls: start a new run instead.
    }
  }
}
