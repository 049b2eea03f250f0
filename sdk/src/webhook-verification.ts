import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './events';

export interface VerifyOptions {
  /** How old (or how far ahead) the signature's `t` may be, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to check against, in seconds since the epoch (default now). */
  nowSeconds?: number;
}

/** A delivery that must not be trusted: the signature is missing, malformed, wrong or too old. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** `t=<unix seconds>` then one or more `v1=<hex digest>`: during a secret rotation both secrets sign. */
function parseHeader(header: string): { timestamp: number; digests: Buffer[] } | undefined {
  const [first, ...rest] = header.trim().split(',');
  const time = /^t=(\d{1,12})$/.exec(first ?? '');
  const digests = rest.map((part) => /^v1=([0-9a-fA-F]{64})$/.exec(part.trim()));
  if (!time || digests.length === 0 || digests.some((digest) => digest === null)) return undefined;
  return { timestamp: Number(time[1]), digests: digests.map((digest) => Buffer.from(digest![1]!, 'hex')) };
}

/**
 * Checks an `X-Service-Signature` header (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`)
 * and returns the parsed event. `rawBody` must be the bytes as received, before any JSON parsing: a
 * re-serialised body does not verify. The comparison takes the same time wherever the digests differ.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  if (!secret) throw new TypeError('the webhook signing secret is required');
  const parsed = parseHeader(signatureHeader ?? '');
  if (!parsed) throw new WebhookVerificationError('the signature header is missing or is not t=<unix seconds>,v1=<hex digest>');
  const { timestamp, digests } = parsed;
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookVerificationError(`the signature is ${now - timestamp} s old, outside the ${tolerance} s tolerance`);

  const body =
    typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  // Every digest is compared, so the time taken does not tell which one (or which byte) differed.
  const matches = digests.map((digest) => timingSafeEqual(expected, digest));
  if (!matches.includes(true)) throw new WebhookVerificationError('the signature does not match the body');

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
}
