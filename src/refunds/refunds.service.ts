import { findAccountById } from '../accounts/accounts.access';
import type { Config } from '../config';
import type { Db, Trx } from '../db';
import { AppError, NotFoundError } from '../errors';
import type { EventedLedger } from '../events/ledger-events';
import type { Metadata } from '../http/metadata';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import { isUuid, uuidv7 } from '../ids';
import { paymentCreditOf, type PaymentCredit } from '../ledger/ledger-reads';
import type { Kobo } from '../money';
import { PayerNameMismatchError, type PayerAccount, type PayerReturns, type ReturnMaker } from '../payer-returns/payer-returns';
import { refundableOf, refundDecision, type RefundFacts } from '../policies/payment-refund/payment-refund';
import {
  heldPayoutStatuses,
  settlementOutcomes,
  type PayoutApprovalStatus,
  type SettlementStatus,
} from '../settlements/settlements.access';
import { createRefundsRepo, REFUND_KEY_CONSTRAINT, type RefundRecord } from './refunds.repo';

/**
 * A refund's status: its settlement's, or while the tenant's approval policy holds it, its held payout's
 * (`awaiting_approval`, then `rejected` or `expired` when it never became a settlement).
 */
export type RefundStatus = SettlementStatus | Exclude<PayoutApprovalStatus, 'approved'>;

/** A refund with its status (and why it failed, once it has). */
export interface Refund extends RefundRecord {
  accountRef: string;
  status: RefundStatus;
  failureReason: string | null;
}

/** A refund as its audit entry names it, written in its settlement's transaction. */
export interface RefundMade {
  transactionGroupId: string;
  accountRef: string;
  amount: Kobo;
  merchantTxRef: string;
  reason: string;
}

export interface RefundRequest {
  amount?: Kobo | undefined;
  reason: string;
  metadata?: Metadata | undefined;
  /** The payer's bank, when the payment's bank name does not name exactly one bank of the bank list. */
  bankCode?: string | undefined;
}

/** The statuses of a refund that pays nothing (or whose payout came back): its amount may be refunded again. */
const FREED: readonly RefundStatus[] = ['failed', 'refunded', 'rejected', 'expired'];

/** The statement line of a refund's settlement names the payment it refunds. */
export const refundNarration = (transactionGroupId: string): string => `Refund of payment ${transactionGroupId}`;

/** A refusal of the refund policy, with its code. */
class RefundRefusedError extends AppError {
  constructor(code: string, message: string) {
    super('conflict', code, message);
  }
}

/** Rolls a refund's settlement back: the key was claimed meanwhile, by a request that holds the account's lock before us. */
class KeyClaimedMeanwhile extends Error {}

const isKeyClaim = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { constraint?: unknown }).constraint === REFUND_KEY_CONSTRAINT;

/**
 * Refunds of inbound payments: part or all of a confirmed payment paid back to the account that paid it (the payer's
 * account as the provider's webhook named it, at the provider's name for it, which must be the payer's), as a
 * settlement of the account through the one path every payment back to a payer takes (src/payer-returns). What may
 * be refunded (src/policies/payment-refund) is judged again in the settlement's transaction, under the account's
 * lock, just before its debit, so concurrent refunds never refund more than the payment credited.
 */
