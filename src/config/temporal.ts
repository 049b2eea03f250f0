import { z } from 'zod';
import { duration, integer, isLoopbackHost, optionalFlag, readableFile, url, type Refuse } from './values';

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
  DYNAMIC_ACCOUNT_RETURNS_INTERVAL: duration('10s').refine((ms) => ms >= 1_000, { error: 'expected at least 1s' }),
  RESERVATION_EXPIRY_INTERVAL: duration('1m').refine((ms) => ms >= 1_000, { error: 'expected at least 1s' }),
});

type TemporalSettings = z.output<typeof temporalEnv>;

/** TLS is on when asked for, or when any TLS setting or an API key is given (Temporal Cloud needs it). */
export function temporalTlsWanted(
  config: Partial<
    Pick<TemporalSettings, 'TEMPORAL_TLS' | 'TEMPORAL_TLS_CA' | 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_SERVER_NAME' | 'TEMPORAL_API_KEY'>
  >,
): boolean {
  return (
    config.TEMPORAL_TLS ??
    Boolean(config.TEMPORAL_TLS_CA || config.TEMPORAL_TLS_CERT || config.TEMPORAL_TLS_SERVER_NAME || config.TEMPORAL_API_KEY)
  );
}

/** The host of "host:port", "[v6]:port", a bare host or a bare IPv6 address. */
function addressHost(address: string): string {
  if (address.startsWith('[')) return address.slice(1, address.indexOf(']'));
  return address.split(':').length === 2 ? address.split(':')[0]! : address;
}

/**
 * Whoever reaches the Temporal frontend can start, signal and terminate every tenant's workflows,
 * settlements included: beyond loopback (where only a sidecar on this machine could answer) the
 * connection must be encrypted and the client must prove who it is, with an API key or a client
 * certificate (mTLS).
 */
export function refuseUnprotectedTemporal(config: TemporalSettings, refuse: Refuse): void {
  if (isLoopbackHost(addressHost(config.TEMPORAL_ADDRESS))) return;
  const where = `TEMPORAL_ADDRESS is ${config.TEMPORAL_ADDRESS}, beyond loopback`;
  if (!temporalTlsWanted(config)) {
    refuse(
      'TEMPORAL_TLS',
      `${where}, and the connection would be plaintext: set TEMPORAL_TLS=true (with TEMPORAL_TLS_CA when the server's certificate is from a private CA)`,
    );
  }
  if (!config.TEMPORAL_API_KEY && !config.TEMPORAL_TLS_CERT) {
    refuse(
      'TEMPORAL_API_KEY',
      `${where}, with no client authentication: set TEMPORAL_API_KEY, or TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (mTLS)`,
    );
  }
}

/** TLS settings that contradict each other, in any environment. */
export function checkTemporalTls(config: TemporalSettings, ctx: z.RefinementCtx): void {
  if ((config.TEMPORAL_TLS_CERT === undefined) !== (config.TEMPORAL_TLS_KEY === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [config.TEMPORAL_TLS_CERT ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT'],
      message: 'mTLS needs both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY',
    });
  }
  if (config.TEMPORAL_TLS === false && (config.TEMPORAL_TLS_CA || config.TEMPORAL_TLS_CERT || config.TEMPORAL_TLS_SERVER_NAME)) {
    ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS'], message: 'is false, but TLS settings are given' });
  }
}
