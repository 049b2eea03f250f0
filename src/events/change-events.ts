import type { Trx } from '../db';
import { presentMetadata, type Metadata } from '../http/metadata';
import type { Kobo } from '../money';
import { creditHoldSql } from '../ledger/ledger-reads';
import { eventData, eventDataSql, eventDataWithOptionalSql, type EventInput, type EventType } from './event-catalogue';
import type { FreezeReason, FreezeSide } from '../policies/account-freeze/account-freeze';
import type { PaymentJudgement, Variance } from '../policies/dynamic-account-amount/amount-policy';
import type { VelocityAction, VelocitySubject } from '../policies/velocity/velocity-rules';
import { recordedEventsCte, recordEvent, type EventOf } from './tenant-events';

/**
 * What the tenant is told of each change, recorded in the transaction that makes the change. Money is told by the
 * events layer from what the ledger did (ledger-events, with the payment credits' and confirmations' events built
 * below from the catalogue); recordChange records what moves no money: a bulk payout's end (a count of its
 * settlements), a dynamic account's return refused (the money stays held as it was), a payout or a transfer held for approval and
 * the decision about it, a payout scheduled for a date and its end unpaid (cancelled, or refused at its time) (a held settlement batch and its decision alike; its reservation moves no money; an approved one's settlement is told by the ledger), a velocity
 * rule refusing a payout or sending it to review, and
 * every decision about a customer, an account's freeze or an endpoint. A module outside src/events never records a money event itself (the lint's
 * money-event check).
 */

export type Change =
  | {
      kind: 'settlement_batch_completed';
      tenantId: string;
      batchId: string;
      status: 'completed' | 'completed_with_failures' | 'cancelled';
      items: number;
      success: number;
      failed: number;
      refunded: number;
      metadata: Metadata;
    }
  | {
      kind: 'mismatch_held';
      tenantId: string;
      transactionGroupId: string;
      accountRef: string;
      amount: Kobo;
      variance: Variance;
      reason: string;
    }
  | {
      kind: 'kyc_decided';
      tenantId: string;
      customerId: string;
      externalRef: string;
      approved: boolean;
      tier: number;
      reason: string | null;
    }
  | { kind: 'account_frozen'; tenantId: string; accountRef: string; frozenFor: FreezeSide; reason: FreezeReason }
  | { kind: 'account_unfrozen'; tenantId: string; accountRef: string }
  | { kind: 'endpoint_disabled'; tenantId: string; endpointId: string; url: string; failingSince: Date; reason: string }
  | {
      kind: 'payout_awaiting_approval';
      tenantId: string;
      merchantTxRef: string;
      accountRef: string;
      amount: Kobo;
      reasons: readonly string[];
      expiresAt: Date;
    }
  | {
      kind: 'payout_approval_decided';
      tenantId: string;
      decision: 'approved' | 'rejected' | 'expired';
      merchantTxRef: string;
      accountRef: string;
      amount: Kobo;
      decidedBy: string | null;
      note: string | null;
    }
  | { kind: 'payout_scheduled'; tenantId: string; merchantTxRef: string; accountRef: string; amount: Kobo; scheduledFor: Date }
  | {
      kind: 'payout_schedule_ended';
      tenantId: string;
      merchantTxRef: string;
      accountRef: string;
      amount: Kobo;
      scheduledFor: Date;
      /** `cancelled`, or why the settlement was refused at its time. */
      reason: string;
    }
  | {
      kind: 'transfer_awaiting_approval';
      tenantId: string;
      transferId: string;
      fromAccountRef: string;
      toAccountRef: string;
      amount: Kobo;
      expiresAt: Date;
    }
  | {
      kind: 'transfer_approval_decided';
      tenantId: string;
      decision: 'approved' | 'rejected' | 'expired';
      transferId: string;
      fromAccountRef: string;
      toAccountRef: string;
      amount: Kobo;
      decidedBy: string | null;
      note: string | null;
    }
  | {
      kind: 'settlement_batch_awaiting_approval';
      tenantId: string;
      batchId: string;
      items: number;
      total: Kobo;
      reasons: readonly string[];
      expiresAt: Date;
      metadata: Metadata;
    }
  | {
      kind: 'settlement_batch_approval_decided';
      tenantId: string;
      decision: 'approved' | 'rejected' | 'expired';
      batchId: string;
      items: number;
      total: Kobo;
      decidedBy: string | null;
      note: string | null;
      metadata: Metadata;
    }
  | {
      kind: 'velocity_rule_triggered';
      tenantId: string;
      ruleId: string;
      action: VelocityAction;
      subject: VelocitySubject;
      accountRef: string;
      amount: Kobo;
      merchantTxRef: string | null;
      transactionGroupId: string | null;
      message: string | null;
    };

