import { z } from 'zod';
import type { Config } from '../config';
import type { Logger } from '../logger';

/** A definite answer (verified or not_verified), or no answer at all (unavailable) with why. */
export type IdentityCheck = { outcome: 'verified' } | { outcome: 'not_verified' } | { outcome: 'unavailable'; reason: string };

export interface IdentityVerifier {
  verifyNin(nin: string, name: string): Promise<IdentityCheck>;
}

const answerSchema = z.object({ verified: z.boolean() });

/**
 * The external identity-verification service. Anything short of a well-formed 2xx answer (timeout,
 * network error, 5xx, a refusal of our request) is "unavailable": the submission then waits for an
 * operator rather than failing the customer. The NIN never reaches a log line.
 */
export function createIdentityClient(
  config: Pick<Config, 'IDENTITY_VERIFICATION_URL' | 'IDENTITY_VERIFICATION_TIMEOUT'>,
  logger: Logger,
): IdentityVerifier {
  const timeoutMs = config.IDENTITY_VERIFICATION_TIMEOUT;

  async function ask(nin: string, name: string): Promise<IdentityCheck> {
    let response: Response;
    try {
      response = await fetch(config.IDENTITY_VERIFICATION_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ nin, name }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return { outcome: 'unavailable', reason: timedOut ? `timed out after ${timeoutMs} ms` : 'network error' };
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) return { outcome: 'unavailable', reason: `HTTP ${response.status}` };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer = answerSchema.safeParse(json);
    if (!answer.success) return { outcome: 'unavailable', reason: 'unrecognised response' };
    return { outcome: answer.data.verified ? 'verified' : 'not_verified' };
  }

  return {
    async verifyNin(nin, name) {
      const check = await ask(nin, name);
      if (check.outcome === 'unavailable') logger.warn({ reason: check.reason }, 'identity verification unavailable');
      return check;
    },
  };
}
