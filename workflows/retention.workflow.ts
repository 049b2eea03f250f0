import { proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/retention.activities';
import type { RetentionResult } from '../src/contracts/retention.contract';

// Batches heartbeat, so a worker that dies mid-run is noticed in a minute; the Schedule skips runs while one is open.
const { applyRetention } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: keeps raw payloads and operational tables within their retention. */
export async function retentionWorkflow(): Promise<RetentionResult> {
  return applyRetention();
}
