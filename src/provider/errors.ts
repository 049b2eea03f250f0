/** The provider could not give an answer (network, timeout, 5xx, 408/429, unreadable body): retrying may help. */
export class ProviderUnavailableError extends Error {
  /** The provider's Retry-After, when it sent one: wait at least this long before asking again. */
  readonly retryAfterMs: number | null;

  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number | null }) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
}

/** The provider answered definitely (a 4xx or a non-success code): retrying the same call will not help. */
export class ProviderRejectedError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    readonly description: string,
  ) {
    super(`provider rejected the request: HTTP ${httpStatus}, code ${code}: ${description}`);
    this.name = 'ProviderRejectedError';
  }
}

/** How providers say "this reference exists already": HTTP 409, or words to that effect in the description. */
const DUPLICATE_DESCRIPTION_RE = /\b(duplicate|already (exists|submitted|used|processed))\b|\bexists already\b/i;

export function isDuplicateReference(error: ProviderRejectedError): boolean {
  return error.httpStatus === 409 || DUPLICATE_DESCRIPTION_RE.test(error.description);
}
