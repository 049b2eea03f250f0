import { expireAccount, findAccountById } from '../accounts/accounts.access';
import type { Db } from '../db';
import { recordChange } from '../events/change-events';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Logger } from '../logger';
import type { PaymentProvider } from '../provider/payment-provider';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import { decidePayment, judgeCredit, notFoundRule, rememberLookup, type CreditFacts } from '../contracts/confirmation-rules';
import { createConfirmationAnswersRepo, type LockedAnswers } from './confirmation-answers.repo';
import { createPaymentCreditsRepo, type PaymentCreditRecord } from './payment-credits.repo';
import type { CreditResolution } from '../contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../provider/provider-answers';

const ALREADY_SETTLED: CreditResolution = { kind: 'settled', outcome: 'already_settled', reason: 'the credit is no longer provisional' };

function factsOf(credit: PaymentCreditRecord): CreditFacts {
  return { providerTxnRef: credit.providerTxnRef, aliasAccountRef: credit.paidIntoRef, grossAmountKobo: credit.gross.toString(), currency: credit.currency };
}

/**
 * Checks a provisional credit against the provider's records and confirms or reverses it, for the
 * per-payment confirmation workflow. Nothing its caller says is trusted (anyone who can start a workflow
 * on the task queue can call these activities with any input): each decision re-reads the credit from
 * the database and looks the transaction up itself, and moves money only when that answer supports it.
 * Every answer the provider gives these activities is remembered in the database (confirmation_answers),
 * and a credit the provider does not know is reversed only when what the database holds meets the
 * not-found rule (this process's CONFIRMATION_WINDOW and CONFIRMATION_MIN_NOT_FOUND_LOOKUPS, never the
 * workflow's input): enough "not found" answers, spaced in real time, the last after the window, and
 * never one the provider has shown.
 */
export function createPaymentConfirmationService(deps: { db: Db; provider: PaymentProvider; postingEngine: PostingEngine; logger: Logger; windowMs: number; minNotFoundLookups: number }) {
  const { db, provider, postingEngine, logger, windowMs } = deps;
  const rule = notFoundRule(windowMs, deps.minNotFoundLookups);
  const credits = createPaymentCreditsRepo(db);

  /** Records one answer about a provisional credit by the not-found rule, at the database's time; the memory after it. */
  function remember(credit: PaymentCreditRecord, answer: ProviderTxnLookup): Promise<LockedAnswers> {
    return db.transaction(async (trx) => {
      const answers = createConfirmationAnswersRepo(trx);
      const before = await answers.lock(credit.entryId, windowMs);
      const memory = rememberLookup(before.memory, answer, before.nowMs, rule);
      await answers.save(credit.entryId, memory, memory.lastNotFoundCountedAtMs !== before.memory.lastNotFoundCountedAtMs);
      return { ...before, memory };
    });
  }

  /** The credit, the provider's current answer about it and what the database now remembers; null when there is nothing provisional to decide. */
  async function inspect(entryId: string): Promise<{ credit: PaymentCreditRecord; answer: ProviderTxnLookup; answers: LockedAnswers } | null> {
    const credit = await credits.find(entryId);
    if (!credit || credit.status !== 'provisional') return null;
    const answer = await lookupProviderTransaction(provider, logger, credit.providerTxnRef);
    return { credit, answer, answers: await remember(credit, answer) };
  }

  /**
   * Confirms the credit and records payment.confirmed with it; a one-time account whose expected amount
   * this payment meets expires with it.
   */
  async function applyConfirm(credit: PaymentCreditRecord): Promise<CreditResolution> {
    return db.transaction(async (trx) => {
      const entry = await postingEngine.confirm(trx, credit.entryId);
      if (!entry) return ALREADY_SETTLED;
      await createConfirmationAnswersRepo(trx).drop(credit.entryId);
      await recordChange(trx, { kind: 'payment_confirmed', tenantId: entry.tenantId, transactionGroupId: entry.transactionGroupId, accountRef: credit.accountRef, amount: entry.amount });
      const account = await findAccountById(trx, entry.accountId);
      if (account?.expectedAmount !== null && account?.expectedAmount === entry.amount + entry.fee) await expireAccount(trx, account.id);
      return { kind: 'settled', outcome: 'confirmed', reason: 'provider shows it SUCCESS with every field matching' };
    });
  }

  /** Reverses the credit and records payment.reversed with it. */
  async function applyReverse(credit: PaymentCreditRecord, reason: string): Promise<CreditResolution> {
    const reversal = await db.transaction(async (trx) => {
      const reversed = await postingEngine.reverse(trx, credit.entryId, `reversal: ${reason}`);
      if (!reversed) return undefined;
      await createConfirmationAnswersRepo(trx).drop(credit.entryId);
      const { original } = reversed;
      await recordChange(trx, {
        kind: 'payment_reversed',
        tenantId: original.tenantId,
        transactionGroupId: original.transactionGroupId,
        accountRef: credit.accountRef,
        amount: original.amount,
        reason,
      });
      return reversed;
    });
    if (!reversal) return ALREADY_SETTLED;
    logger.info({ entryId: credit.entryId, reason }, 'provisional credit reversed');
    return { kind: 'settled', outcome: 'reversed', reason };
  }

  return {
    /** Looks a transaction up for the workflow; the answer is remembered for its credit while that is provisional. */
    async lookup(transactionRef: string): Promise<ProviderTxnLookup> {
      const answer = await lookupProviderTransaction(provider, logger, transactionRef);
      const credit = await credits.findByProviderTxnRef(transactionRef);
      if (credit?.status === 'provisional') await remember(credit, answer);
      return answer;
    },

    /** Confirms only when the provider shows this very credit SUCCESS; a mismatch or failure it finds instead reverses. */
    async confirm(entryId: string): Promise<CreditResolution> {
      const inspected = await inspect(entryId);
      if (!inspected) return ALREADY_SETTLED;
      const { credit, answer } = inspected;
      const judgement = judgeCredit(factsOf(credit), answer);
      if (judgement.kind === 'matches') return applyConfirm(credit);
      if (judgement.kind === 'wrong') return applyReverse(credit, judgement.reason);
      if (judgement.kind === 'unknown') return { kind: 'kept', lookup: answer, reason: 'provider does not know the transaction now' };
      return { kind: 'kept', lookup: answer, reason: judgement.reason };
    },

    /**
     * Reverses only when the provider reports the payment failed, refunded or not this credit, or when
     * the database's record of the provider's answers meets the not-found rule (this lookup counted in
     * it). `claimedReason` is only logged.
     */
    async reverse(entryId: string, claimedReason: string): Promise<CreditResolution> {
      const inspected = await inspect(entryId);
      if (!inspected) return ALREADY_SETTLED;
      const { credit, answer, answers } = inspected;
      const decision = decidePayment(factsOf(credit), answers.memory, answer, { nowMs: answers.nowMs, windowEndsAtMs: answers.windowEndsAtMs }, rule);
      if (decision.kind === 'reverse') return applyReverse(credit, decision.reason);
      const reason = decision.kind === 'confirm' ? 'provider shows it SUCCESS' : decision.reason;
      logger.warn({ entryId, claimedReason, reason }, 'reversal refused: the provider does not support it');
      return { kind: 'kept', lookup: answer, reason: `reversal refused: ${reason}` };
    },
  };
}

export type PaymentConfirmationService = ReturnType<typeof createPaymentConfirmationService>;
