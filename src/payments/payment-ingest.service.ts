import { createHash } from 'node:crypto';
import { createAccountsRepo } from '../accounts/accounts.repo';
import { ACCOUNT_REF_RE } from '../accounts/accounts.service';
import { createAuthRepo } from '../auth/auth.repo';
import type { Config } from '../config';
import { isRetryableDatabaseError, isUniqueViolation, type Db } from '../db';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo, type OutboxEntry } from '../outbox/outbox.repo';
import type { WorkflowStarter } from '../outbox/workflow-starter';
import type { Logger } from '../logger';
import { koboFromProviderNumber, type Kobo } from '../money';
import { createInboundEventsRepo, CREDITED_BY_RECONCILIATION, type EventCategory, type NewInboundEvent } from './inbound-events.repo';
import { paymentEventSchema, payoutEventSchema, type PaymentEvent } from './inbound-event.schemas';
import type { IngestMetrics } from '../metrics/ingest.metrics';
import { planPaymentCredit } from './payment-credit';
import { createPaymentPostingGroups } from './payment-posting-groups';
import { createPaymentPostingRepo } from './payment-posting.repo';
import { verifyProviderSignature } from './provider-signature';
import type { PayoutSignalType } from '../contracts/settlement.contract';

export type IngestOutcome = EventCategory | 'duplicate';

export interface SignatureHeaders {
  signature: string | undefined;
  timestamp: string | undefined;
}

/** Where payout events go; implemented by the settlements domain. */
export interface PayoutEventSink {
  /** The settlement the event belongs to, and the workflows to start in the same transaction as the event (`eventId`: its request id). */
  prepare(type: PayoutSignalType, providerRef: string, eventId: string): Promise<{ tenantId: string; accountId: string; jobs: OutboxEntry[] } | null>;
  /** After the commit: wakes the settlement workflow, best effort, without waiting. */
  notify(type: PayoutSignalType, providerRef: string): void;
}

/**
 * An event that fails verification is anyone's input: it is kept as a digest and a short prefix
 * (enough to recognise a misconfigured sender), never as a copy an attacker can fill the disk with.
 */
const UNVERIFIED_PREFIX_CHARS = 256;
const MAX_TEXT = 500;

type Amounts = { gross: Kobo; fee: Kobo } | { error: string };

/** Amounts live in int8 columns: a number past their range is no real payment and would fail the insert. */
const MAX_STORABLE_KOBO = 2n ** 63n - 1n;

function storableKobo(naira: number): Kobo | null {
  const kobo = koboFromProviderNumber(naira);
  return kobo !== null && kobo <= MAX_STORABLE_KOBO && kobo >= -MAX_STORABLE_KOBO ? kobo : null;
}

