import { apiErrorFor, LedgerApiError, LedgerConnectionError, LedgerError } from './errors';

export interface RetryOptions {
  /** Further attempts after the first (default 2). */
  retries?: number;
  /** The first back-off; doubled each attempt, with jitter (default 500 ms). */
  baseDelayMs?: number;
  /** The longest wait before a retry, the service's Retry-After included; a longer Retry-After is not waited for (default 30 s). */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Each attempt's deadline (default 30 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Another fetch (a proxy agent, a test double); default the global one. */
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** A value that is an object (a metadata filter) is written name[key]=value for each of its keys. */
  query?: Record<string, string | number | Record<string, string> | undefined>;
  body?: unknown;
  idempotencyKey?: string;
}

/** A 5xx or a 429: the service did not do the work, or asks to be called again later. */
function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * JSON over fetch with the API key. Retries only requests that are safe to repeat: a GET, or a POST
 * carrying an Idempotency-Key (the service answers a repeat with the first outcome). Anything else is
 * sent once, since a dropped connection cannot tell whether the service acted.
 */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: TransportOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retry?.retries ?? 2;
    this.baseDelayMs = options.retry?.baseDelayMs ?? 500;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
  }

  async request<T>(request: Request): Promise<T> {
    const repeatable = request.method === 'GET' || request.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.attempt<T>(request);
      if (outcome.ok) return outcome.value;
      const error = outcome.error;
      const again =
        repeatable &&
        attempt < this.retries &&
        (error instanceof LedgerConnectionError || (error instanceof LedgerApiError && retryableStatus(error.status)));
      const delay = this.delayBefore(attempt, error);
      if (!again || delay === undefined) throw error;
      await sleep(delay);
    }
  }

  /** Exponential back-off with full jitter; the service's Retry-After when it gave one (undefined: longer than we wait). */
  private delayBefore(attempt: number, error: LedgerError): number | undefined {
    const asked = error instanceof LedgerApiError ? error.retryAfterSeconds : undefined;
    if (asked !== undefined) return asked * 1000 <= this.maxDelayMs ? asked * 1000 : undefined;
    return Math.random() * Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** attempt);
  }

  private async attempt<T>(request: Request): Promise<{ ok: true; value: T } | { ok: false; error: LedgerError }> {
    const url = new URL(this.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      if (typeof value === 'object') for (const [key, item] of Object.entries(value)) url.searchParams.set(`${name}[${key}]`, item);
      else url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      'X-API-Key': this.options.apiKey,
      Accept: 'application/json',
      'User-Agent': this.options.userAgent ?? '@nuban-ledger/client',
    };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (request.idempotencyKey !== undefined) headers['Idempotency-Key'] = request.idempotencyKey;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      return {
        ok: false,
        error: new LedgerConnectionError(`${request.method} ${request.path} did not complete: ${reason}`, request.idempotencyKey, {
          cause,
        }),
      };
    }
    const body = parseJson(text);
    if (response.ok) return { ok: true, value: body as T };
    return {
      ok: false,
      error: apiErrorFor(response.status, body, retryAfterSeconds(response.headers.get('retry-after')), request.idempotencyKey),
    };
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
