import { createHash } from 'node:crypto';
import { findAccountByRefAnyTenant } from '../accounts/accounts.access';
import { ACCOUNT_REF_RE } from '../accounts/accounts.service';
import { findTenantByRefPrefix } from '../auth/tenants.access';
import type { Config } from '../config';
import { isRetryableDatabaseError, type Db } from '../db';
import { isDuplicatePaymentCredit } from '../ledger/ledger-constraints';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo, type OutboxEntry } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import type { Logger } from '../logger';
import type { Kobo } from '../money';
import type {
  HeaderReader,
  NotificationFacts,
  PaymentNotification,
  PayoutNotification,
  ProviderNotifications,
  StatedAmounts,
} from '../provider/inbound-notification';
import type { PayoutSignalType } from '../contracts/settlement.contract';
import { createInboundEventsRepo, CREDITED_BY_RECONCILIATION, type EventCategory, type NewInboundEvent } from './inbound-events.repo';
import type { IngestMetrics } from '../metrics/ingest.metrics';
import { planPaymentCredit } from './payment-credit';
import { createPaymentPostingGroups } from './payment-posting-groups';
import type { EventedLedger } from '../events/ledger-events';
import { createPaymentPostingRepo, type PaymentPostingResult, type PaymentToPost } from './payment-posting.repo';
import { creditVelocityOf, recordVelocityTriggered } from '../velocity-rules/velocity-rules.access';

type IngestOutcome = EventCategory | 'duplicate';

/** What one webhook came to, and the tenant whose account it credited (null when it credited none). */
interface Ingested {
  outcome: IngestOutcome;
  creditedTenantId: string | null;
}

async function creditedNone(outcome: Promise<IngestOutcome>): Promise<Ingested> {
  return { outcome: await outcome, creditedTenantId: null };
}

/** Where payout events go; implemented by the settlements domain. */
export interface PayoutEventSink {
  /** The settlement the event belongs to, and the workflows to start in the same transaction as the event (`eventId`: its request id). */
  prepare(
    type: PayoutSignalType,
    providerRef: string,
    eventId: string,
  ): Promise<{ tenantId: string; accountId: string; jobs: OutboxEntry[] } | null>;
  /** After the commit: wakes the settlement workflow, best effort, without waiting. */
  notify(type: PayoutSignalType, providerRef: string): void;
}

/**
 * An event that fails verification is anyone's input: it is kept as a digest and a short prefix
 * (enough to recognise a misconfigured sender), never as a copy an attacker can fill the disk with.
 */
const UNVERIFIED_PREFIX_CHARS = 256;

function describePostingFailure(error: unknown): string {
  if (isDuplicatePaymentCredit(error)) return 'transaction already credited under another request id';
  return 'ledger write failed';
}

/**
 * The provider's webhooks, verified and read by its port: record every event, and post payments exactly once.
 * Only an unreachable database escapes as an error (the route answers 503 so the provider retries).
 */
