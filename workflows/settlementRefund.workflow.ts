import { proxyActivities, sleep } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/settlements.activities';
import type { SettlementRefundInput, SettlementWorkflowStatus } from '../src/temporal/payloads';

const { lookupTransferStatus, refundSettlement } = proxyActivities<SettlementActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const MAX_POLL_MS = 10 * 60_000;

/**
 * Started by a signed payout_refund webhook, also after the settlement workflow has finished watching.
 * It reverses only what the provider itself reports as REFUND; applying a refund twice changes nothing.
 */
export async function settlementRefundWorkflow(input: SettlementRefundInput): Promise<SettlementWorkflowStatus | 'not_refunded'> {
  let delay = 5_000;
  for (;;) {
    const lookup = await lookupTransferStatus(input.providerRef);
    if (lookup.kind === 'found') {
      return lookup.status === 'REFUND' ? refundSettlement(input.settlementId, 'provider refunded the transfer') : 'not_refunded';
    }
    if (lookup.kind === 'not_found') return 'not_refunded';
    await sleep(delay);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}