export function createRefundsService(deps: {
  db: Db;
  config: Pick<Config, 'REQUEST_HASH_SECRET'>;
  ledger: Pick<EventedLedger, 'lockAccounts'>;
  returns: PayerReturns;
}) {
  const { db, config, ledger, returns } = deps;
  const refunds = createRefundsRepo(db);

  /** The tenant's payment credit of the group: another tenant's, or none, is not found. */
  async function paymentOf(tenantId: string, transactionGroupId: string): Promise<PaymentCredit> {
    const credit = isUuid(transactionGroupId) ? await paymentCreditOf(db, tenantId, transactionGroupId.toLowerCase()) : undefined;
    if (!credit) throw new NotFoundError('payment not found');
    return credit;
  }

  /** The payment's refunds, each with its settlement's status. */
  async function withStatus(tenantId: string, records: RefundRecord[], reader: Db | Trx = db): Promise<Refund[]> {
    if (records.length === 0) return [];
    const refs = records.map((refund) => refund.merchantTxRef);
    const outcomes = await settlementOutcomes(reader, tenantId, refs);
    const unsettled = refs.filter((merchantTxRef) => !outcomes.has(merchantTxRef));
    const held = unsettled.length > 0 ? await heldPayoutStatuses(reader, tenantId, unsettled) : new Map<string, PayoutApprovalStatus>();
    const accountRefs = new Map<string, string>();
    for (const accountId of new Set(records.map((refund) => refund.accountId)))
      accountRefs.set(accountId, (await findAccountById(reader, accountId))?.accountRef ?? '');
    return records.map((refund): Refund => {
      // A refund is written in its settlement's (or held payout's) transaction, before the settlement row: pending there.
      const heldStatus = held.get(refund.merchantTxRef);
      const outcome = outcomes.get(refund.merchantTxRef) ?? {
        status: heldStatus === undefined || heldStatus === 'approved' ? ('pending' as const) : heldStatus,
        failureReason: null,
      };
      return { ...refund, accountRef: accountRefs.get(refund.accountId) ?? '', ...outcome };
    });
  }

  /** The facts the refund policy judges: the credit and its refunds that have not failed, read with `reader`. */
  async function factsOf(tenantId: string, credit: PaymentCredit, reader: Db | Trx): Promise<RefundFacts> {
    const made = await withStatus(tenantId, await createRefundsRepo(reader).ofPayment(tenantId, credit.transactionGroupId), reader);
    const refunded = made.filter((refund) => !FREED.includes(refund.status)).reduce((sum, refund) => sum + refund.amount, 0n);
    return {
      status: credit.status,
      takenBack: credit.takenBack,
      credited: credit.amount,
      held: credit.held,
      returnedHeld: credit.returnedHeld,
      refunded,
    };
  }

  /** The answer to a request under a key already used: the refund it made, when the request is the same. */
  async function answerClaimed(tenantId: string, key: string, asSent: object): Promise<Refund> {
    const claimed = await refunds.findByKey(tenantId, key);
    if (!claimed || !sameRequest(claimed.requestHash, config.REQUEST_HASH_SECRET, asSent)) throw idempotencyMismatch();
    return (await withStatus(tenantId, [claimed]))[0]!;
  }

  /** The decided amount, or the policy's refusal thrown. */
  function decide(facts: RefundFacts, asked: Kobo | undefined): Kobo {
    const decision = refundDecision(facts, asked);
    if (decision.action === 'refuse') throw new RefundRefusedError(decision.code, decision.message);
    return decision.amount;
  }

  return {
    /** The payer's account of the payment and the provider's name for it now, and what may be refunded; nothing is written. */
    async destination(
      tenantId: string,
      transactionGroupId: string,
      bankCode: string | undefined,
    ): Promise<{ payer: PayerAccount; refundable: Kobo; accountRef: string; transactionGroupId: string }> {
      const credit = await paymentOf(tenantId, transactionGroupId);
      const facts = await factsOf(tenantId, credit, db);
      const payer = await returns.payerAccountOf(tenantId, credit.entryId, bankCode);
      const accountRef = (await findAccountById(db, credit.accountId))?.accountRef ?? '';
      const refundable = facts.status === 'confirmed' && !facts.takenBack ? refundableOf(facts) : 0n;
      return { payer, refundable, accountRef, transactionGroupId: credit.transactionGroupId };
    },

    /**
     * Refunds `amount` (all that is left, when not given) of the tenant's payment to its payer. Judged first without
     * locks (so a refusal costs no name lookup), then the payer's account is looked up at the provider and must be named
     * as the payment names the payer (a 409 naming both otherwise, nothing written); then, in the settlement's
     * transaction under the account's lock, judged again and recorded just before the debit (the settlement's own
     * checks follow: a freeze, the account's spendable money). A retry under the same Idempotency-Key answers the
     * refund it made; under a key used for another request, a 409.
     */
    async create(
      tenantId: string,
      transactionGroupId: string,
      request: RefundRequest,
      idempotencyKey: string,
      asker: { maker: ReturnMaker; audited: (trx: Trx, made: RefundMade) => Promise<void> },
    ): Promise<Refund> {
      const asSent = { transactionGroupId: transactionGroupId.toLowerCase(), ...request };
      if (await refunds.findByKey(tenantId, idempotencyKey)) return answerClaimed(tenantId, idempotencyKey, asSent);
      const credit = await paymentOf(tenantId, transactionGroupId);
      const amount = decide(await factsOf(tenantId, credit, db), request.amount);
      const payer = await returns.payerAccountOf(tenantId, credit.entryId, request.bankCode);
      if (!payer.namesMatch)
        throw new PayerNameMismatchError(payer, 'nothing was refunded; a refund pays only an account the provider names as the payer');
      const account = await findAccountById(db, credit.accountId);
      if (!account) throw new NotFoundError('payment not found');
      const id = uuidv7();
      const metadata = request.metadata ?? {};
      const { reason } = request;
      /** Judged again under the account's lock and recorded, in the transaction that makes the settlement or holds it. */
      const record = async (trx: Trx, merchantTxRef: string): Promise<void> => {
        await ledger.lockAccounts(trx, [credit.accountId]);
        if (await createRefundsRepo(trx).findByKey(tenantId, idempotencyKey)) throw new KeyClaimedMeanwhile();
        const now = await paymentCreditOf(trx, tenantId, credit.transactionGroupId);
        if (!now) throw new NotFoundError('payment not found');
        decide(await factsOf(tenantId, now, trx), amount);
        await createRefundsRepo(trx).insert({
          id,
          tenantId,
          accountId: credit.accountId,
          transactionGroupId: credit.transactionGroupId,
          creditEntryId: credit.entryId,
          amount,
          reason,
          metadata,
          merchantTxRef,
          idempotencyKey,
          requestHash: requestHash(config.REQUEST_HASH_SECRET, asSent),
        });
        await asker.audited(trx, {
          transactionGroupId: credit.transactionGroupId,
          accountRef: account.accountRef,
          amount,
          merchantTxRef,
          reason,
        });
      };
      try {
        await returns.payBack(
          tenantId,
          account.accountRef,
          payer,
          { amount, narration: refundNarration(credit.transactionGroupId), metadata, heldMoney: false },
          {
            beforeDebit: (trx, debit) => record(trx, debit.merchantTxRef),
            // A refund the approval policy holds has no debit yet: it is recorded as it is held (in the hold's transaction).
            onCreated: async (trx, settlement) => {
              if (settlement.status === 'awaiting_approval') await record(trx as Trx, settlement.merchantTxRef);
            },
            maker: asker.maker,
          },
        );
      } catch (error) {
        if (error instanceof KeyClaimedMeanwhile || isKeyClaim(error)) return answerClaimed(tenantId, idempotencyKey, asSent);
        throw error;
      }
      return (await withStatus(tenantId, [(await refunds.findByKey(tenantId, idempotencyKey))!]))[0]!;
    },

    /**
     * The tenant's refunds of its payment, oldest first (with `metadata`, only those carrying every pair of it), and what
     * may still be refunded of it.
     */
    async ofPayment(
      tenantId: string,
      transactionGroupId: string,
      metadata?: Metadata,
    ): Promise<{ refunds: Refund[]; refundable: Kobo; accountRef: string; transactionGroupId: string }> {
      const credit = await paymentOf(tenantId, transactionGroupId);
      const made = await withStatus(tenantId, await refunds.ofPayment(tenantId, credit.transactionGroupId, metadata));
      const facts = await factsOf(tenantId, credit, db);
      const accountRef = (await findAccountById(db, credit.accountId))?.accountRef ?? '';
      const refundable = facts.status === 'confirmed' && !facts.takenBack ? refundableOf(facts) : 0n;
      return { refunds: made, refundable, accountRef, transactionGroupId: credit.transactionGroupId };
    },
  };
}

export type RefundsService = ReturnType<typeof createRefundsService>;