function told<T extends EventType>(type: T, input: EventInput<T>): EventOf {
  return { type, data: eventData(type, input) } as EventOf;
}

/** The event a change is told as. */
export function eventOfChange(change: Change): EventOf {
  switch (change.kind) {
    case 'settlement_batch_completed': {
      const { batchId, status, items, success, failed, refunded, metadata } = change;
      return told('settlement_batch.completed', {
        batchId,
        status,
        items,
        success,
        failed,
        refunded,
        ...presentMetadata('metadata', metadata),
      });
    }
    case 'mismatch_held': {
      const { transactionGroupId, accountRef, amount, variance, reason } = change;
      return told('payment.mismatch_held', { transactionGroupId, accountRef, amount, variance, reason });
    }
    case 'kyc_decided': {
      const { customerId, externalRef, tier, reason } = change;
      return told(change.approved ? 'kyc.approved' : 'kyc.rejected', { customerId, externalRef, tier: String(tier), reason });
    }
    case 'account_frozen': {
      const { accountRef, frozenFor, reason } = change;
      return told('account.frozen', { accountRef, frozenFor, reason });
    }
    case 'account_unfrozen':
      return told('account.unfrozen', { accountRef: change.accountRef });
    case 'endpoint_disabled': {
      const { endpointId, url, failingSince, reason } = change;
      return told('webhook_endpoint.disabled', { endpointId, url, failingSince, reason });
    }
    case 'payout_awaiting_approval': {
      const { merchantTxRef, accountRef, amount, reasons, expiresAt } = change;
      return told('settlement.awaiting_approval', { merchantTxRef, accountRef, amount, reasons: reasons.join(','), expiresAt });
    }
    case 'payout_approval_decided': {
      const { merchantTxRef, accountRef, amount, decidedBy, note } = change;
      return told(`settlement.${change.decision}`, { merchantTxRef, accountRef, amount, decidedBy, note });
    }
    case 'payout_scheduled': {
      const { merchantTxRef, accountRef, amount, scheduledFor } = change;
      return told('settlement.scheduled', { merchantTxRef, accountRef, amount, scheduledFor });
    }
    case 'payout_schedule_ended': {
      const { merchantTxRef, accountRef, amount, scheduledFor, reason } = change;
      return told('settlement.cancelled', { merchantTxRef, accountRef, amount, scheduledFor, reason });
    }
    case 'transfer_awaiting_approval': {
      const { transferId, fromAccountRef, toAccountRef, amount, expiresAt } = change;
      return told('transfer.awaiting_approval', { transferId, fromAccountRef, toAccountRef, amount, expiresAt });
    }
    case 'transfer_approval_decided': {
      const { transferId, fromAccountRef, toAccountRef, amount, decidedBy, note } = change;
      return told(`transfer.${change.decision}`, { transferId, fromAccountRef, toAccountRef, amount, decidedBy, note });
    }
    case 'settlement_batch_awaiting_approval': {
      const { batchId, items, total, reasons, expiresAt, metadata } = change;
      return told('settlement_batch.awaiting_approval', {
        batchId,
        items,
        total,
        reasons: reasons.join(','),
        expiresAt,
        ...presentMetadata('metadata', metadata),
      });
    }
    case 'settlement_batch_approval_decided': {
      const { batchId, items, total, decidedBy, note, metadata } = change;
      return told(`settlement_batch.${change.decision}`, {
        batchId,
        items,
        total,
        decidedBy,
        note,
        ...presentMetadata('metadata', metadata),
      });
    }
    case 'velocity_rule_triggered': {
      const { ruleId, action, subject, accountRef, amount, merchantTxRef, transactionGroupId, message } = change;
      return told('velocity_rule.triggered', { ruleId, action, subject, accountRef, amount, merchantTxRef, transactionGroupId, message });
    }
  }
}

