import { Client, Connection } from '@temporalio/client';
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
