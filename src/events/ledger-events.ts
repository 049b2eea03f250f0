import type { DbOrTrx, Trx } from '../db';
import type { Kobo } from '../money';
import { paymentJudgementOf } from '../ledger/ledger-reads';
import type { LedgerEntry, PostingPlan } from '../ledger/ledger.types';
import { RESERVATION_KINDS, type ReservationKind, type ReservationReason } from '../ledger/reservation-kinds';
import type { Variance } from '../policies/dynamic-account-amount/amount-policy';
import type {
  CompensatedCredit,
  ConfirmedCredits,
  EndedReservations,
  MadeReservation,
  PaidSettlement,
  PostedCredit,
  PostedCredits,
  PostedDebit,
  PostedTransfer,
  PostingEngine,
  RestoredCredit,
  Reversal,
  SplitPartToTakeBack,
  StatementParts,
} from '../ledger/posting-engine';
import {
  judgedPaymentReceivedSql,
  paymentConfirmedEventsCte,
  paymentCreditEventsCte,
  paymentReceivedBody,
  recordPaymentCredit,
  settlementCreatedEventsCte,
} from './change-events';
import { presentMetadata, type Metadata } from '../http/metadata';
import { eventData, eventDataSql, eventDataWithOptionalSql, type EventInput, type EventType } from './event-catalogue';
import { recordEvent, recordedEventsCte, type EventOf } from './tenant-events';
import { deliveriesOfCreditsCte } from './webhook-deliveries';

/**
 * The one layer that tells tenants of money: the ledger's operations, each recording the events of what it did
 * (read from the ledger's result) in the operation's own transaction, so a product module never records a money
 * event itself. The one-at-a-time operations map their LedgerResult to events here (moneyEventsOf); the grouped
 * statements (payment ingest, batch confirmation, settlement initiation) add their events as CTEs read from the
 * relations the ledger hands them (PostedCredits, ConfirmedCredits, PostedDebit).
 */

/** The operations whose results are told one at a time. */
export type ToldResult = Reversal | RestoredCredit | CompensatedCredit | PostedTransfer | PaidSettlement;

/**
 * Why the ledger did it, as the tenant is told: the reason a correction of a payment or a settlement's end gives,
 * and, for a settlement's debit reversed, how the settlement ended.
 */
export interface Why {
  reason: string;
  settlement?: 'failed' | 'refunded';
}

const SETTLEMENT_ENDED = { success: 'settlement.succeeded', failed: 'settlement.failed', refunded: 'settlement.refunded' } as const;

/** An event with the tenant it is for. */
export type TenantMoneyEvent = EventOf & { tenantId: string };

function told<T extends EventType>(tenantId: string, type: T, input: EventInput<T>): TenantMoneyEvent {
  return { tenantId, type, data: eventData(type, input) } as TenantMoneyEvent;
}

/** The accounts whose references a result's events name. */
export function accountsOf(result: ToldResult): string[] {
  switch (result.kind) {
    case 'reversed':
      return [result.original.accountId];
    case 'restored':
      return [result.entry.accountId];
    case 'compensated':
      return [result.credit.accountId];
    case 'transferred':
      return [result.debit.accountId, result.credit.accountId];
    case 'settlement_paid':
      return [result.debit.accountId];
  }
}

/** A settlement's ending, told from its debit (whose reference is the settlement's merchantTxRef). */
function settlementEnded(
  debit: LedgerEntry,
  accountRef: string,
  status: keyof typeof SETTLEMENT_ENDED,
  reason: string | null,
  metadata: Metadata | undefined,
): TenantMoneyEvent {
  if (debit.kind !== 'settlement' || debit.providerTxnRef === null) throw new Error(`entry ${debit.id} is no settlement's debit`);
  return told(debit.tenantId, SETTLEMENT_ENDED[status], {
    merchantTxRef: debit.providerTxnRef,
    accountRef,
    amount: debit.amount,
    status,
    reason,
    ...toldMetadata(metadata),
  });
}

/** The record's metadata as its events carry it: only when it has any. */
function toldMetadata(metadata: Metadata | undefined): { metadata?: Metadata } {
  return metadata ? presentMetadata('metadata', metadata) : {};
}

