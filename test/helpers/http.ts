import { runnableDeadline } from './deadline';

export interface HttpResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface CallOptions {
  apiKey?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  cookie?: string;
}

/** A JSON call over real HTTP. */
export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.apiKey) headers['X-API-Key'] = options.apiKey;
  if (options.cookie) headers.Cookie = options.cookie;
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
  }
  if (payload !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: body as T, headers: response.headers, text };
}

/**
 * Polls `probe` until it returns something truthy. It has no deadline of its own: it gives up just before
 * mocha would time out the running hook or test (test/helpers/deadline.ts), so a busy machine makes it
 * wait longer but cannot fail it; only a thing that never happens does. `withinMs` bounds it further,
 * only where the time itself is what the test asserts (a product setting, never a guess of speed).
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | null | false>,
  options: { withinMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Math.min(runnableDeadline(), Date.now() + (options.withinMs ?? Infinity));
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const bound = options.withinMs === undefined ? "until the test's time ran out" : `for ${options.withinMs} ms`;
      throw new Error(`timed out waiting for ${options.what ?? 'condition'} (${bound})${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
