import { expireAccount, findAccountById } from '../accounts/accounts.access';
import type { Db } from '../db';
import { recordEvent } from '../events/tenant-events';
import { formatKobo } from '../money';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Logger } from '../logger';
import type { PaymentProvider } from '../provider/payment-provider';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import { judgeCredit, NOT_KNOWN_IN_WINDOW, type CreditFacts } from '../contracts/confirmation-rules';
import { createPaymentCreditsRepo, type PaymentCreditRecord } from './payment-credits.repo';
import type { CreditResolution } from '../contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../provider/provider-answers';

const ALREADY_SETTLED: CreditResolution = { kind: 'settled', outcome: 'already_settled', reason: 'the credit is no longer provisional' };

function factsOf(credit: PaymentCreditRecord): CreditFacts {
  return { providerTxnRef: credit.providerTxnRef, aliasAccountRef: credit.paidIntoRef, grossAmountKobo: credit.gross.toString(), currency: credit.currency };
}

/**
 * Checks a provisional credit against the provider's records and confirms or reverses it. Neither
 * decision trusts its caller (anyone who can start a workflow on the task queue): each re-reads the
 * credit from the database and looks the transaction up itself, and moves money only when that
 * answer supports it. `windowMs` is this process's CONFIRMATION_WINDOW, not the workflow's input.
 */
export function createPaymentConfirmationService(deps: { db: Db; provider: PaymentProvider; postingEngine: PostingEngine; logger: Logger; windowMs: number }) {
  const { db, provider, postingEngine, logger, windowMs } = deps;
  const credits = createPaymentCreditsRepo(db);

  function lookup(transactionRef: string): Promise<ProviderTxnLookup> {
    return lookupProviderTransaction(provider, logger, transactionRef);
  }

  /** The credit and the provider's current answer about it; null when there is nothing provisional to decide. */
  async function inspect(entryId: string): Promise<{ credit: PaymentCreditRecord; answer: ProviderTxnLookup } | null> {
    const credit = await credits.find(entryId, windowMs);
    if (!credit || credit.status !== 'provisional') return null;
    return { credit, answer: await lookup(credit.providerTxnRef) };
  }

  /**
   * Confirms the credit and records payment.confirmed with it; a one-time account whose expected amount
   * this payment meets expires with it.
   */
  async function applyConfirm(credit: PaymentCreditRecord): Promise<CreditResolution> {
    return db.transaction(async (trx) => {
      const entry = await postingEngine.confirm(trx, credit.entryId);
      if (!entry) return ALREADY_SETTLED;
      await recordEvent(trx, {
        tenantId: entry.tenantId,
        type: 'payment.confirmed',
        subject: entry.transactionGroupId,
        data: { transactionGroupId: entry.transactionGroupId, accountRef: credit.accountRef, amount: formatKobo(entry.amount), currency: 'NGN' },
      });
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
      const { original } = reversed;
      await recordEvent(trx, {
        tenantId: original.tenantId,
        type: 'payment.reversed',
        subject: original.transactionGroupId,
        data: { transactionGroupId: original.transactionGroupId, accountRef: credit.accountRef, amount: formatKobo(original.amount), currency: 'NGN', reason },
      });
      return reversed;
    });
    if (!reversal) return ALREADY_SETTLED;
    logger.info({ entryId: credit.entryId, reason }, 'provisional credit reversed');
    return { kind: 'settled', outcome: 'reversed', reason };
  }

  return {
    lookup,

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
     * Reverses only when the provider reports the payment failed, refunded or not this credit, or does
     * not know it once the window (from posting time) is over. `claimedReason` is only logged.
     */
    async reverse(entryId: string, claimedReason: string): Promise<CreditResolution> {
      const inspected = await inspect(entryId);
      if (!inspected) return ALREADY_SETTLED;
      const { credit, answer } = inspected;
      const judgement = judgeCredit(factsOf(credit), answer);
      if (judgement.kind === 'wrong') return applyReverse(credit, judgement.reason);
      if (judgement.kind === 'unknown' && credit.windowOver) return applyReverse(credit, NOT_KNOWN_IN_WINDOW);
      const reason = judgement.kind === 'matches' ? 'provider shows it SUCCESS' : judgement.kind === 'unknown' ? 'not found, but the confirmation window is not over' : judgement.reason;
      logger.warn({ entryId, claimedReason, reason }, 'reversal refused: the provider does not support it');
      return { kind: 'kept', lookup: answer, reason: `reversal refused: ${reason}` };
    },
  };
}

export type PaymentConfirmationService = ReturnType<typeof createPaymentConfirmationService>;