/** Records the change's event in the caller's transaction (the one that makes the change). */
export function recordChange(trx: Trx, change: Change): Promise<string> {
  return recordEvent(trx, { tenantId: change.tenantId, ...eventOfChange(change) });
}

/**
 * A received payment's `payment.received` data: the spec's callback body, and the data of the event
 * for the tenant's endpoints (the same bytes). A payment to a dynamic account also carries the account's
 * judgement of it (given once the ledger has posted it); the grouped statement appends the same fields in SQL
 * (judgedPaymentReceivedSql).
 */
export function paymentReceivedBody(credit: {
  transactionGroupId: string;
  accountRef: string;
  gross: Kobo;
  fee: Kobo;
  senderName: string;
  narration: string;
  judgement?: PaymentJudgement | null;
}): string {
  const { transactionGroupId, accountRef, gross, fee, senderName, narration, judgement } = credit;
  return JSON.stringify(
    eventData('payment.received', {
      transactionGroupId,
      accountRef,
      amount: gross - fee,
      gross_amount: gross,
      provider_fee: fee,
      senderName,
      narration,
      ...(judgement
        ? {
            expectedAmount: judgement.expectedAmount,
            amountReceived: judgement.amountReceived,
            variance: judgement.variance,
            mismatchAction: judgement.action,
          }
        : {}),
    }),
  );
}

/**
 * The `payment.received` body of a credit in SQL: `bodySql`, the body paymentReceivedBody wrote before the
 * account was known, as it is for an ordinary account (`dynamicSql` false: nothing else is read); a dynamic
 * account's with the ledger's judgement of the credit appended, looked up by `entryIdSql` in `judgements` (a
 * relation with id, expected_amount, amount_received, variance and action).
 */
export function judgedPaymentReceivedSql(bodySql: string, judged: { dynamicSql: string; judgements: string; entryIdSql: string }): string {
  const withJudgement = eventDataWithOptionalSql('payment.received', bodySql, {
    expectedAmount: 'v.expected_amount',
    amountReceived: 'v.amount_received',
    variance: 'v.variance',
    mismatchAction: 'v.action',
  });
  return `CASE WHEN ${judged.dynamicSql}
               THEN coalesce((SELECT ${withJudgement} FROM ${judged.judgements} v WHERE v.id = ${judged.entryIdSql}), ${bodySql})
               ELSE ${bodySql} END`;
}

/**
 * The events of payment credits, as a CTE of the statement that posts them: for each credit its
 * `payment.received` (its data is the callback body the caller built, paymentReceivedBody), then, when the
 * ledger held part of it over the customer's limits, its `kyc.limit_exceeded` (a dynamic account's payment
 * held to be returned is told by its `payment.received`). Each credit makes its transaction group, a new subject.
 * `credits` names a relation with columns account_id, event_record_id and hold_event_id (the two events'
 * ids), delivery_payload and entry (jsonb: the credit's id and transaction_group_id); `accounts` one with
 * id, tenant_id and account_ref; `holds` one with the holds the ledger wrote (entry_id, account_id,
 * kind, amount, tier, limit_kind, limit_amount, and the credit's amount as credit_amount). `payloadSql` (of `c` and
 * `t`, the credit and its account) is the body when it is not delivery_payload as it is.
 */
export function paymentCreditEventsCte(
  name: string,
  relations: { credits: string; accounts: string; holds: string; payloadSql?: string },
): string {
  const { credits, accounts, holds, payloadSql = 'c.delivery_payload' } = relations;
  const limitExceeded = eventDataSql('kyc.limit_exceeded', {
    transactionGroupId: "c.entry->>'transaction_group_id'",
    accountRef: 't.account_ref',
    amount: 'h.credit_amount',
    heldAmount: 'h.amount',
    tier: 'h.tier',
    limit: 'h.limit_kind',
    limitAmount: 'h.limit_amount',
  });
  return recordedEventsCte(
    name,
    `SELECT c.event_record_id AS id, t.tenant_id, 'payment.received' AS type, c.entry->>'transaction_group_id' AS subject, 1 AS ord, CAST(${payloadSql} AS json) AS data
       FROM ${credits} c JOIN ${accounts} t ON t.id = c.account_id
     UNION ALL
     SELECT c.hold_event_id, t.tenant_id, 'kyc.limit_exceeded', c.entry->>'transaction_group_id', 2, ${limitExceeded}
       FROM ${holds} h
       JOIN ${credits} c ON CAST(c.entry->>'id' AS uuid) = h.entry_id
       JOIN ${accounts} t ON t.id = h.account_id
      WHERE h.kind = 'kyc_limit'`,
    'new',
  );
}

