import type { Config } from '../../config';
import { koboFromProviderNumber, type Kobo } from '../../money';
import type { HeaderReader, InboundNotification, NotificationFacts, PaymentNotice, ProviderNotifications } from '../inbound-notification';
import { paymentEventSchema, payoutEventSchema, type PaymentEvent } from './webhook-events.schemas';
import { verifyProviderSignature } from './webhook-signature';

/** Longest text kept of any one field (NUL removed: Postgres text cannot hold it). */
const MAX_TEXT = 500;

/** Amounts are stored as int8: a number past that range is no real payment and would fail the insert. */
const MAX_STORABLE_KOBO = 2n ** 63n - 1n;

function storableKobo(naira: number): Kobo | null {
  const kobo = koboFromProviderNumber(naira);
  return kobo !== null && kobo <= MAX_STORABLE_KOBO && kobo >= -MAX_STORABLE_KOBO ? kobo : null;
}

function amountsOf(event: PaymentEvent): { gross: Kobo; fee: Kobo } | { error: string } {
  const { transactionAmount, fee, currency } = event.data.transaction;
  if (currency !== 'NGN') return { error: `unsupported currency ${currency.slice(0, 10)}` };
  const gross = storableKobo(transactionAmount);
  const feeKobo = storableKobo(fee);
  if (gross === null || gross <= 0n) return { error: 'transactionAmount must be a positive naira amount with at most two decimals' };
  if (feeKobo === null || feeKobo < 0n) return { error: 'fee must be a non-negative naira amount with at most two decimals' };
  if (feeKobo >= gross) return { error: 'fee must be less than transactionAmount' };
  return { gross, fee: feeKobo };
}

/** A provider event is a few levels deep; far deeper JSON is refused before anything recurses over it. */
const MAX_NESTING = 32;

const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['"', '\\', '{', '}', '[', ']'].map((char) =>
  char.charCodeAt(0),
);

/** The deepest nesting of arrays and objects in JSON text, counted without parsing (strings skipped). */
function nestingDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  // Character codes, not one-character strings: this runs over every webhook's whole body.
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) deepest = Math.max(deepest, ++depth);
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

function textAt(payload: unknown, ...path: string[]): string | null {
  let value = payload;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value.replace(/\0/g, '').slice(0, MAX_TEXT) : null;
}

function amountAt(payload: unknown, field: 'transactionAmount' | 'fee'): Kobo | null {
  const transaction = (payload as { data?: { transaction?: Record<string, unknown> } })?.data?.transaction;
  const value = transaction?.[field];
  return typeof value === 'number' ? storableKobo(value) : null;
}

function factsOf(payload: unknown): NotificationFacts {
  return {
    requestId: textAt(payload, 'requestId'),
    eventType: textAt(payload, 'event_type'),
    payload,
    transactionId: textAt(payload, 'data', 'transaction', 'transactionId'),
    aliasAccountRef: textAt(payload, 'data', 'transaction', 'aliasAccountReference'),
    senderName: textAt(payload, 'data', 'customer', 'senderName'),
  };
}

function paymentOf(payload: unknown, facts: NotificationFacts): InboundNotification {
  const stated = { gross: amountAt(payload, 'transactionAmount'), fee: amountAt(payload, 'fee') };
  const parsed = paymentEventSchema.safeParse(payload);
  const amounts = parsed.success ? amountsOf(parsed.data) : { error: `invalid payment event: ${parsed.error.issues[0]?.path.join('.')}` };
  if ('error' in amounts || !parsed.success || !facts.aliasAccountRef) {
    return { kind: 'payment', facts, stated, payment: { error: 'error' in amounts ? amounts.error : 'invalid payment event' } };
  }
  const payment: PaymentNotice = {
    accountRef: facts.aliasAccountRef,
    gross: amounts.gross,
    fee: amounts.fee,
    senderName: facts.senderName ?? '',
    narration: textAt(payload, 'data', 'transaction', 'narration') ?? '',
    transactionId: facts.transactionId ?? parsed.data.data.transaction.transactionId,
  };
  return { kind: 'payment', facts, stated, payment };
}

/**
 * The webhooks of the provider SPEC.md describes: signed over the parsed body (SPEC.md, Inbound
 * signature) with the current or, during a rotation, the previous secret.
 */
export function createSpecProviderNotifications(
  config: Pick<Config, 'PROVIDER_WEBHOOKS_SIGNING_SECRET' | 'PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET'>,
): ProviderNotifications {
  // The previous secret goes when it is unset.
  const signingSecrets = [
    config.PROVIDER_WEBHOOKS_SIGNING_SECRET,
    ...(config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET ? [config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET] : []),
  ];

  function isSigned(payload: unknown, header: HeaderReader): boolean {
    const signature = header('provider-signature') ?? header('nomba-signature');
    const timestamp = header('provider-timestamp') ?? header('nomba-timestamp');
    return (
      signature !== undefined &&
      timestamp !== undefined &&
      signingSecrets.some((secret) => verifyProviderSignature(secret, payload, timestamp, signature))
    );
  }

  return {
    read(rawBody, header) {
      const text = rawBody.toString('utf8');
      if (nestingDepth(text) > MAX_NESTING) return { kind: 'unreadable', error: 'json nested too deeply' };
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        return { kind: 'unreadable', error: 'malformed json' };
      }
      const facts = factsOf(payload);
      if (!isSigned(payload, header)) return { kind: 'unverified', facts };
      if (facts.eventType === 'payment_success') return paymentOf(payload, facts);
      const payout = payoutEventSchema.safeParse(payload);
      if (!payout.success) return { kind: 'other', facts };
      return {
        kind: 'payout',
        facts,
        type: payout.data.event_type,
        providerRef: payout.data.data.transaction.merchantTxRef,
        eventId: payout.data.requestId,
      };
    },
  };
}
