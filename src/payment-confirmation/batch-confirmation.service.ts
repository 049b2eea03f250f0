import type { Db, Trx } from '../db';
import { openHeldOf } from '../ledger/held-credits.repo';
import type { EventedLedger } from '../events/ledger-events';
import type { Kobo } from '../money';
import type { Logger } from '../logger';
import type { PaymentProvider } from '../provider/payment-provider';
import { lookupProviderTransaction } from '../provider/transaction-lookup';
import { createConfirmationClaimsRepo, type ConfirmedInRound, type RoundCredit } from './confirmation-claims.repo';
import { decidePayment, notFoundRule, rememberLookup, type PaymentMemory } from '../contracts/confirmation-rules';
import type { BatchPaymentResult, BatchRoundResult } from '../contracts/payment-confirmation.contract';
import type { ProviderTxnLookup } from '../provider/provider-answers';

/** The split rules a confirmation moves in its own transaction (the split-rules service, handed over by the container). */
interface ConfirmationSplits {
  rulesOf(accountIds: string[], trx?: Trx): Promise<Map<string, SplitRuleOfAccount>>;
  moveConfirmed(
    trx: Trx,
    credits: Array<ConfirmedInRound & { held: Kobo; providerTxnRef: string }>,
    rules: Map<string, SplitRuleOfAccount>,
  ): Promise<unknown>;
}

/** What the confirmation reads of a split rule: the accounts it pays into, which it locks. */
interface SplitRuleOfAccount {
  parts: Array<{ toAccountId: string }>;
}

/**
 * Lookups of one round in flight at once: a round of the usual batch (about 34 payments) asks about all of them
 * together, so a slow provider's answer time is paid about once a round, not once for every few payments. The
 * provider sees at most this many per busy batch (CONFIRMATION_BATCHES_PER_WORKER of them per worker process).
 */
const DEFAULT_LOOKUP_CONCURRENCY = 32;

interface Answered {
  credit: RoundCredit;
  lookup: ProviderTxnLookup;
}

/**
 * One round of a batch confirmation, done by the activity itself: it reads each credit and its claim
 * from the database, looks each transaction up at the provider (the reference the database holds, not
 * the workflow's), decides by the confirmation rules, and moves the money, all without trusting its
 * caller. Only credits whose claim row names this batch are touched. The round's confirmations, with
 * their claims taken and the provider's answers about the credits it keeps remembered on theirs, are one
 * statement (the ledger's confirm fragment: account locks held only while Postgres runs it); reversals
 * (rare) post one by one afterwards in a transaction of their own, each with its claim. A Retry-After
 * from the provider stops the round's lookups at once: the rest of the batch is skipped and the
 * workflow backs the whole batch off.
 */