/**
 * The events of what the ledger did: a payment credit reversed, restored or compensated (told with `why`), a
 * transfer between accounts, a settlement paid, or its debit reversed (told with how it ended and why).
 * `accountRefs` holds the reference of every account of accountsOf(result); `metadata` is the tenant's metadata on
 * the settlement or transfer told of (never on a ledger entry).
 */
export function moneyEventsOf(
  result: ToldResult,
  accountRefs: ReadonlyMap<string, string>,
  why?: Why,
  metadata?: Metadata,
): TenantMoneyEvent[] {
  const refOf = (accountId: string): string => {
    const ref = accountRefs.get(accountId);
    if (ref === undefined) throw new Error(`no reference for account ${accountId}`);
    return ref;
  };
  const reasonOf = (): string => {
    if (!why) throw new Error(`a ${result.kind} payment is told with its reason`);
    return why.reason;
  };
  switch (result.kind) {
    case 'reversed': {
      const { original } = result;
      if (original.direction === 'debit') {
        if (!why?.settlement) throw new Error("a settlement's reversed debit is told with how the settlement ended");
        return [settlementEnded(original, refOf(original.accountId), why.settlement, why.reason, metadata)];
      }
      return [
        told(original.tenantId, 'payment.reversed', {
          transactionGroupId: original.transactionGroupId,
          accountRef: refOf(original.accountId),
          amount: original.amount,
          reason: reasonOf(),
        }),
      ];
    }
    case 'restored': {
      const { original, entry } = result;
      return [
        told(original.tenantId, 'payment.restored', {
          transactionGroupId: original.transactionGroupId,
          accountRef: refOf(entry.accountId),
          amount: entry.amount,
          reason: reasonOf(),
        }),
      ];
    }
    case 'compensated': {
      const { credit, debit } = result;
      return [
        told(credit.tenantId, 'payment.compensated', {
          transactionGroupId: credit.transactionGroupId,
          accountRef: refOf(credit.accountId),
          amount: debit.amount,
          reason: reasonOf(),
        }),
      ];
    }
    case 'transferred': {
      const { reference, debit, credit, held } = result;
      return [
        told(debit.tenantId, 'transfer.completed', {
          transferId: reference,
          fromAccountRef: refOf(debit.accountId),
          toAccountRef: refOf(credit.accountId),
          amount: debit.amount,
          narration: debit.narration,
          heldAmount: held,
          ...toldMetadata(metadata),
        }),
      ];
    }
    case 'settlement_paid':
      return [settlementEnded(result.debit, refOf(result.debit.accountId), 'success', null, metadata)];
  }
}

/** An account as the events of its reservations name it. */
export interface ReservingAccount {
  tenantId: string;
  accountRef: string;
  customerId: string;
}

/**
 * What the events of ended reservations name beyond the result: each account of the result, the variance of each
 * dynamic account's payment posted by its return (by the credit's entry id), and the merchantTxRef of the
 * settlement whose debit posts them (for a posted result).
 */
export interface ReservationFacts {
  accounts: ReadonlyMap<string, ReservingAccount>;
  variances: ReadonlyMap<string, Variance>;
  merchantTxRef?: string;
}

/** The events of money a feature set aside: a lien's `lien.placed`; a kind without an event (none other yet) tells nothing. */
export function reservationMadeEventsOf(result: MadeReservation, account: ReservingAccount): TenantMoneyEvent[] {
  if (result.reservationKind !== 'lien') return [];
  return [
    told(account.tenantId, 'lien.placed', {
      lienId: result.ownerId,
      accountRef: account.accountRef,
      amount: result.amount,
      reason: result.reason as ReservationReason<'lien'>,
      expiresAt: result.expiresAt,
    }),
  ];
}

/**
 * The events of reservations ended, each kind told by its own events:
 * - a lien lifted or expired: `lien.lifted` or `lien.expired`, with what it still held;
 * - a credit the held-money queue holds (a queued kind; see queued), released by an operator: `kyc.hold_released` per
 *   credit, naming its payment; released by a tier raised: one `kyc.hold_released` of the customer's total, naming
 *   no payment; released because the credit itself was reversed or taken back: nothing more (its reversal is told);
 *   posted by the settlement that returns it to its payer: `payment.mismatch_returned` for a dynamic account's payment
 *   the service returns itself (no user: the account's policy), `kyc.hold_returned` for a return an operator made;
 *   expired: nothing (no queued kind expires);
 * - a credit a freeze holds: nothing (its freeze's `account.unfrozen` or `account.frozen` says it may be spent).
 */
