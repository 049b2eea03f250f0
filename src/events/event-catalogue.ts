import { z } from 'zod';
import { timestampSchema } from '../http/schemas';
import { RESERVATION_KINDS } from '../ledger/reservation-kinds';
import { FREEZE_REASONS, FREEZE_SIDES } from '../policies/account-freeze/account-freeze';
import { MISMATCH_ACTIONS, VARIANCES } from '../policies/dynamic-account-amount/amount-policy';
import { VELOCITY_ACTIONS, VELOCITY_SUBJECTS } from '../policies/velocity/velocity-rules';
import {
  field,
  fieldsSchema,
  fieldsSql,
  fieldsValue,
  optionalFieldsTextSql,
  type Fields,
  type FieldsInput,
  type FieldsOutput,
} from './event-fields';

/**
 * Every event type the service sends. `payment.received` also goes to an account's callbackUrl, as the
 * spec's bare body; every type goes to the tenant's subscribed webhook endpoints inside the envelope below
 * (id, type, creation time, subject and the subject's sequence number). Each type's data is defined once,
 * as a list of fields: its schema (validation, types, the OpenAPI document), its TypeScript body and its
 * SQL body all come from that list. A new type is added here, and mapped from the change it reports in
 * change-events.
 */

/**
 * SPEC.md, Outbound event: field order as the spec lists it; serialised once, sent byte-identical on every retry.
 * A payment to a dynamic account also carries how the account judged it (its gross amount against the expected
 * amount, see policies/dynamic-account-amount), after the spec's fields.
 */
const paymentReceived = {
  eventType: field.constant('payment.received'),
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  gross_amount: field.naira,
  provider_fee: field.naira,
  currency: field.constant('NGN'),
  senderName: field.text,
  narration: field.text,
  status: field.constant('provisional'),
  expectedAmount: field.optional(field.nullableNaira),
  amountReceived: field.optional(field.naira),
  variance: field.optional(field.oneOf(VARIANCES)),
  mismatchAction: field.optional(field.oneOf(MISMATCH_ACTIONS)),
};

/** A dynamic account's mismatched payment paid back to its payer (a settlement, its merchantTxRef), or held for an operator (why). */
const paymentMismatchReturned = {
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  variance: field.oneOf(VARIANCES),
  merchantTxRef: field.text,
};

const paymentMismatchHeld = {
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  variance: field.oneOf(VARIANCES),
  reason: field.text,
};

const paymentConfirmed = { transactionGroupId: field.uuid, accountRef: field.text, amount: field.naira, currency: field.constant('NGN') };

const paymentReversed = {
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  reason: field.nullableText,
};

/** A reversed credit restored, or a confirmed one compensated: the amount given back or taken back, and why. */
const paymentCorrected = {
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  reason: field.text,
};

/** The tenant's metadata on the settlement, transfer or settlement batch, when it carries any. */
const recordMetadata = field.optional(field.metadata);

const settlementCreated = {
  merchantTxRef: field.text,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  status: field.constant('pending'),
  metadata: recordMetadata,
};

const settlementEnded = {
  merchantTxRef: field.text,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  status: field.oneOf(['success', 'failed', 'refunded']),
  reason: field.nullableText,
  metadata: recordMetadata,
};

/** A tenant's refund of a payment to its payer: its settlement (merchantTxRef) accepted, and why the tenant refunds. */
const paymentRefundCreated = {
  refundId: field.uuid,
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  merchantTxRef: field.text,
  reason: field.text,
  status: field.constant('pending'),
  metadata: recordMetadata,
};

/** A refund's settlement ended: paid to the payer, or failed or sent back by the bank (its amount may be refunded again). */
const paymentRefundEnded = {
  refundId: field.uuid,
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  merchantTxRef: field.text,
  status: field.oneOf(['success', 'failed', 'refunded']),
  failureReason: field.nullableText,
  metadata: recordMetadata,
};

/** A payout the tenant's approval policy holds: its money reserved until a second person decides or it expires. */
const settlementAwaitingApproval = {
  merchantTxRef: field.text,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  status: field.constant('awaiting_approval'),
  /** Why it waits, comma-separated: `amount` (at or above the policy's), `new_destination` (the first payout there). */
  reasons: field.text,
  expiresAt: field.timestamp,
};

/** A waiting payout decided: approved (it runs; `settlement.created` follows), rejected or expired (its money released). */
const settlementApprovalDecided = {
  merchantTxRef: field.text,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  /** The email of the user who decided; null when it expired. */
  decidedBy: field.nullableText,
  note: field.nullableText,
};

