import { z } from 'zod';
import { duration, integer, optionalFlag, readableFile, url } from './values';

/** The Temporal connection, and how workflows are started from the outbox. */
export const temporalEnv = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('ledger'),
  /** Unset: TLS whenever a CA, client certificate, server name or API key is given. */
  TEMPORAL_TLS: optionalFlag,
  TEMPORAL_TLS_CA: readableFile.optional(),
  TEMPORAL_TLS_CERT: readableFile.optional(),
  TEMPORAL_TLS_KEY: readableFile.optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_UI_URL: url('http://localhost:8233'),
  WORKFLOW_START_RATE: integer(25, 1, 100_000),
  OUTBOX_DRAIN_INTERVAL: duration('250ms'),
  SWEEP_INTERVAL: duration('1m'),
  SWEEP_GRACE: duration('10s'),
});

type TemporalSettings = z.output<typeof temporalEnv>;

/** TLS settings that contradict each other, in any environment. */
export function checkTemporalTls(config: TemporalSettings, ctx: z.RefinementCtx): void {
  if ((config.TEMPORAL_TLS_CERT === undefined) !== (config.TEMPORAL_TLS_KEY === undefined)) {
    ctx.addIssue({ code: 'custom', path: [config.TEMPORAL_TLS_CERT ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT'], message: 'mTLS needs both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY' });
  }
  if (config.TEMPORAL_TLS === false && (config.TEMPORAL_TLS_CA || config.TEMPORAL_TLS_CERT || config.TEMPORAL_TLS_SERVER_NAME)) {
    ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: 'is false, but TLS settings are given' });
  }
}