export function reservationEventsOf(result: EndedReservations, facts: ReservationFacts): TenantMoneyEvent[] {
  return [...lienEventsOf(result, facts), ...heldCreditEventsOf(result, facts)];
}

function accountIn(facts: ReservationFacts, accountId: string): ReservingAccount {
  const account = facts.accounts.get(accountId);
  if (!account) throw new Error(`no facts for account ${accountId}`);
  return account;
}

function lienEventsOf(result: EndedReservations, facts: ReservationFacts): TenantMoneyEvent[] {
  const type = result.outcome === 'expired' ? 'lien.expired' : result.outcome === 'released' ? 'lien.lifted' : undefined;
  if (type === undefined) return [];
  return result.ended
    .filter((reservation) => reservation.kind === 'lien' && reservation.amount > 0n)
    .map((reservation) => {
      const { tenantId, accountRef } = accountIn(facts, reservation.accountId);
      return told(tenantId, type, { lienId: reservation.ownerId, accountRef, amount: reservation.amount });
    });
}

function heldCreditEventsOf(result: EndedReservations, facts: ReservationFacts): TenantMoneyEvent[] {
  const held = result.ended.filter((reservation) => RESERVATION_KINDS[reservation.kind].queued);
  const accountOf = (accountId: string): ReservingAccount => accountIn(facts, accountId);
  const groupOf = (reservation: (typeof held)[number]): string => {
    if (reservation.transactionGroupId === null)
      throw new Error(`reservation ${reservation.reservationId} is told with its credit's transaction group`);
    return reservation.transactionGroupId;
  };
  const merchantTxRef = (): string => {
    if (facts.merchantTxRef === undefined) throw new Error("a return of held money is told with its settlement's merchantTxRef");
    return facts.merchantTxRef;
  };
  switch (result.outcome) {
    case 'expired':
      return [];
    case 'released': {
      if (result.reason === 'credit_reversed' || held.length === 0) return [];
      if (result.reason === 'tier_raised') {
        const { tenantId, customerId } = accountOf(held[0]!.accountId);
        const amount = held.reduce((sum, reservation) => sum + reservation.amount, 0n);
        return amount === 0n
          ? []
          : [told(tenantId, 'kyc.hold_released', { customerId, transactionGroupId: null, amount, reason: 'tier_raised' })];
      }
      return held.map((reservation) => {
        const { tenantId, customerId } = accountOf(reservation.accountId);
        return told(tenantId, 'kyc.hold_released', {
          customerId,
          transactionGroupId: groupOf(reservation),
          amount: reservation.amount,
          reason: 'operator',
        });
      });
    }
    case 'posted':
      return held.map((reservation) => {
        const { tenantId, customerId, accountRef } = accountOf(reservation.accountId);
        const transactionGroupId = groupOf(reservation);
        if (reservation.kind === 'payment_mismatch' && result.userId === null) {
          const variance = facts.variances.get(reservation.ownerId);
          if (variance === undefined) throw new Error(`no variance for the dynamic account's payment ${reservation.ownerId}`);
          return told(tenantId, 'payment.mismatch_returned', {
            transactionGroupId,
            accountRef,
            amount: reservation.amount,
            variance,
            merchantTxRef: merchantTxRef(),
          });
        }
        return told(tenantId, 'kyc.hold_returned', {
          customerId,
          transactionGroupId,
          accountRef,
          amount: reservation.amount,
          merchantTxRef: merchantTxRef(),
        });
      });
  }
}

/** The tenant, reference and customer of each account, as the events of reservations name them. */
async function reservingAccounts(trx: Trx, accountIds: string[]): Promise<Map<string, ReservingAccount>> {
  const rows: Array<{ id: string; tenant_id: string; account_ref: string; customer_id: string }> = await trx('virtual_accounts')
    .whereIn('id', [...new Set(accountIds)])
    .select('id', 'tenant_id', 'account_ref', 'customer_id');
  return new Map(rows.map((row) => [row.id, { tenantId: row.tenant_id, accountRef: row.account_ref, customerId: row.customer_id }]));
}

