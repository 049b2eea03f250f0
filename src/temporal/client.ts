import { Client, Connection, isGrpcServiceError } from '@temporalio/client';
import { temporalConnectionOptions, type TemporalConnectionConfig } from './connection-options';

export type TemporalConfig = TemporalConnectionConfig;

/** Lazy: the API starts (and answers webhooks) even while Temporal is down. */
export function createTemporalClient(config: TemporalConfig): Client {
  return new Client({ connection: Connection.lazy(temporalConnectionOptions(config)), namespace: config.TEMPORAL_NAMESPACE });
}

export async function isTemporalReachable(client: Client, timeoutMs = 1_000): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}

/** gRPC codes of a call that reached no working Temporal: UNAVAILABLE (down, refused) and DEADLINE_EXCEEDED (no answer in time). */
const UNREACHABLE_CODES: ReadonlySet<number> = new Set([14, 4]);

/** Whether a client call failed for want of Temporal (down or not answering) rather than for what it asked. */
export function isTemporalUnreachableError(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (isGrpcServiceError(cause) && UNREACHABLE_CODES.has(cause.code)) return true;
  }
  return false;
}