/** A payout scheduled for a date: its money reserved until then, when it becomes a settlement (`settlement.created` follows). */
const settlementScheduled = {
  merchantTxRef: field.text,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  status: field.constant('pending'),
  scheduledFor: field.timestamp,
};

/** A scheduled payout ended before it became a settlement: its reserved money released. */
const settlementCancelled = {
  merchantTxRef: field.text,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  scheduledFor: field.timestamp,
  /** `cancelled` (the tenant cancelled it), or why the settlement was refused at its time. */
  reason: field.text,
};

/** A velocity rule refused a payout (no merchantTxRef: nothing was made) or sent it to review (it awaits approval). */
const velocityRuleTriggered = {
  ruleId: field.uuid,
  action: field.oneOf(VELOCITY_ACTIONS),
  subject: field.oneOf(VELOCITY_SUBJECTS),
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  /** The payout sent to review; null for a refused payout and for a credit. */
  merchantTxRef: field.nullableText,
  /** The credit held (its payment's transaction group); null for a payout. */
  transactionGroupId: field.nullableText,
  /** The refusal's message, or why the credit is held, as the rule gives it; null for a review. */
  message: field.nullableText,
};

const transferCompleted = {
  transferId: field.uuid,
  fromAccountRef: field.text,
  toAccountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  narration: field.text,
  /** The part of the credit the receiving customer's KYC limits hold (0.00 between one customer's accounts). */
  heldAmount: field.naira,
  metadata: recordMetadata,
};

/** A transfer the tenant's approval policy holds: its money reserved on the sending account until a second person decides or it expires. */
const transferAwaitingApproval = {
  transferId: field.uuid,
  fromAccountRef: field.text,
  toAccountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  status: field.constant('awaiting_approval'),
  expiresAt: field.timestamp,
};

/** A waiting transfer decided: approved (it moves now; `transfer.completed` follows), rejected or expired (its money released). */
const transferApprovalDecided = {
  transferId: field.uuid,
  fromAccountRef: field.text,
  toAccountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  /** The email of the user who decided; null when it expired. */
  decidedBy: field.nullableText,
  note: field.nullableText,
};

/** Every item of a bulk payout is final: how many there were and how they ended (counts as at that moment). */
const settlementBatchCompleted = {
  batchId: field.uuid,
  status: field.oneOf(['completed', 'completed_with_failures', 'cancelled']),
  items: field.integer,
  success: field.integer,
  failed: field.integer,
  refunded: field.integer,
  metadata: recordMetadata,
};

/** A settlement batch held, as a whole, for a second person's approval: its items' money reserved until it is decided. */
const settlementBatchAwaitingApproval = {
  batchId: field.uuid,
  items: field.integer,
  /** What it reserved: the items the dry run passed. */
  total: field.naira,
  currency: field.constant('NGN'),
  /** Why it waits, comma-separated: `total` (at or above the policy's), `item_count` (at least the policy's). */
  reasons: field.text,
  expiresAt: field.timestamp,
  metadata: recordMetadata,
};

/** A held batch decided: approved (it runs), rejected or expired (its money released). */
const settlementBatchApprovalDecided = {
  batchId: field.uuid,
  items: field.integer,
  total: field.naira,
  currency: field.constant('NGN'),
  /** The email of the user who decided; null when it expired. */
  decidedBy: field.nullableText,
  note: field.nullableText,
  metadata: recordMetadata,
};

const kycDecision = { customerId: field.uuid, externalRef: field.text, tier: field.nullableText, reason: field.nullableText };

const kycLimitExceeded = {
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  heldAmount: field.naira,
  currency: field.constant('NGN'),
  tier: field.integer,
  limit: field.oneOf(['single_credit', 'balance']),
  limitAmount: field.naira,
};

const kycHoldReleased = {
  customerId: field.uuid,
  /**
   * The credit an operator released; null when the customer's new limits released what they no longer justify (of one credit or several).
   */
  transactionGroupId: field.nullableText,
  amount: field.naira,
  currency: field.constant('NGN'),
  reason: field.oneOf(['tier_raised', 'operator']),
};

const kycHoldReturned = {
  customerId: field.uuid,
  transactionGroupId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  merchantTxRef: field.text,
};