/** Records the events of money set aside, in the transaction that set it aside. */
async function tellMade(trx: Trx, result: MadeReservation): Promise<MadeReservation> {
  const account = (await reservingAccounts(trx, [result.accountId])).get(result.accountId);
  if (!account) throw new Error(`no account ${result.accountId}`);
  for (const event of reservationMadeEventsOf(result, account)) await recordEvent(trx, event);
  return result;
}

/** Records the events of reservations ended, in the transaction that ended them. */
async function tellEnded(trx: Trx, result: EndedReservations, told: { merchantTxRef?: string } = {}): Promise<EndedReservations> {
  if (result.ended.length === 0) return result;
  const accounts = await reservingAccounts(
    trx,
    result.ended.map((reservation) => reservation.accountId),
  );
  const variances = new Map<string, Variance>();
  if (result.outcome === 'posted')
    for (const reservation of result.ended) {
      if (reservation.kind !== 'payment_mismatch') continue;
      const judgement = await paymentJudgementOf(trx, reservation.ownerId);
      if (judgement) variances.set(reservation.ownerId, judgement.variance);
    }
  for (const event of reservationEventsOf(result, { accounts, variances, ...told })) await recordEvent(trx, event);
  return result;
}

async function accountRefs(trx: Trx, accountIds: string[]): Promise<Map<string, string>> {
  const rows: Array<{ id: string; account_ref: string }> = await trx('virtual_accounts')
    .whereIn('id', [...new Set(accountIds)])
    .select('id', 'account_ref');
  return new Map(rows.map((row) => [row.id, row.account_ref]));
}

/** The metadata of the settlement whose debit this is (by its merchantTxRef), for the events of its ending. */
async function settlementMetadata(trx: Trx, debit: LedgerEntry): Promise<Metadata | undefined> {
  if (debit.kind !== 'settlement' || debit.providerTxnRef === null) return undefined;
  const row: { metadata: Metadata } | undefined = await trx('settlements')
    .where({ tenant_id: debit.tenantId, merchant_tx_ref: debit.providerTxnRef })
    .first('metadata');
  return row?.metadata;
}

/**
 * `payment.refund_created` for each settlement of `settlements` (a relation with tenant_id, merchant_tx_ref and account_ref)
 * that refunds a payment: its refund's row is written in the settlement's transaction just before the debit. The
 * payment's events exist already, so its subject is numbered after them.
 */
function refundCreatedEventsCte(name: string, settlements: string): string {
  const expressions = {
    refundId: 'r.id',
    transactionGroupId: 'r.transaction_group_id',
    accountRef: 's.account_ref',
    amount: 'r.amount',
    merchantTxRef: 'r.merchant_tx_ref',
    reason: 'r.reason',
    metadata: 'r.metadata',
  };
  const body = eventDataSql('payment.refund_created', expressions);
  const withMetadata = eventDataWithOptionalSql('payment.refund_created', `CAST(${body} AS text)`, { metadata: 'r.metadata' });
  const data = `CASE WHEN r.metadata = CAST('{}' AS jsonb) THEN ${body} ELSE CAST(${withMetadata} AS json) END`;
  return recordedEventsCte(
    name,
    `SELECT gen_random_uuid() AS id, r.tenant_id, 'payment.refund_created' AS type, CAST(r.transaction_group_id AS text) AS subject, 1 AS ord, ${data} AS data
       FROM ${settlements} s JOIN payment_refunds r ON r.tenant_id = s.tenant_id AND r.merchant_tx_ref = s.merchant_tx_ref`,
    'existing',
  );
}

/** The refund a settlement pays, when it pays one (its debit's reference is the settlement's merchantTxRef). */
interface RefundPaid {
  id: string;
  transactionGroupId: string;
  metadata: Metadata;
}

async function refundPaidBy(trx: Trx, debit: LedgerEntry): Promise<RefundPaid | undefined> {
  if (debit.kind !== 'settlement' || debit.providerTxnRef === null) return undefined;
  const row: { id: string; transaction_group_id: string; metadata: Metadata } | undefined = await trx('payment_refunds')
    .where({ tenant_id: debit.tenantId, merchant_tx_ref: debit.providerTxnRef })
    .first('id', 'transaction_group_id', 'metadata');
  return row && { id: row.id, transactionGroupId: row.transaction_group_id, metadata: row.metadata };
}

/**
 * The refund's ending, told beside its settlement's: `payment.refund_succeeded` once paid, `payment.refund_failed` when
 * the settlement failed or the bank sent it back (`ended`, with why).
 */