export function createPaymentIngestService(deps: {
  db: Db;
  config: Pick<Config, 'PAYMENT_POSTING_GROUP_MAX' | 'PAYMENT_POSTING_STATEMENTS'>;
  postingEngine: Pick<EventedLedger, 'creditPaymentsAmong' | 'lockAccounts'>;
  logger: Logger;
  jobs: Jobs;
  starter: WorkflowStarter;
  notifications: ProviderNotifications;
  payouts: PayoutEventSink;
  metrics: Pick<IngestMetrics, 'webhookAnswered' | 'postingGroup'>;
  /** Webhooks failing verification per source address: over it, a 429 and nothing stored. */
  unverifiedLimit: { consume(address: string): Promise<void> };
}) {
  const { db, config, postingEngine, logger, jobs, starter, notifications, payouts, metrics, unverifiedLimit } = deps;
  const postings = createPaymentPostingGroups({
    repo: createPaymentPostingRepo(db, postingEngine),
    maxGroup: config.PAYMENT_POSTING_GROUP_MAX,
    maxStatements: config.PAYMENT_POSTING_STATEMENTS,
    metrics,
  });
  const events = createInboundEventsRepo(db);

  async function record(event: NewInboundEvent): Promise<IngestOutcome> {
    const { recorded } = await events.record(event);
    return recorded ? event.category : 'duplicate';
  }

  async function attributedTenant(aliasRef: string | null): Promise<string | null> {
    const prefix = aliasRef ? ACCOUNT_REF_RE.exec(aliasRef)?.[1] : undefined;
    return prefix ? ((await findTenantByRefPrefix(db, prefix))?.id ?? null) : null;
  }

  function recordMisdirected(base: NotificationFacts, stated: StatedAmounts, tenantId: string | null): Promise<IngestOutcome> {
    return record({
      ...base,
      id: uuidv7(),
      category: 'misdirected',
      signatureValid: true,
      tenantId,
      grossAmount: stated.gross,
      fee: stated.fee,
    });
  }

  /** An event that is no usable payment: a processing error on its account, or misdirected without one. */
  async function recordUnusable(
    base: NotificationFacts,
    stated: StatedAmounts,
    error: string,
    amounts?: { gross: Kobo; fee: Kobo },
  ): Promise<IngestOutcome> {
    const account = base.aliasAccountRef ? await findAccountByRefAnyTenant(db, base.aliasAccountRef) : undefined;
    if (!account) return recordMisdirected(base, stated, await attributedTenant(base.aliasAccountRef ?? null));
    return record({
      ...base,
      id: uuidv7(),
      category: 'processing_error',
      signatureValid: true,
      tenantId: account.tenantId,
      accountId: account.id,
      grossAmount: amounts?.gross ?? null,
      fee: amounts?.fee ?? null,
      error,
    });
  }

  /**
   * The webhook of a payment a reconciliation run has already credited (the provider sent it late):
   * the same payment, already processed, so it is answered as a duplicate and recorded against that
   * credit (its request id claimed, so a retry of it is a plain duplicate). Anything that differs from
   * what reconciliation credited (account, amount, fee) stays a processing error.
   */
  async function recordIfCreditedByReconciliation(
    event: NewInboundEvent,
    amounts: { gross: Kobo; fee: Kobo },
  ): Promise<IngestOutcome | null> {
    const credited = event.transactionId ? await events.foundByReconciliation(event.transactionId) : undefined;
    if (
      !credited ||
      credited.aliasAccountRef !== event.aliasAccountRef ||
      credited.grossAmount !== amounts.gross ||
      credited.fee !== amounts.fee
    )
      return null;
    await record({
      ...event,
      id: uuidv7(),
      tenantId: credited.tenantId,
      accountId: credited.accountId,
      entryId: credited.entryId,
      flags: [CREDITED_BY_RECONCILIATION],
    });
    logger.info(
      { requestId: event.requestId, transactionId: event.transactionId, entryId: credited.entryId },
      'late webhook of a payment reconciliation had credited',
    );
    return 'duplicate';
  }

  /**
   * A payment to a tenant with velocity rules over credits, judged and posted on its own: in one short transaction,
   * the account's customer's and the account's locks first, then each rule's window read by a new statement (which sees
   * every credit committed before the locks were granted), then the credit posted, held whole with the rule's message
   * when it goes past a rule, and `velocity_rule.triggered` told. Two credits at once to one account (or customer)
   * queue on the locks, so the second's window holds the first.
   */
  async function postJudged(
    payment: PaymentToPost,
    account: { id: string; tenantId: string; accountRef: string },
  ): Promise<Exclude<PaymentPostingResult, { kind: 'to_judge' }>> {
    return db.transaction(async (trx) => {
      const credit = payment.plan.posting.drafts[0]!;
      const velocity = await creditVelocityOf(trx, account.tenantId, postingEngine.lockAccounts);
      const verdict = await velocity.judge(trx, { accountId: account.id, amount: credit.amount });
      const velocityNote = verdict.action === 'hold' ? verdict.message : null;
      const [result] = await createPaymentPostingRepo(trx, postingEngine).postGroup([{ ...payment, judged: { velocityNote } }]);
      if (!result || result.kind === 'to_judge') throw new Error('a judged payment was not posted as judged');
      if (result.kind === 'posted' && verdict.action === 'hold')
        await recordVelocityTriggered(trx, {
          tenantId: account.tenantId,
          accountRef: account.accountRef,
          amount: credit.amount,
          verdict,
          transactionGroupId: credit.transactionGroupId,
        });
      return result;
    });
  }

  async function ingestPayment(notification: PaymentNotification): Promise<Ingested> {
    const { facts: base, stated } = notification;
    if ('error' in notification.payment) return creditedNone(recordUnusable(base, stated, notification.payment.error));
    const payment = notification.payment;
    const amounts = { gross: payment.gross, fee: payment.fee };
    const plan = planPaymentCredit(jobs, {
      accountRef: payment.accountRef,
      tenantId: '',
      gross: payment.gross,
      fee: payment.fee,
      senderName: payment.senderName,
      narration: payment.narration,
      transactionId: payment.transactionId,
    });
    const event: NewInboundEvent = {
      ...base,
      id: uuidv7(),
      category: 'payment',
      signatureValid: true,
      entryId: plan.entryId,
      grossAmount: payment.gross,
      fee: payment.fee,
    };
    try {
      const toPost = { aliasRef: payment.accountRef, event, plan };
      let posted = await postings.post(toPost);
      if (posted.kind === 'to_judge') posted = await postJudged(toPost, posted.account);
      if (posted.kind === 'no_account') return creditedNone(recordMisdirected(base, stated, await attributedTenant(payment.accountRef)));
      if (posted.kind === 'duplicate') return { outcome: 'duplicate', creditedTenantId: null };
      starter.kick(posted.jobs);
      return { outcome: 'payment', creditedTenantId: posted.account.tenantId };
    } catch (error) {
      // Retryable failures go back to the provider as a 503, so the payment is redelivered, not dropped.
      if (isRetryableDatabaseError(error)) throw error;
      if (isDuplicatePaymentCredit(error)) {
        const late = await recordIfCreditedByReconciliation(event, amounts);
        if (late) return { outcome: late, creditedTenantId: null };
      }
      logger.error({ err: error, requestId: base.requestId, aliasAccountRef: payment.accountRef }, 'payment posting failed');
      return creditedNone(recordUnusable(base, stated, describePostingFailure(error), amounts));
    }
  }

  async function ingestPayout(notification: PayoutNotification): Promise<IngestOutcome> {
    const { facts, type, providerRef, eventId } = notification;
    const target = await payouts.prepare(type, providerRef, eventId);
    const recorded = await db.transaction(async (trx) => {
      const event = {
        ...facts,
        id: uuidv7(),
        category: 'non_payment_event' as const,
        signatureValid: true,
        tenantId: target?.tenantId,
        accountId: target?.accountId,
      };
      if (!(await createInboundEventsRepo(trx).record(event)).recorded) return false;
      await createOutboxRepo(trx).enqueue(target?.jobs ?? []);
      return true;
    });
    if (!recorded) return 'duplicate';
    starter.kick(target?.jobs ?? []);
    if (target) payouts.notify(type, providerRef);
    return 'non_payment_event';
  }

  /** What is kept of a body that is no verified notification (see UNVERIFIED_PREFIX_CHARS). */
  function unverified(rawBody: Buffer) {
    return {
      rawBody: rawBody.toString('utf8').slice(0, UNVERIFIED_PREFIX_CHARS),
      rawSha256: createHash('sha256').update(rawBody).digest('hex'),
    };
  }

  async function ingestOne(rawBody: Buffer, header: HeaderReader, sourceAddress: string): Promise<Ingested> {
    const notification = notifications.read(rawBody, header);
    // Only traffic failing verification counts against its address: the provider's signed webhooks never wait.
    if (notification.kind === 'unreadable' || notification.kind === 'unverified') await unverifiedLimit.consume(sourceAddress);
    switch (notification.kind) {
      case 'unreadable':
        return creditedNone(
          record({
            id: uuidv7(),
            requestId: null,
            eventType: null,
            category: 'sig_invalid',
            signatureValid: false,
            ...unverified(rawBody),
            error: notification.error,
          }),
        );
      case 'unverified':
        return creditedNone(
          record({
            ...notification.facts,
            payload: undefined,
            ...unverified(rawBody),
            id: uuidv7(),
            category: 'sig_invalid',
            signatureValid: false,
            error: 'signature verification failed',
          }),
        );
      case 'payment':
        return ingestPayment(notification);
      case 'payout':
        return creditedNone(ingestPayout(notification));
      case 'other':
        return creditedNone(record({ ...notification.facts, id: uuidv7(), category: 'non_payment_event', signatureValid: true }));
    }
  }

  return {
    /** Ingests one webhook, counted by its category (`failed` when it escapes as an error: a 5xx answer). */
    async ingest(rawBody: Buffer, header: HeaderReader, sourceAddress: string): Promise<Ingested> {
      const started = performance.now();
      let category = 'failed';
      try {
        const ingested = await ingestOne(rawBody, header, sourceAddress);
        category = ingested.outcome;
        return ingested;
      } finally {
        metrics.webhookAnswered(category, (performance.now() - started) / 1000);
      }
    },
  };
}

export type PaymentIngestService = ReturnType<typeof createPaymentIngestService>;