function amountsOf(event: PaymentEvent): Amounts {
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

const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['"', '\\', '{', '}', '[', ']'].map((char) => char.charCodeAt(0));

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

function describePostingFailure(error: unknown): string {
  if (isUniqueViolation(error, 'ledger_entries_one_payment_per_txn_idx')) return 'transaction already credited under another request id';
  return 'ledger write failed';
}

/**
 * The provider's webhook: verify, categorise, record every event, and post payments exactly once.
 * Only an unreachable database escapes as an error (the route answers 503 so the provider retries).
 */
export function createPaymentIngestService(deps: {
  db: Db;
  config: Pick<Config, 'PROVIDER_WEBHOOKS_SIGNING_SECRET' | 'PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET' | 'PAYMENT_POSTING_GROUP_MAX' | 'PAYMENT_POSTING_STATEMENTS'>;
  logger: Logger;
  jobs: Jobs;
  starter: WorkflowStarter;
  payouts: PayoutEventSink;
  metrics: Pick<IngestMetrics, 'webhookAnswered' | 'postingGroup'>;
}) {
  const { db, config, logger, jobs, starter, payouts, metrics } = deps;
  const postings = createPaymentPostingGroups({ repo: createPaymentPostingRepo(db), maxGroup: config.PAYMENT_POSTING_GROUP_MAX, maxStatements: config.PAYMENT_POSTING_STATEMENTS, metrics });
  const events = createInboundEventsRepo(db);
  const accounts = createAccountsRepo(db);
  // During a rotation the provider may sign with either secret; the previous one goes when it is unset.
  const signingSecrets = [config.PROVIDER_WEBHOOKS_SIGNING_SECRET, ...(config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET ? [config.PROVIDER_WEBHOOKS_PREVIOUS_SIGNING_SECRET] : [])];

  async function record(event: NewInboundEvent): Promise<IngestOutcome> {
    const { recorded } = await events.record(event);
    return recorded ? event.category : 'duplicate';
  }

  function common(payload: unknown): Pick<NewInboundEvent, 'requestId' | 'eventType' | 'payload' | 'transactionId' | 'aliasAccountRef' | 'senderName'> {
    return {
      requestId: textAt(payload, 'requestId'),
      eventType: textAt(payload, 'event_type'),
      payload,
      transactionId: textAt(payload, 'data', 'transaction', 'transactionId'),
      aliasAccountRef: textAt(payload, 'data', 'transaction', 'aliasAccountReference'),
      senderName: textAt(payload, 'data', 'customer', 'senderName'),
    };
  }

  async function attributedTenant(aliasRef: string | null): Promise<string | null> {
    const prefix = aliasRef ? ACCOUNT_REF_RE.exec(aliasRef)?.[1] : undefined;
    return prefix ? ((await createAuthRepo(db).findTenantByRefPrefix(prefix))?.id ?? null) : null;
  }

  function recordMisdirected(base: ReturnType<typeof common>, payload: unknown, tenantId: string | null): Promise<IngestOutcome> {
    return record({
      ...base,
      id: uuidv7(),
      category: 'misdirected',
      signatureValid: true,
      tenantId,
      grossAmount: amountAt(payload, 'transactionAmount'),
      fee: amountAt(payload, 'fee'),
    });
  }

  /** An event that is no usable payment: a processing error on its account, or misdirected without one. */
  async function recordUnusable(base: ReturnType<typeof common>, payload: unknown, error: string, amounts?: { gross: Kobo; fee: Kobo }): Promise<IngestOutcome> {
    const account = base.aliasAccountRef ? await accounts.findByRefAnyTenant(base.aliasAccountRef) : undefined;
    if (!account) return recordMisdirected(base, payload, await attributedTenant(base.aliasAccountRef ?? null));
    return record({ ...base, id: uuidv7(), category: 'processing_error', signatureValid: true, tenantId: account.tenantId, accountId: account.id, grossAmount: amounts?.gross ?? null, fee: amounts?.fee ?? null, error });
  }

  /**
   * The webhook of a payment a reconciliation run has already credited (the provider sent it late):
   * the same payment, already processed, so it is answered as a duplicate and recorded against that
   * credit (its request id claimed, so a retry of it is a plain duplicate). Anything that differs from
   * what reconciliation credited (account, amount, fee) stays a processing error.
   */
  async function recordIfCreditedByReconciliation(event: NewInboundEvent, amounts: { gross: Kobo; fee: Kobo }): Promise<IngestOutcome | null> {
    const credited = event.transactionId ? await events.foundByReconciliation(event.transactionId) : undefined;
    if (!credited || credited.aliasAccountRef !== event.aliasAccountRef || credited.grossAmount !== amounts.gross || credited.fee !== amounts.fee) return null;
    await record({ ...event, id: uuidv7(), tenantId: credited.tenantId, accountId: credited.accountId, entryId: credited.entryId, flags: [CREDITED_BY_RECONCILIATION] });
    logger.info({ requestId: event.requestId, transactionId: event.transactionId, entryId: credited.entryId }, 'late webhook of a payment reconciliation had credited');
    return 'duplicate';
  }

  async function ingestPayment(payload: unknown): Promise<IngestOutcome> {
    const base = common(payload);
    const parsed = paymentEventSchema.safeParse(payload);
    const amounts: Amounts = parsed.success ? amountsOf(parsed.data) : { error: `invalid payment event: ${parsed.error.issues[0]?.path.join('.')}` };
    if ('error' in amounts || !parsed.success || !base.aliasAccountRef) {
      return recordUnusable(base, payload, 'error' in amounts ? amounts.error : 'invalid payment event');
    }
    const plan = planPaymentCredit(jobs, {
      accountRef: base.aliasAccountRef,
      tenantId: '',
      gross: amounts.gross,
      fee: amounts.fee,
      senderName: base.senderName ?? '',
      narration: textAt(payload, 'data', 'transaction', 'narration') ?? '',
      transactionId: base.transactionId ?? parsed.data.data.transaction.transactionId,
    });
    const event: NewInboundEvent = { ...base, id: uuidv7(), category: 'payment', signatureValid: true, entryId: plan.entryId, grossAmount: amounts.gross, fee: amounts.fee };
    try {
      const posted = await postings.post({ aliasRef: base.aliasAccountRef, event, plan });
      if (posted.kind === 'no_account') return recordMisdirected(base, payload, await attributedTenant(base.aliasAccountRef));
      if (posted.kind === 'duplicate') return 'duplicate';
      starter.kick(posted.jobs);
      return 'payment';
    } catch (error) {
      // Retryable failures go back to the provider as a 503, so the payment is redelivered, not dropped.
      if (isRetryableDatabaseError(error)) throw error;
      if (isUniqueViolation(error, 'ledger_entries_one_payment_per_txn_idx')) {
        const late = await recordIfCreditedByReconciliation(event, amounts);
        if (late) return late;
      }
      logger.error({ err: error, requestId: base.requestId, aliasAccountRef: base.aliasAccountRef }, 'payment posting failed');
      return recordUnusable(base, payload, describePostingFailure(error), amounts);
    }
  }

  async function ingestNonPayment(payload: unknown): Promise<IngestOutcome> {
    const payout = payoutEventSchema.safeParse(payload);
    if (!payout.success) return record({ ...common(payload), id: uuidv7(), category: 'non_payment_event', signatureValid: true });
    const type = payout.data.event_type;
    const providerRef = payout.data.data.transaction.merchantTxRef;
    const target = await payouts.prepare(type, providerRef, payout.data.requestId);
    const recorded = await db.transaction(async (trx) => {
      const event = { ...common(payload), id: uuidv7(), category: 'non_payment_event' as const, signatureValid: true, tenantId: target?.tenantId, accountId: target?.accountId };
      if (!(await createInboundEventsRepo(trx).record(event)).recorded) return false;
      await createOutboxRepo(trx).enqueue(target?.jobs ?? []);
      return true;
    });
    if (!recorded) return 'duplicate';
    starter.kick(target?.jobs ?? []);
    if (target) payouts.notify(type, providerRef);
    return 'non_payment_event';
  }

  async function ingestOne(rawBody: Buffer, headers: SignatureHeaders): Promise<IngestOutcome> {
    const text = rawBody.toString('utf8');
    const unverified = { rawBody: text.slice(0, UNVERIFIED_PREFIX_CHARS), rawSha256: createHash('sha256').update(rawBody).digest('hex') };
    const malformed = (error: string) => record({ id: uuidv7(), requestId: null, eventType: null, category: 'sig_invalid', signatureValid: false, ...unverified, error });
    if (nestingDepth(text) > MAX_NESTING) return malformed('json nested too deeply');
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return malformed('malformed json');
    }
    const { signature, timestamp } = headers;
    const signed = signature !== undefined && timestamp !== undefined && signingSecrets.some((secret) => verifyProviderSignature(secret, payload, timestamp, signature));
    if (!signed) {
      return record({ ...common(payload), payload: undefined, ...unverified, id: uuidv7(), category: 'sig_invalid', signatureValid: false, error: 'signature verification failed' });
    }
    return textAt(payload, 'event_type') === 'payment_success' ? ingestPayment(payload) : ingestNonPayment(payload);
  }

  return {
    /** Ingests one webhook, counted by its category (`failed` when it escapes as an error: a 5xx answer). */
    async ingest(rawBody: Buffer, headers: SignatureHeaders): Promise<IngestOutcome> {
      const started = performance.now();
      let category = 'failed';
      try {
        const outcome = await ingestOne(rawBody, headers);
        category = outcome;
        return outcome;
      } finally {
        metrics.webhookAnswered(category, (performance.now() - started) / 1000);
      }
    },
  };
}

export type PaymentIngestService = ReturnType<typeof createPaymentIngestService>;