export function refundEndedEventOf(
  refund: RefundPaid,
  debit: LedgerEntry,
  accountRef: string,
  ended: { status: 'success' | 'failed' | 'refunded'; reason: string | null },
): TenantMoneyEvent {
  if (debit.providerTxnRef === null) throw new Error(`entry ${debit.id} is no settlement's debit`);
  return told(debit.tenantId, ended.status === 'success' ? 'payment.refund_succeeded' : 'payment.refund_failed', {
    refundId: refund.id,
    transactionGroupId: refund.transactionGroupId,
    accountRef,
    amount: debit.amount,
    merchantTxRef: debit.providerTxnRef,
    status: ended.status,
    failureReason: ended.status === 'success' ? null : ended.reason,
    ...toldMetadata(refund.metadata),
  });
}

/**
 * Records the events of what the ledger did, in the transaction it did it in. A settlement's ending carries the
 * settlement's metadata, read here; a transfer's, the `metadata` its caller gives (its record is written after).
 */
async function tell<R extends ToldResult>(trx: Trx, result: R, why?: Why, metadata?: Metadata): Promise<R> {
  const settlementDebit =
    result.kind === 'settlement_paid'
      ? result.debit
      : result.kind === 'reversed' && result.original.direction === 'debit'
        ? result.original
        : undefined;
  const carried = settlementDebit ? await settlementMetadata(trx, settlementDebit) : metadata;
  const refs = await accountRefs(trx, accountsOf(result));
  for (const event of moneyEventsOf(result, refs, why, carried)) await recordEvent(trx, event);
  const refund = settlementDebit && (await refundPaidBy(trx, settlementDebit));
  if (settlementDebit && refund) {
    const ended =
      result.kind === 'settlement_paid'
        ? { status: 'success' as const, reason: null }
        : { status: why?.settlement ?? 'failed', reason: why?.reason ?? null };
    await recordEvent(trx, refundEndedEventOf(refund, settlementDebit, refs.get(settlementDebit.accountId) ?? '', ended));
  }
  return result;
}

/** A received payment as its `payment.received` body tells it (the account's judgement of it is the ledger's). */
export interface ReceivedPayment {
  gross: Kobo;
  fee: Kobo;
  senderName: string;
  narration: string;
}

/**
 * What a grouped payment credits' statement tells, read from the caller's relations: `credits` (its credits
 * relation: account_id, event (the inbound event, its id), received_at, delivery_id, delivery_payload (the body
 * paymentReceivedBody wrote before the account was known), event_record_id, hold_event_id and entry) and
 * `accounts` (id, tenant_id, account_ref, callback_url and amount_policy).
 */
interface CreditsTold {
  accounts: string;
}

/**
 * The ledger, each of whose money operations records the events of what it did. The engine's bare posting,
 * confirmation and reversal record none, so they are not offered here: an operation that moves money outside the
 * engine's own tests has its evented form below.
 */