export function createBatchConfirmationService(deps: {
  db: Db;
  provider: PaymentProvider;
  postingEngine: EventedLedger;
  logger: Logger;
  windowMs: number;
  /** CONFIRMATION_MIN_NOT_FOUND_LOOKUPS: this process's rule, whatever the batch's input says. */
  minNotFoundLookups: number;
  lookupConcurrency?: number;
  splits: ConfirmationSplits;
}) {
  const { db, provider, postingEngine, logger, windowMs, splits } = deps;
  const rule = notFoundRule(windowMs, deps.minNotFoundLookups);
  const concurrency = deps.lookupConcurrency ?? DEFAULT_LOOKUP_CONCURRENCY;
  const claims = createConfirmationClaimsRepo(db);

  /**
   * The round's confirmations. When none of their accounts has a split rule (almost always), the one statement
   * of confirmRound. Otherwise one transaction: the rules read and share-locked (they cannot change under the
   * round), every account involved (the round's and the rules' receiving ones) locked, customers then accounts in
   * id order as every posting takes them, then the same statement, then each split credit's parts moved as
   * transfers: a split happens with its confirmation or not at all, and never for a credit left provisional or
   * reversed. A rule set between the first read and the statement applies from the next payment.
   */
  async function confirmWithSplits(
    batchId: string,
    credits: RoundCredit[],
    kept: Parameters<typeof claims.confirmRound>[3],
  ): ReturnType<typeof claims.confirmRound> {
    const toConfirm = credits.map((credit) => ({ entryId: credit.entryId, accountId: credit.accountId }));
    const accountIds = [...new Set(toConfirm.map((credit) => credit.accountId))];
    if (accountIds.length === 0 || (await splits.rulesOf(accountIds)).size === 0)
      return claims.confirmRound(postingEngine, batchId, toConfirm, kept);
    return db.transaction(async (trx) => {
      const rules = await splits.rulesOf(accountIds, trx);
      const receiving = [...rules.values()].flatMap((rule) => rule.parts.map((part) => part.toAccountId));
      await postingEngine.lockAccounts(trx, [...accountIds, ...receiving]);
      const round = await createConfirmationClaimsRepo(trx).confirmRound(postingEngine, batchId, toConfirm, kept);
      const confirmed = [...round.confirmed.values()];
      const held = await openHeldOf(
        trx,
        confirmed.map((credit) => credit.entryId),
      );
      const references = new Map(credits.map((credit) => [credit.entryId, credit.providerTxnRef]));
      await splits.moveConfirmed(
        trx,
        confirmed.map((credit) => ({ ...credit, held: held.get(credit.entryId) ?? 0n, providerTxnRef: references.get(credit.entryId)! })),
        rules,
      );
      return round;
    });
  }

  /** Looks every credit up, a few at a time, until the provider asks us to back off. */
  async function lookUpAll(credits: RoundCredit[]): Promise<{ answered: Answered[]; throttledForMs: number | null }> {
    const answered: Answered[] = [];
    let throttledForMs: number | null = null;
    let next = 0;
    const lanes = Array.from({ length: Math.min(concurrency, credits.length) }, async () => {
      while (next < credits.length && throttledForMs === null) {
        const credit = credits[next++]!;
        const lookup = await lookupProviderTransaction(provider, logger, credit.providerTxnRef);
        answered.push({ credit, lookup });
        if (lookup.kind === 'unavailable' && lookup.retryAfterMs !== undefined)
          throttledForMs = Math.max(throttledForMs ?? 0, lookup.retryAfterMs);
      }
    });
    await Promise.all(lanes);
    return { answered, throttledForMs };
  }

  return {
    async round(batchId: string, entryIds: string[]): Promise<BatchRoundResult> {
      const asked = [...new Set(entryIds)];
      const credits = await claims.loadRound(asked, windowMs);
      const results = new Map<string, BatchPaymentResult>();
      const held: RoundCredit[] = [];
      const settledElsewhere: string[] = [];
      for (const entryId of asked) {
        const credit = credits.get(entryId);
        // A credit of a tenant moved away is let go untouched: the copy on its new cluster holds the claim, and the
        // convergence check there puts it back in the queue once this batch has ended.
        if (!credit || credit.movedOut || (credit.status === 'provisional' && credit.claimedBy !== batchId))
          results.set(entryId, { entryId, kind: 'released' });
        else if (credit.status !== 'provisional') {
          if (credit.hasClaim) settledElsewhere.push(entryId);
          results.set(entryId, {
            entryId,
            kind: 'settled',
            outcome: 'already_settled',
            reason: 'the credit is no longer provisional',
            lookup: null,
          });
        } else held.push(credit);
      }

      const { answered, throttledForMs } = await lookUpAll(held);
      const toConfirm: Answered[] = [];
      const toReverse: Array<Answered & { reason: string }> = [];
      const kept: Array<Answered & { memory: PaymentMemory; notFoundCounted: boolean; reason: string }> = [];
      for (const item of answered) {
        // The answer is timed here by the database's clock as the round read the credit (before the
        // lookup), and a counted one is stored with the time of the statement that records it (after
        // the lookup): the spacing between counted answers is never overstated.
        const memory = rememberLookup(item.credit.memory, item.lookup, item.credit.nowMs, rule);
        const facts = {
          providerTxnRef: item.credit.providerTxnRef,
          aliasAccountRef: item.credit.paidIntoRef,
          grossAmountKobo: item.credit.gross.toString(),
          currency: item.credit.currency,
        };
        const decision = decidePayment(
          facts,
          memory,
          item.lookup,
          { nowMs: item.credit.nowMs, windowEndsAtMs: item.credit.windowEndsAtMs },
          rule,
        );
        if (decision.kind === 'confirm') toConfirm.push(item);
        else if (decision.kind === 'reverse') toReverse.push({ ...item, reason: decision.reason });
        else
          kept.push({
            ...item,
            memory,
            notFoundCounted: memory.lastNotFoundCountedAtMs !== item.credit.memory.lastNotFoundCountedAtMs,
            reason: decision.reason,
          });
      }

      const { held: taken, confirmed } = await confirmWithSplits(
        batchId,
        toConfirm.map((item) => item.credit),
        kept.map((item) => ({ entryId: item.credit.entryId, memory: item.memory, notFoundCounted: item.notFoundCounted })),
      );
      for (const { credit, lookup } of toConfirm) {
        const entryId = credit.entryId;
        if (confirmed.has(entryId))
          results.set(entryId, {
            entryId,
            kind: 'settled',
            outcome: 'confirmed',
            reason: 'provider shows it SUCCESS with every field matching',
            lookup,
          });
        else if (taken.has(entryId))
          results.set(entryId, {
            entryId,
            kind: 'settled',
            outcome: 'already_settled',
            reason: 'the credit is no longer provisional',
            lookup,
          });
        else results.set(entryId, { entryId, kind: 'released' });
      }
      if (toReverse.length > 0) {
        await db.transaction(async (trx) => {
          await postingEngine.lockAccounts(
            trx,
            toReverse.map((item) => item.credit.accountId),
          );
          for (const { credit, lookup, reason } of toReverse) {
            const entryId = credit.entryId;
            if (!(await claims.dropHeld(trx, batchId, entryId))) {
              results.set(entryId, { entryId, kind: 'released' });
              continue;
            }
            const reversal = await postingEngine.reversePayment(trx, entryId, { narration: `reversal: ${reason}`, reason });
            results.set(
              entryId,
              reversal
                ? { entryId, kind: 'settled', outcome: 'reversed', reason, lookup }
                : { entryId, kind: 'settled', outcome: 'already_settled', reason: 'the credit is no longer provisional', lookup },
            );
          }
        });
      }
      for (const { credit, reason } of toReverse)
        if (results.get(credit.entryId)?.kind === 'settled')
          logger.info({ entryId: credit.entryId, batchId, reason }, 'provisional credit reversed');
      for (const { credit, lookup, reason } of kept) results.set(credit.entryId, { entryId: credit.entryId, kind: 'kept', reason, lookup });
      for (const credit of held)
        if (!results.has(credit.entryId)) results.set(credit.entryId, { entryId: credit.entryId, kind: 'skipped' });
      await claims.dropSettled(settledElsewhere);
      return { results: asked.map((entryId) => results.get(entryId)!), throttledForMs };
    },
  };
}

export type BatchConfirmationService = ReturnType<typeof createBatchConfirmationService>;
