/** The provider could not give an answer (network, timeout, 5xx, 408/429, unreadable body): retrying may help. */
export class ProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
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
