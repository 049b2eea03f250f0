import type { z } from 'zod';
import type { Config } from '../../config';
import type { Logger } from '../../logger';
import type { ProviderMetrics } from '../../metrics/provider.metrics';
import { koboToProviderNumber } from '../../money';
import { ProviderRejectedError, ProviderUnavailableError } from '../errors';
import {
  accountLookupDataSchema,
  banksDataSchema,
  envelopeSchema,
  tokenDataSchema,
  transactionDataSchema,
  transactionListDataSchema,
  transferDataSchema,
  virtualAccountDataSchema,
  walletBalanceDataSchema,
} from './provider.schemas';
import { createProviderHttp } from './provider-http';
import type { ProviderClient } from './spec-provider.types';

const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/** The provider answers "00" on most routes and "200" on transfers. */
const SUCCESS_CODES = new Set(['00', '200']);
/** The provider's "not found" answer: HTTP 404 with this code. */
const NOT_FOUND_CODE = '01';
/** Client errors that mean "not now" rather than "no". */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 429]);

interface WireResponse {
  status: number;
  json: unknown;
  retryAfterMs: number | null;
}

/** Longest Retry-After honoured: a larger (or absurd) value is capped, not obeyed. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(header: string | null, nowMs = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const text = header.trim();
  // delta-seconds, or an HTTP date (which always names its weekday and month).
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : /[a-z]/i.test(text) ? Date.parse(text) - nowMs : Number.NaN;
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

interface CachedToken {
  value: string;
  refreshAtMs: number;
}

type Method = 'GET' | 'POST';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

/** The listings' date format: UTC to the second, without a zone (yyyy-MM-ddTHH:mm:ss). */
function providerDateTime(date: Date): string {
  return date.toISOString().slice(0, 19);
}

function isNotFound(error: unknown): boolean {
  return error instanceof ProviderRejectedError && error.httpStatus === 404 && error.code === NOT_FOUND_CODE;
}