/** A lien placed on an account: the money it sets aside, why, and when it expires (null: until it is lifted). */
const lienPlaced = {
  lienId: field.uuid,
  accountRef: field.text,
  amount: field.naira,
  currency: field.constant('NGN'),
  reason: field.oneOf(RESERVATION_KINDS.lien.reasons),
  expiresAt: field.nullableTimestamp,
};

/** A lien ended (lifted, or expired): the money it still held, which the account may spend again. */
const lienEnded = { lienId: field.uuid, accountRef: field.text, amount: field.naira, currency: field.constant('NGN') };

const accountFrozen = { accountRef: field.text, frozenFor: field.oneOf(FREEZE_SIDES), reason: field.oneOf(FREEZE_REASONS) };

const accountUnfrozen = { accountRef: field.text };

const endpointDisabled = { endpointId: field.uuid, url: field.text, failingSince: field.timestamp, reason: field.text };

interface EventDefinition {
  fields: Fields;
  /** The data field whose value is the event's subject: the thing its sequence numbers count. */
  subject: string;
  description: string;
}

const DEFINITIONS = {
  'payment.received': {
    fields: paymentReceived,
    subject: 'transactionGroupId',
    description: 'A payment was credited provisionally to an account',
  },
  'payment.confirmed': {
    fields: paymentConfirmed,
    subject: 'transactionGroupId',
    description: 'A provisional credit was confirmed: the provider shows it paid, and it counts towards the available balance',
  },
  'payment.reversed': {
    fields: paymentReversed,
    subject: 'transactionGroupId',
    description: 'A provisional credit was reversed (the provider does not show it paid)',
  },
  'payment.restored': {
    fields: paymentCorrected,
    subject: 'transactionGroupId',
    description:
      'A reversed credit was restored by reconciliation: the provider showed the payment paid after its confirmation window (a confirmed credit of the amount reversed)',
  },
  'payment.compensated': {
    fields: paymentCorrected,
    subject: 'transactionGroupId',
    description:
      'A confirmed credit was taken back by a compensating debit: the provider reports the payment failed or refunded (money already paid out leaves the account in deficit)',
  },
  'payment.mismatch_returned': {
    fields: paymentMismatchReturned,
    subject: 'transactionGroupId',
    description:
      "A dynamic account's payment its policy does not accept (or one after expiry), with onMismatch return, confirmed and paid back to its payer: its held money went into a settlement (its merchantTxRef) to the payer's account, whose name the provider gives as the payment names the payer",
  },
  'payment.mismatch_held': {
    fields: paymentMismatchHeld,
    subject: 'transactionGroupId',
    description:
      "A dynamic account's mismatched payment could not be returned (the provider names the payer's account otherwise, finds no such account, or the payment names no account): it stays held in the held-money queue for an operator to return or release",
  },
  'payment.refund_created': {
    fields: paymentRefundCreated,
    subject: 'transactionGroupId',
    description:
      "A refund of part or all of a confirmed payment was made: a settlement (its merchantTxRef, whose settlement.created is told with it) pays it to the payer's account, which the provider names as the payment names the payer",
  },
  'payment.refund_succeeded': {
    fields: paymentRefundEnded,
    subject: 'transactionGroupId',
    description: "A refund's settlement paid the payer (its settlement.succeeded is told with it)",
  },
  'payment.refund_failed': {
    fields: paymentRefundEnded,
    subject: 'transactionGroupId',
    description:
      "A refund's settlement failed, or the bank sent the payout back (status refunded): its debit was returned to the account, and its amount may be refunded again",
  },
  'settlement.created': {
    fields: settlementCreated,
    subject: 'merchantTxRef',
    description: 'A settlement was accepted: its amount was debited provisionally from the account, and its transfer is on its way',
  },
  'settlement.scheduled': {
    fields: settlementScheduled,
    subject: 'merchantTxRef',
    description:
      'A payout was scheduled for a later time: its amount is reserved on the account (not spendable) until then, when it becomes a settlement (settlement.created follows), unless it is cancelled first',
  },
  'settlement.cancelled': {
    fields: settlementCancelled,
    subject: 'merchantTxRef',
    description:
      'A scheduled payout ended before it became a settlement, its reserved amount released to the account: cancelled (reason `cancelled`), or refused at its time (reason: the refusal, e.g. the account frozen)',
  },
  'settlement.awaiting_approval': {
    fields: settlementAwaitingApproval,
    subject: 'merchantTxRef',
    description:
      "A payout waits for a second person's approval under the tenant's approval policy: its amount is reserved on the account (not spendable) until it is approved, rejected or expires",
  },
  'settlement.approved': {
    fields: settlementApprovalDecided,
    subject: 'merchantTxRef',
    description: 'A payout waiting for approval was approved by a user other than its maker: it runs now (settlement.created follows)',
  },
  'settlement.rejected': {
    fields: settlementApprovalDecided,
    subject: 'merchantTxRef',
    description: 'A payout waiting for approval was rejected: its reserved amount is released to the account',
  },
  'settlement.expired': {
    fields: settlementApprovalDecided,
    subject: 'merchantTxRef',
    description: "A payout waiting for approval was not decided within the policy's time: its reserved amount is released to the account",
  },
  'velocity_rule.triggered': {
    fields: velocityRuleTriggered,
    subject: 'ruleId',
    description:
      "A velocity rule judged a payout past its threshold: refused with the rule's message (nothing was made), or sent to review (settlement.awaiting_approval follows); or a credit past it, which landed held with the rule's message (payment.received tells it; an operator releases it from the held-money queue)",
  },
  'settlement.succeeded': { fields: settlementEnded, subject: 'merchantTxRef', description: 'A settlement was paid out' },
  'settlement.failed': {
    fields: settlementEnded,
    subject: 'merchantTxRef',
    description: 'A settlement failed; its debit was returned to the account',
  },
  'settlement.refunded': {
    fields: settlementEnded,
    subject: 'merchantTxRef',
    description: 'A settlement was refunded by the bank; its debit was returned to the account',
  },
  'transfer.completed': {
    fields: transferCompleted,
    subject: 'transferId',
    description:
      "Money moved between two of the tenant's accounts: debited from one and credited (confirmed) to the other in one ledger transaction; heldAmount is the part of the credit the receiving customer's KYC limits hold",
  },
  'transfer.awaiting_approval': {
    fields: transferAwaitingApproval,
    subject: 'transferId',
    description:
      "A transfer between the tenant's accounts waits for a second person's approval under the tenant's approval policy: its amount is reserved on the sending account (not spendable) until it is approved, rejected or expires",
  },
  'transfer.approved': {
    fields: transferApprovalDecided,
    subject: 'transferId',
    description: 'A transfer waiting for approval was approved by a user other than its maker: it moves now (transfer.completed follows)',
  },
  'transfer.rejected': {
    fields: transferApprovalDecided,
    subject: 'transferId',
    description: 'A transfer waiting for approval was rejected: its reserved amount is released to the sending account',
  },
  'transfer.expired': {
    fields: transferApprovalDecided,
    subject: 'transferId',
    description:
      "A transfer waiting for approval was not decided within the policy's time: its reserved amount is released to the sending account",
  },
  'settlement_batch.completed': {
    fields: settlementBatchCompleted,
    subject: 'batchId',
    description:
      'Every item of a settlement batch is final (paid, failed, refunded, or refused before submission): the batch and its counts; failed counts refused and cancelled items too',
  },
  'settlement_batch.awaiting_approval': {
    fields: settlementBatchAwaitingApproval,
    subject: 'batchId',
    description:
      "A settlement batch waits, as a whole, for a second person's approval under the tenant's approval policy: each item's amount is reserved on its account until the batch is approved, rejected or expires",
  },
  'settlement_batch.approved': {
    fields: settlementBatchApprovalDecided,
    subject: 'batchId',
    description:
      'A settlement batch waiting for approval was approved by a user other than its maker: its items run now, each spending what was reserved for it',
  },
  'settlement_batch.rejected': {
    fields: settlementBatchApprovalDecided,
    subject: 'batchId',
    description: 'A settlement batch waiting for approval was rejected: what it reserved is released and none of its items is paid',
  },
  'settlement_batch.expired': {
    fields: settlementBatchApprovalDecided,
    subject: 'batchId',
    description:
      "A settlement batch waiting for approval was not decided within the policy's time: what it reserved is released and none of its items is paid",
  },
  'kyc.approved': {
    fields: kycDecision,
    subject: 'customerId',
    description: "A customer's KYC was approved: the identity check (tier 2), or an operator recorded tier 3 with its evidence",
  },
  'kyc.rejected': { fields: kycDecision, subject: 'customerId', description: "A customer's identity check was rejected" },
  'kyc.limit_exceeded': {
    fields: kycLimitExceeded,
    subject: 'transactionGroupId',
    description:
      "Part of a payment is held: it went over the customer's KYC tier limits (the payment is credited in full; the held part cannot be paid out until released)",
  },
  'kyc.hold_released': {
    fields: kycHoldReleased,
    subject: 'customerId',
    description:
      "Held money of a customer can be spent again: a higher KYC tier's limits no longer justify holding it, or an operator released one credit's hold",
  },
  'kyc.hold_returned': {
    fields: kycHoldReturned,
    subject: 'customerId',
    description:
      "An operator returned a credit's held money to its payer: the hold was released into a settlement (its merchantTxRef) that pays it back",
  },
  'lien.placed': {
    fields: lienPlaced,
    subject: 'lienId',
    description:
      'A lien was placed on an account: it may spend that much less (all of it while the account holds less) until the lien is lifted or expires',
  },
  'lien.lifted': {
    fields: lienEnded,
    subject: 'lienId',
    description: 'A lien was lifted: what it still held (amount) may be spent again',
  },
  'lien.expired': {
    fields: lienEnded,
    subject: 'lienId',
    description: 'A lien reached its expiry: what it still held (amount) may be spent again',
  },
  'account.frozen': {
    fields: accountFrozen,
    subject: 'accountRef',
    description:
      'An account was frozen, or its freeze changed: for debits no money leaves it; for credits, payments still land but are held until the freeze is lifted',
  },
  'account.unfrozen': {
    fields: accountUnfrozen,
    subject: 'accountRef',
    description: "An account's freeze was lifted: it pays out again, and the credits the freeze held may be spent",
  },
  'webhook_endpoint.disabled': {
    fields: endpointDisabled,
    subject: 'endpointId',
    description: 'One of the tenant’s endpoints failed every delivery for too long and was disabled',
  },
} as const satisfies Record<string, EventDefinition>;