/**
 * The payment credit made one at a time (an operator's assignment, a credit reconciliation found missing):
 * its events as the grouped statement records them, from the hold the ledger wrote in the caller's transaction.
 */
export async function recordPaymentCredit(
  trx: Trx,
  credit: { accountId: string; entryId: string; transactionGroupId: string; eventId: string; holdEventId: string; body: string },
): Promise<void> {
  await trx.raw(
    `WITH credit AS (
       SELECT CAST(:account_id AS uuid) AS account_id, CAST(:event_id AS uuid) AS event_record_id, CAST(:hold_event_id AS uuid) AS hold_event_id,
              CAST(:body AS text) AS delivery_payload, jsonb_build_object('id', CAST(:entry_id AS text), 'transaction_group_id', CAST(:group_id AS text)) AS entry
     ), account AS (
       SELECT id, tenant_id, account_ref FROM virtual_accounts WHERE id = :account_id
     ), hold AS (
       ${creditHoldSql(':entry_id')}
     ), ${paymentCreditEventsCte('recorded', { credits: 'credit', accounts: 'account', holds: 'hold' })}
     SELECT count(*) FROM recorded`,
    {
      account_id: credit.accountId,
      event_id: credit.eventId,
      hold_event_id: credit.holdEventId,
      body: credit.body,
      entry_id: credit.entryId,
      group_id: credit.transactionGroupId,
    },
  );
}

/**
 * `payment.confirmed` for each credit the ledger's batch-confirmation statement confirmed, as CTEs of that
 * statement, numbered after its transaction group's earlier events. The subjects are locked once every
 * confirmed row is known, so after the statement's account and entry locks, as a reversal takes them.
 * `confirmed` names the relation of credits the ledger confirmed (ConfirmedCredits: account_id, amount, transaction_group_id).
 */
export function paymentConfirmedEventsCte(name: string, confirmed: string): string {
  const data = eventDataSql('payment.confirmed', {
    transactionGroupId: 'c.transaction_group_id',
    accountRef: 'a.account_ref',
    amount: 'c.amount',
  });
  return recordedEventsCte(
    name,
    `SELECT gen_random_uuid() AS id, a.tenant_id, 'payment.confirmed' AS type, CAST(c.transaction_group_id AS text) AS subject, 1 AS ord, ${data} AS data
       FROM ${confirmed} c JOIN virtual_accounts a ON a.id = c.account_id`,
    'existing',
  );
}

/**
 * `settlement.created` for the settlement the initiation statement made (none when it made none), as a CTE
 * of that statement. Its merchantTxRef is a subject no one else can tell of until this transaction commits: a new
 * one, or a payout's that waited for approval, whose events this transaction holds (its approval's row lock).
 * `settlements` names a relation with columns event_id, tenant_id, merchant_tx_ref, account_ref, amount, metadata (jsonb,
 * told when not empty) and events_before (the subject's last sequence: 0 for a new one).
 */
export function settlementCreatedEventsCte(name: string, settlements: string): string {
  const body = eventDataSql('settlement.created', {
    merchantTxRef: 's.merchant_tx_ref',
    accountRef: 's.account_ref',
    amount: 's.amount',
    metadata: 's.metadata',
  });
  const withMetadata = eventDataWithOptionalSql('settlement.created', `CAST(${body} AS text)`, { metadata: 's.metadata' });
  const data = `CASE WHEN s.metadata = CAST('{}' AS jsonb) THEN ${body} ELSE CAST(${withMetadata} AS json) END`;
  return recordedEventsCte(
    name,
    `SELECT s.event_id AS id, s.tenant_id, 'settlement.created' AS type, s.merchant_tx_ref AS subject, 1 + s.events_before AS ord, ${data} AS data FROM ${settlements} s`,
    'new',
  );
}