export function createProviderClient(config: Config, logger: Logger, metrics?: Pick<ProviderMetrics, 'observe'>): ProviderClient {
  const baseUrl = config.PROVIDER_BASE_URL.replace(/\/+$/, '');
  const wire = createProviderHttp(baseUrl, config.PROVIDER_TIMEOUT);
  const log = logger.child({ component: 'provider-client' });
  let cachedToken: CachedToken | null = null;
  let refreshing: Promise<CachedToken> | null = null;

  async function exchange(operation: string, method: Method, path: string, body: unknown, bearer: string | null): Promise<WireResponse> {
    const headers: Record<string, string> = { accept: 'application/json', accountId: config.PROVIDER_ACCOUNT_ID };
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    let status: number | null = null;
    try {
      const answer = await wire.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
      status = answer.status;
      log.debug({ operation, status, durationMs: Math.round(performance.now() - started) }, 'provider call');
      return { status, json: parseJson(answer.text), retryAfterMs: parseRetryAfter(answer.retryAfter) };
    } catch (error) {
      const reason = describeFailure(error, config.PROVIDER_TIMEOUT);
      log.warn({ operation, reason, durationMs: Math.round(performance.now() - started) }, 'provider unreachable');
      throw new ProviderUnavailableError(`${operation}: ${reason}`, { cause: error });
    } finally {
      metrics?.observe(operation, status, (performance.now() - started) / 1000);
    }
  }

  function interpret<S extends z.ZodType>(operation: string, response: WireResponse, dataSchema: S): z.output<S> {
    const { status, json, retryAfterMs } = response;
    if (status >= 500 || RETRYABLE_CLIENT_STATUSES.has(status))
      throw new ProviderUnavailableError(`${operation}: HTTP ${status}`, { retryAfterMs });
    const envelope = envelopeSchema.safeParse(json);
    if (status >= 400) {
      // An HTML or empty 4xx comes from something in front of the provider (a gateway, a WAF), not from it.
      if (!envelope.success)
        throw new ProviderUnavailableError(`${operation}: HTTP ${status} without the provider's answer`, { retryAfterMs });
      throw new ProviderRejectedError(status, envelope.data.code, envelope.data.description ?? `HTTP ${status}`);
    }
    if (status < 200 || status >= 300) throw new ProviderUnavailableError(`${operation}: unexpected HTTP ${status}`);
    if (!envelope.success) throw new ProviderUnavailableError(`${operation}: response is not a provider envelope`);
    if (!SUCCESS_CODES.has(envelope.data.code)) {
      throw new ProviderRejectedError(status, envelope.data.code, envelope.data.description ?? 'no description');
    }
    const data = dataSchema.safeParse(envelope.data.data);
    if (!data.success)
      throw new ProviderUnavailableError(`${operation}: unexpected response data: ${data.error.issues[0]?.message ?? 'invalid'}`);
    return data.data;
  }

  async function issueToken(): Promise<CachedToken> {
    const body = { grant_type: 'client_credentials', client_id: config.PROVIDER_CLIENT_ID, client_secret: config.PROVIDER_CLIENT_SECRET };
    const response = await exchange('issueToken', 'POST', '/v1/auth/token/issue', body, null);
    const token = interpret('issueToken', response, tokenDataSchema);
    log.debug({ expiresAt: new Date(token.expiresAt).toISOString() }, 'provider token issued');
    return { value: token.access_token, refreshAtMs: token.expiresAt - TOKEN_REFRESH_MARGIN_MS };
  }

  /** Concurrent callers share one refresh, so a burst after expiry issues one token, not many. */
  function currentToken(): Promise<CachedToken> {
    if (cachedToken && Date.now() < cachedToken.refreshAtMs) return Promise.resolve(cachedToken);
    refreshing ??= issueToken()
      .then((token) => {
        cachedToken = token;
        return token;
      })
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  /** A 401 means the provider dropped our token early (rotation, restart): refresh once and retry. */
  async function call<S extends z.ZodType>(
    operation: string,
    method: Method,
    path: string,
    dataSchema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    let token = await currentToken();
    let response = await exchange(operation, method, path, body, token.value);
    if (response.status === 401) {
      if (cachedToken === token) cachedToken = null;
      token = await currentToken();
      response = await exchange(operation, method, path, body, token.value);
    }
    return interpret(operation, response, dataSchema);
  }

  return {
    async createVirtualAccount(input) {
      const body = {
        accountRef: input.accountRef,
        accountName: input.accountName,
        currency: 'NGN',
        ...(input.bvn === undefined ? {} : { bvn: input.bvn }),
        ...(input.expectedAmountKobo === undefined ? {} : { expectedAmount: koboToProviderNumber(input.expectedAmountKobo) }),
      };
      return call('createVirtualAccount', 'POST', '/v1/accounts/virtual', virtualAccountDataSchema, body);
    },

    async getTransaction(transactionRef) {
      const path = `/v1/transactions/accounts/single?transactionRef=${encodeURIComponent(transactionRef)}`;
      try {
        return await call('getTransaction', 'GET', path, transactionDataSchema);
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async submitTransfer(input) {
      const body = {
        amount: koboToProviderNumber(input.amountKobo),
        accountNumber: input.accountNumber,
        accountName: input.accountName,
        bankCode: input.bankCode,
        merchantTxRef: input.merchantTxRef,
        senderName: input.senderName,
        ...(input.narration === undefined ? {} : { narration: input.narration }),
      };
      return call('submitTransfer', 'POST', '/v2/transfers/bank', transferDataSchema, body);
    },

    async listBanks() {
      return call('listBanks', 'GET', '/v1/transfers/banks', banksDataSchema);
    },

    async lookupAccount(input) {
      try {
        return await call('lookupAccount', 'POST', '/v1/transfers/bank/lookup', accountLookupDataSchema, {
          accountNumber: input.accountNumber,
          bankCode: input.bankCode,
        });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async listTransactions(input) {
      const query = new URLSearchParams({
        limit: String(input.limit),
        dateFrom: providerDateTime(input.from),
        dateTo: providerDateTime(input.to),
      });
      if (input.cursor) query.set('cursor', input.cursor);
      if (input.scope.kind === 'virtual_account') query.set('virtual_account', input.scope.accountNumber);
      const path = input.scope.kind === 'wallet' ? '/v1/transactions/accounts' : '/v1/transactions/virtual';
      return call('listTransactions', 'GET', `${path}?${query.toString()}`, transactionListDataSchema);
    },

    async getWalletBalance() {
      return call('getWalletBalance', 'GET', '/v1/accounts/balance', walletBalanceDataSchema);
    },
  };
}