type Definitions = typeof DEFINITIONS;
export type EventType = keyof Definitions;
export const EVENT_TYPES = Object.keys(DEFINITIONS) as [EventType, ...EventType[]];
/** What a body of type T is built from: a value per field that is not constant (amounts in kobo, times as Dates). */
export type EventInput<T extends EventType> = FieldsInput<Definitions[T]['fields']>;
export type EventData<T extends EventType> = FieldsOutput<Definitions[T]['fields']>;

/** Each type's data schema, description and subject field. */
export const EVENT_CATALOGUE = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    { data: fieldsSchema(DEFINITIONS[type].fields), subject: DEFINITIONS[type].subject, description: DEFINITIONS[type].description },
  ]),
) as unknown as { [T in EventType]: { data: z.ZodType<EventData<T>>; subject: Definitions[T]['subject']; description: string } };

/** A type's data in TypeScript. */
export function eventData<T extends EventType>(type: T, input: EventInput<T>): EventData<T> {
  return fieldsValue(DEFINITIONS[type].fields as Fields, input as never) as EventData<T>;
}

/** The same data as an SQL json expression, from an SQL expression per input (for the grouped statements). */
export function eventDataSql<T extends EventType>(type: T, expressions: Record<keyof EventInput<T>, string>): string {
  return fieldsSql(DEFINITIONS[type].fields as Fields, expressions as never);
}

