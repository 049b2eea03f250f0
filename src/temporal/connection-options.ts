import type { TLSConfig } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import type { Config } from '../config';
import { temporalTlsWanted } from '../config/temporal';

/** The address and namespace; the TLS and API-key settings only when used. */
export type TemporalConnectionConfig = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'> &
  Partial<
    Pick<
      Config,
      'TEMPORAL_TLS' | 'TEMPORAL_TLS_CA' | 'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_SERVER_NAME' | 'TEMPORAL_API_KEY'
    >
  >;

/** What both the client's Connection and the worker's NativeConnection take. */
export interface TemporalConnectionOptions {
  address: string;
  tls: TLSConfig | false;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/**
 * TLS (a private CA, mTLS with a client certificate, a server name override) and API-key settings for
 * every connection to Temporal: the API's client, the worker, the CLI and the tests.
 */
export function temporalConnectionOptions(config: TemporalConnectionConfig): TemporalConnectionOptions {
  const tls: TLSConfig | false = temporalTlsWanted(config)
    ? {
        ...(config.TEMPORAL_TLS_CA ? { serverRootCACertificate: readFileSync(config.TEMPORAL_TLS_CA) } : {}),
        ...(config.TEMPORAL_TLS_CERT && config.TEMPORAL_TLS_KEY
          ? { clientCertPair: { crt: readFileSync(config.TEMPORAL_TLS_CERT), key: readFileSync(config.TEMPORAL_TLS_KEY) } }
          : {}),
        ...(config.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: config.TEMPORAL_TLS_SERVER_NAME } : {}),
      }
    : false;
  return {
    address: config.TEMPORAL_ADDRESS,
    tls,
    // Temporal Cloud's regional endpoints route an API-key call by this header.
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY, metadata: { 'temporal-namespace': config.TEMPORAL_NAMESPACE } } : {}),
  };
}
