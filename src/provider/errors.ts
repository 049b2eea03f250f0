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

/**
 * The transfer-submit refusals the provider documents as "no transfer was created": each is decided
 * before the provider records the reference, so the reference can never pay. Every other refusal (an
 * unknown code, an unexplained 4xx such as code 96 "system malfunction", 5xx, 429, a timeout, a body
 * that is not JSON) is ambiguous: the transfer may exist. Keyed by HTTP status and the provider's code.
 */
const NOT_CREATED_SUBMIT_REFUSALS: ReadonlyArray<{ httpStatus: number; code: string; reason: string }> = [
  { httpStatus: 400, code: '01', reason: 'invalid bank code: refused before the transfer is recorded' },
  { httpStatus: 400, code: '400', reason: 'the request failed validation: refused before the transfer is recorded' },
];

/** The refusal is one the provider documents as "not created" (see NOT_CREATED_SUBMIT_REFUSALS). */
export function isNotCreatedRefusal(error: ProviderRejectedError): boolean {
  return (
    !isDuplicateReference(error) &&
    NOT_CREATED_SUBMIT_REFUSALS.some((refusal) => refusal.httpStatus === error.httpStatus && refusal.code === error.code)
  );
}