/**
 * A body of type T built in SQL from its TypeScript body's text `bodySql` (the fields every body carries) and
 * its optional fields: the text with them appended, byte for byte what eventData writes with them given.
 */
export function eventDataWithOptionalSql<T extends EventType>(type: T, bodySql: string, expressions: Record<string, string>): string {
  return `left(${bodySql}, -1) || ${optionalFieldsTextSql(DEFINITIONS[type].fields as Fields, expressions)} || '}'`;
}

/** The subject of an event of this type: its data's subject field. */
export function eventSubject<T extends EventType>(type: T, data: EventData<T>): string {
  return String((data as Record<string, unknown>)[DEFINITIONS[type].subject]);
}

/** The envelope an endpoint receives: `sequence` counts the events of one subject, so a late older one can be dropped. */
export function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.object({
    id: z.uuid(),
    type: z.literal(type),
    createdAt: timestampSchema,
    subject: z.string(),
    sequence: z.number().int().positive(),
    data: EVENT_CATALOGUE[type].data,
  });
}

/** The OpenAPI document's `webhooks`: one envelope schema per event type. */
export function eventWebhookSchemas(): Record<string, { description: string; schema: z.ZodType }> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [type, { description: EVENT_CATALOGUE[type].description, schema: eventEnvelopeSchema(type) }]),
  );
}
