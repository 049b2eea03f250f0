import { naira } from './format';

// Every call the dashboard makes: same origin, the session cookie, JSON both ways. A 401 anywhere
// means the session ended (signed out elsewhere, idle, expired): the app goes back to the sign-in page.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The service's error code (`fresh_code_required`, …) when it gave one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let onSessionEnded: () => void = () => undefined;

export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** The sign-in call answers 401 for a wrong password; that is not a session ending. */
  expectUnauthorized?: boolean;
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, options: RequestOptions = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok) return body as T;
  if (response.status === 401 && !options.expectUnauthorized) onSessionEnded();
  throw new ApiError(
    response.status,
    refusalMessage(body as ErrorBody | undefined, response.status),
    (body as ErrorBody | undefined)?.code,
  );
}

interface ErrorBody {
  error?: string;
  code?: string;
  available?: string;
  held?: string;
  pending?: string;
  reason?: string;
}

/** The service's message, with what may be spent and what is held or unconfirmed (and why) when either is part of a refusal. */
function refusalMessage(body: ErrorBody | undefined, status: number): string {
  const message = body?.error ?? `The service answered ${status}.`;
  if (body?.available === undefined || body.held === undefined) return message;
  if (body.pending === undefined)
    return `${message}: ${naira(body.available)} can be spent now; ${naira(body.held)} is ${body.reason ?? 'held'}.`;
  return `${message}: ${naira(body.available)} can be spent now; ${naira(body.held)} is held and ${naira(body.pending)} is not yet confirmed by the provider (${body.reason ?? ''}).`;
}

/** A query string from the values that are set. */
export function query(params: Record<string, string | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}