export function createEventedLedger(ledger: PostingEngine) {
  const { post, confirm, reverse, ...operations } = ledger;
  return {
    ...operations,

    /** A payment credit to a known account (a group of one), with its events; the `payment.received` body told, for its callback. */
    async creditPayment(
      trx: Trx,
      account: { id: string; accountRef: string; dynamic: boolean },
      posting: PostingPlan,
      told: { eventId: string; limitEventId: string; received: ReceivedPayment },
    ): Promise<PostedCredit & { body: string }> {
      const credited = await ledger.creditPayment(trx, account.id, posting);
      const { entry } = credited;
      // Only a dynamic account (whose policy never changes) has a judgement, so an ordinary account's credit reads nothing more.
      const judgement = account.dynamic ? await paymentJudgementOf(trx, entry.id) : undefined;
      const body = paymentReceivedBody({
        transactionGroupId: entry.transactionGroupId,
        accountRef: account.accountRef,
        ...told.received,
        judgement,
      });
      await recordPaymentCredit(trx, {
        accountId: account.id,
        entryId: entry.id,
        transactionGroupId: entry.transactionGroupId,
        eventId: told.eventId,
        holdEventId: told.limitEventId,
        body,
      });
      return { ...credited, body };
    },

    /**
     * Payment credits in ONE statement with the caller's rows (see the posting engine's creditPaymentsAmong), and for
     * each credit posted its callback delivery (when its account has a callbackUrl), its `payment.received` and, when
     * part of it is set aside over the customer's limits, its `kyc.limit_exceeded`: the body judged by the ledger for a
     * dynamic account.
     */
    creditPaymentsAmong(
      db: DbOrTrx,
      name: string,
      parts: StatementParts<PostedCredits> & { credits: string; told: CreditsTold },
      bindings: Record<string, unknown>,
    ): Promise<{ rows: unknown[] }> {
      const { credits, told } = parts;
      const body = (posted: PostedCredits): string =>
        judgedPaymentReceivedSql('c.delivery_payload', {
          dynamicSql: 't.amount_policy IS NOT NULL',
          judgements: posted.judgements,
          entryIdSql: "CAST(c.entry->>'id' AS uuid)",
        });
      return ledger.creditPaymentsAmong(
        db,
        name,
        {
          ...parts,
          after: (posted) =>
            [
              deliveriesOfCreditsCte('told_delivery', credits, told.accounts, body(posted)),
              paymentCreditEventsCte('told_event', {
                credits,
                accounts: told.accounts,
                holds: posted.reservations,
                payloadSql: body(posted),
              }),
              parts.after?.(posted),
            ]
              .filter(Boolean)
              .join(',\n  '),
        },
        bindings,
      );
    },

    /** Confirms provisional credits in ONE statement with the caller's rows, and records `payment.confirmed` for each it confirmed. */
    confirmCreditsAmong(
      db: DbOrTrx,
      name: string,
      parts: StatementParts<ConfirmedCredits> & { entryIdsSql: string; accountIdsSql: string },
      bindings: Record<string, unknown>,
    ): Promise<{ rows: unknown[] }> {
      return ledger.confirmCreditsAmong(
        db,
        name,
        {
          ...parts,
          after: (done) => [parts.after?.(done), paymentConfirmedEventsCte('told_confirmed', done.confirmed)].filter(Boolean).join(',\n  '),
        },
        bindings,
      );
    },

    /**
     * A settlement's debit in ONE statement with the caller's rows, and `settlement.created` for the debit posted (its
     * reference is the settlement's merchantTxRef), when one was, carrying the settlement's metadata (`metadataSql`, jsonb).
     */
    debitSettlementAmong(
      db: DbOrTrx,
      name: string,
      parts: StatementParts<PostedDebit> & { accountIdSql: string; metadataSql: string },
      debit: PostingPlan,
      bindings: Record<string, unknown>,
    ): Promise<{ rows: unknown[] }> {
      return ledger.debitSettlementAmong(
        db,
        name,
        {
          ...parts,
          after: (posted) =>
            [
              parts.after?.(posted),
              // A payout approved after waiting has its approval's events already: settlement.created numbers after them.
              `told_settlement AS (
    SELECT i.tenant_id, i.provider_txn_ref AS merchant_tx_ref, i.amount, a.account_ref, ${parts.metadataSql} AS metadata, gen_random_uuid() AS event_id,
           (SELECT coalesce(max(e.sequence), 0) FROM tenant_events e WHERE e.tenant_id = i.tenant_id AND e.subject = i.provider_txn_ref) AS events_before
      FROM ${posted.entries} i JOIN virtual_accounts a ON a.id = i.account_id
  ), ${settlementCreatedEventsCte('told_settlement_event', 'told_settlement')},
  ${refundCreatedEventsCte('told_refund_event', 'told_settlement')}`,
            ]
              .filter(Boolean)
              .join(',\n  '),
        },
        debit,
        bindings,
      );
    },

    /**
     * Moves money between two accounts (see the posting engine's transfer), with its `transfer.completed` carrying the
     * transfer's `metadata` (kept on the transfer's record, never on the ledger's entries).
     */
    async transfer(trx: Trx, transfer: Parameters<PostingEngine['transfer']>[1], metadata?: Metadata): Promise<PostedTransfer> {
      return tell(trx, await ledger.transfer(trx, transfer), undefined, metadata);
    },

    /** A settlement's payout left the provider (see the posting engine's settlementPaid), with its `settlement.succeeded`. */
    async settlementPaid(trx: Trx, debitEntryId: string, payoutFee: Kobo): Promise<PaidSettlement | undefined> {
      const paid = await ledger.settlementPaid(trx, debitEntryId, payoutFee);
      return paid && tell(trx, paid);
    },

    /**
     * Reverses a settlement's debit: a failed one's provisional debit, or a refunded one's paid debit, with its
     * `settlement.failed` or `settlement.refunded` (why); undefined when there was nothing to reverse.
     */
    async reverseSettlementDebit(
      trx: Trx,
      debitEntryId: string,
      told: Why & { settlement: 'failed' | 'refunded'; narration: string },
    ): Promise<Reversal | undefined> {
      const reversal = await ledger.reverse(trx, debitEntryId, told.narration);
      return reversal && tell(trx, reversal, told);
    },

    /** Reverses a provisional payment credit, with its `payment.reversed` (why); undefined when it had left `provisional`. */
    async reversePayment(trx: Trx, entryId: string, told: Why & { narration: string }): Promise<Reversal | undefined> {
      const reversal = await ledger.reverse(trx, entryId, told.narration);
      return reversal && tell(trx, reversal, told);
    },

    /** Restores a reversed payment credit (see the posting engine's restoreReversedCredit), with its `payment.restored` (why). */
    async restoreReversedCredit(
      trx: Trx,
      original: LedgerEntry,
      reversal: LedgerEntry,
      told: Why & { narration: string },
    ): Promise<RestoredCredit> {
      return tell(trx, await ledger.restoreReversedCredit(trx, original, reversal, told.narration), told);
    },

    /** Takes a confirmed credit back (see the posting engine's compensateCredit), with its `payment.compensated` (why). */
    async compensateCredit<Part extends SplitPartToTakeBack>(
      trx: Trx,
      credit: LedgerEntry,
      told: Why & { narration: string },
      parts: Part[] = [],
    ): Promise<CompensatedCredit<Part>> {
      const compensated = await ledger.compensateCredit(trx, credit, told.narration, parts);
      await tell(trx, compensated, told);
      return compensated;
    },

    /** Releases what is still held of one credit, an operator's decision (see the posting engine's releaseHold), with its `kyc.hold_released`. */
    async releaseHold(
      trx: Trx,
      accountId: string,
      entryId: string,
      decision: { userId: string; note: string | null },
    ): Promise<EndedReservations> {
      return tellEnded(trx, await ledger.releaseHold(trx, accountId, entryId, decision));
    },

    /**
     * Posts what is held of one credit by the settlement debit that returns it to its payer (see the posting engine's
     * returnHold), with its `kyc.hold_returned` (or, for a dynamic account's payment the service returns,
     * `payment.mismatch_returned`) naming the settlement's merchantTxRef.
     */
    async returnHold(
      trx: Trx,
      accountId: string,
      entryId: string,
      payback: Parameters<PostingEngine['returnHold']>[3],
      told: { merchantTxRef: string },
    ): Promise<EndedReservations> {
      return tellEnded(trx, await ledger.returnHold(trx, accountId, entryId, payback), told);
    },

    /** Releases a customer's KYC-limit reservations the limits of now no longer justify (see the posting engine's), with one `kyc.hold_released` of their total. */
    async releaseHoldsWithinLimits(trx: Trx, customerId: string, userId: string | null): Promise<EndedReservations> {
      return tellEnded(trx, await ledger.releaseHoldsWithinLimits(trx, customerId, userId));
    },

    /** Sets money aside for a feature (see the posting engine's reserve), with its event (a lien's `lien.placed`). */
    async reserve(trx: Trx, reservation: Parameters<PostingEngine['reserve']>[1]): Promise<MadeReservation> {
      return tellMade(trx, await ledger.reserve(trx, reservation));
    },

    /** Releases what is open of a feature's reservation (see the posting engine's releaseOwned), with its event (a lien's `lien.lifted`). */
    async releaseOwned<Kind extends ReservationKind>(
      trx: Trx,
      release: Parameters<typeof ledger.releaseOwned<Kind>>[1],
    ): Promise<EndedReservations> {
      return tellEnded(trx, await ledger.releaseOwned(trx, release));
    },

    /** Releases as expired the reservations whose expiry has passed (see the posting engine's expireDue), with their events (a lien's `lien.expired`). */
    async expireDue(trx: Trx, now: Date, limit?: number): Promise<EndedReservations> {
      return tellEnded(trx, await ledger.expireDue(trx, now, limit));
    },
  };
}

export type EventedLedger = ReturnType<typeof createEventedLedger>;
