import { createAccountsRepo } from '../accounts/accounts.repo';
import type { Config } from '../config';
import { isUniqueViolation, type Db } from '../db';
import { uuidv7 } from '../ids';
import type { WorkflowStarter } from '../jobs/workflow-starter';
import { createLedgerRepo } from '../ledger/ledger.repo';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Logger } from '../logger';
import { formatKobo } from '../money';
import { createInboundEventsRepo } from '../payments/inbound-events.repo';
import type { PaymentCrediter } from '../payments/payment-credit';
import { ProviderRejectedError } from '../provider/errors';
import type { ProviderClient } from '../provider/provider.types';
import type { SettlementExecutionService } from '../settlements/settlement-execution.service';
import { createSettlementsRepo } from '../settlements/settlements.repo';
import { outcomeOf } from './findings';
import type {
  ReconciliationPagesResult,
  ReconciliationPosition,
  ReconciliationRunHandle,
  ReconciliationSummary,
} from './reconciliation.payloads';
import { createReconciliationExceptionsRepo, type Finding } from './reconciliation-exceptions.repo';
import { createReconciliationMatchingRepo, type PendingAction } from './reconciliation-matching.repo';
import { createReconciliationRunsRepo, type RunRecord, type WalletCheck } from './reconciliation-runs.repo';
import { fromListing, fromLookup, type LookupRequest, type ProviderRow } from './provider-rows';

/** Single lookups per page of the lookup phase. */
const LOOKUP_BATCH = 50;
/** Pages one activity call processes before it returns to the workflow. */
const PAGES_PER_CALL = 20;
const STUCK_SETTLEMENTS_REPORTED = 1_000;

export const RESTORED_NARRATION = 'restored by reconciliation: the provider confirmed this payment after the confirmation window';

/** A staged repair someone else has made meanwhile (a late webhook, a concurrent run). */
class AlreadyRepaired extends Error {}

export class ReconciliationRunNotFoundError extends Error {
  constructor(runId: string) {
    super(`reconciliation run ${runId} does not exist`);
    this.name = 'ReconciliationRunNotFoundError';
  }
}

export interface PageProgress {
  position: ReconciliationPosition;
  pages: number;
  providerTransactions: number;
  repaired: number;
}

function handleOf(run: RunRecord): ReconciliationRunHandle {
  return { runId: run.id, tenantId: run.tenantId, windowFrom: run.windowFrom.toISOString(), windowTo: run.windowTo.toISOString() };
}

function summaryOf(run: RunRecord): ReconciliationSummary {
  return {
    runId: run.id,
    outcome: outcomeOf(run),
    providerTransactions: run.providerTransactions,
    matched: run.matched,
    repaired: run.repaired,
    reported: run.reported,
    alerts: run.alerts,
    inFlight: run.inFlight,
    daysDiffering: run.daysDiffering ?? 0,
  };
}

type ReconciliationConfig = Pick<
  Config,
  'RECONCILIATION_PAGE_SIZE' | 'RECONCILIATION_GRACE' | 'RECONCILIATION_MAX_LOOKUPS' | 'RECONCILIATION_STUCK_SETTLEMENT'
>;

/**
 * The rules a reconciliation run's activities apply. Provider records are streamed a page at a time,
 * matched in SQL and staged per run (never held in memory); repairs go through the paths of the events
 * that were missed, each in its own transaction with the staged row it settles, so a retried activity
 * repairs nothing twice.
 */
export function createReconciliationExecutionService(deps: {
  db: Db;
  config: ReconciliationConfig;
  logger: Logger;
  provider: ProviderClient;
  postingEngine: PostingEngine;
  creditPayment: PaymentCrediter;
  settlementExecution: SettlementExecutionService;
  starter: WorkflowStarter;
}) {
  const { db, config, provider, postingEngine, creditPayment, settlementExecution, starter } = deps;
  const logger = deps.logger.child({ component: 'reconciliation' });
  const runs = createReconciliationRunsRepo(db);
  const matching = createReconciliationMatchingRepo(db);
  const exceptions = createReconciliationExceptionsRepo(db);
  const graceSeconds = config.RECONCILIATION_GRACE / 1000;

  async function load(runId: string): Promise<RunRecord> {
    const run = await runs.find(runId);
    if (!run) throw new ReconciliationRunNotFoundError(runId);
    return run;
  }

  const scopeOf = (run: RunRecord) => ({ id: run.id, scopeTenantId: run.tenantId, windowFrom: run.windowFrom, windowTo: run.windowTo });

  function firstPosition(run: RunRecord): ReconciliationPosition {
    return { source: run.tenantId === null ? 'wallet' : 'accounts', accountId: null, cursor: null, lookups: 0 };
  }

  const lookupsFrom = (position: ReconciliationPosition): ReconciliationPosition => ({ source: 'lookups', accountId: null, cursor: null, lookups: position.lookups });

  async function tenantAccount(tenantId: string, afterId: string | null, exactId: string | null) {
    const query = db('virtual_accounts').where({ tenant_id: tenantId }).orderBy('id').first('id', 'bank_account_number');
    if (exactId) query.where({ id: exactId });
    else if (afterId) query.where('id', '>', afterId);
    return (await query) as { id: string; bank_account_number: string } | undefined;
  }

  /** One step through the provider's records: a listing page, or a batch of single lookups. */
  async function step(run: RunRecord, position: ReconciliationPosition, beat: () => void): Promise<{ rows: ProviderRow[]; next: ReconciliationPosition }> {
    const window = { from: run.windowFrom, to: run.windowTo, limit: config.RECONCILIATION_PAGE_SIZE };
    if (position.source === 'wallet') {
      const page = await provider.listTransactions({ ...window, scope: { kind: 'wallet' }, ...(position.cursor ? { cursor: position.cursor } : {}) });
      return { rows: page.transactions.map(fromListing), next: page.nextCursor ? { ...position, cursor: page.nextCursor } : lookupsFrom(position) };
    }
    if (position.source === 'accounts') {
      const account = await tenantAccount(run.tenantId!, null, position.accountId);
      if (!account) return { rows: [], next: lookupsFrom(position) };
      const page = await provider.listTransactions({
        ...window,
        scope: { kind: 'virtual_account', accountNumber: account.bank_account_number },
        ...(position.cursor ? { cursor: position.cursor } : {}),
      });
      // This listing is one account's: its rows are that account's whatever they omit.
      const rows = page.transactions.map((transaction) => fromListing({ ...transaction, recipientAccountNumber: account.bank_account_number, entryType: 'CREDIT' }));
      if (page.nextCursor) return { rows, next: { ...position, accountId: account.id, cursor: page.nextCursor } };
      const following = await tenantAccount(run.tenantId!, account.id, null);
      return { rows, next: following ? { ...position, accountId: following.id, cursor: null } : lookupsFrom(position) };
    }
    return lookupStep(run, position, beat);
  }

  /**
   * Ledger records of the window that no listing showed (a confirmed credit, a paid settlement attempt;
   * for a tenant's run every attempt, since it lists no payouts), asked of the provider one by one.
   * Each answer is staged, so the next batch asks for the next ones.
   */
  /**
   * The provider's answer for one record. A lookup it refuses outright (a reference it cannot read)
   * decides nothing: the record is left undecided rather than failing every run that meets it.
   */
  async function lookUp(asked: LookupRequest): Promise<ProviderRow> {
    const reference = asked.kind === 'credit' ? asked.providerTxnRef : asked.providerRef;
    try {
      return fromLookup(asked, await provider.getTransaction(reference));
    } catch (error) {
      if (!(error instanceof ProviderRejectedError)) throw error;
      logger.warn({ reference, reason: error.message }, 'provider refused a reconciliation lookup');
      return { ...fromLookup(asked, null), status: 'pending', rawStatus: `lookup refused: ${error.description}` };
    }
  }

  async function lookupStep(run: RunRecord, position: ReconciliationPosition, beat: () => void): Promise<{ rows: ProviderRow[]; next: ReconciliationPosition }> {
    const done: ReconciliationPosition = { ...position, source: 'done' };
    const allowed = Math.min(LOOKUP_BATCH, config.RECONCILIATION_MAX_LOOKUPS - position.lookups);
    const credits = await matching.unlistedCredits(scopeOf(run), Math.max(allowed, 1));
    const attempts = credits.length < Math.max(allowed, 1) ? await matching.unlistedAttempts(scopeOf(run), Math.max(allowed, 1) - credits.length) : [];
    if (credits.length + attempts.length === 0) return { rows: [], next: done };
    if (allowed <= 0) {
      await reportOnce(run, {
        id: uuidv7(),
        tenantId: run.tenantId,
        kind: 'lookup_limit_reached',
        subject: `run:${run.id}`,
        details: { limit: config.RECONCILIATION_MAX_LOOKUPS, note: 'narrow the window or raise RECONCILIATION_MAX_LOOKUPS to check the rest' },
      });
      return { rows: [], next: done };
    }
    const rows: ProviderRow[] = [];
    for (const asked of [...credits.map((providerTxnRef) => ({ kind: 'credit' as const, providerTxnRef })), ...attempts.map((providerRef) => ({ kind: 'transfer' as const, providerRef }))]) {
      rows.push(await lookUp(asked));
      beat();
    }
    await db.transaction((trx) => runs.bump(trx, [run.id], 'lookups', rows.length));
    return { rows, next: { ...position, lookups: position.lookups + rows.length } };
  }

  async function reportOnce(run: RunRecord, finding: Finding, options: { acknowledgeResolved?: boolean } = {}): Promise<void> {
    const runIds = await runs.runAndChild(run.id, finding.tenantId);
    await db.transaction((trx) => exceptions.report(trx, finding, runIds, options));
  }

  /** Settles one staged row's action without a repair: someone else (a late webhook, a concurrent run) already made it. */
  async function alreadyDone(run: RunRecord, action: PendingAction, runIds: string[]): Promise<false> {
    await db.transaction(async (trx) => {
      await matching.markActionDone(trx, run.id, action.providerTxnId, 'matched');
      await runs.bump(trx, runIds, 'matched');
    });
    return false;
  }

  /** A payment the provider shows and the ledger lacks: credited exactly as its webhook would have been. */
  async function credit(run: RunRecord, action: PendingAction, runIds: string[]): Promise<boolean> {
    try {
      const jobs = await db.transaction(async (trx) => {
        const account = await createAccountsRepo(trx).findById(action.accountId);
        if (!account) throw new Error(`account ${action.accountId} vanished during reconciliation run ${run.id}`);
        const eventId = uuidv7();
        await createInboundEventsRepo(trx).record({
          id: eventId,
          requestId: null,
          eventType: 'reconciliation',
          category: 'payment',
          signatureValid: false,
          tenantId: account.tenantId,
          accountId: account.id,
          transactionId: action.providerTxnId,
          aliasAccountRef: account.accountRef,
          grossAmount: action.amount,
          fee: action.fee,
          senderName: action.senderName,
          payload: {
            source: 'reconciliation',
            runId: run.id,
            transaction: { id: action.providerTxnId, status: action.rawStatus, amount: formatKobo(action.amount), fee: formatKobo(action.fee), time: action.timeCreated },
          },
          flags: ['found_by_reconciliation'],
        });
        const posted = await creditPayment(trx, account, {
          gross: action.amount,
          fee: action.fee,
          senderName: action.senderName,
          narration: action.narration,
          transactionId: action.providerTxnId,
          inboundEventId: eventId,
          receivedAt: new Date(),
        });
        await matching.attachEntry(trx, eventId, posted.entry.id);
        await exceptions.recordRepair(
          trx,
          {
            id: uuidv7(),
            tenantId: account.tenantId,
            kind: 'missing_credit',
            subject: action.providerTxnId,
            accountId: account.id,
            entryId: posted.entry.id,
            providerTxnId: action.providerTxnId,
            details: { providerStatus: action.rawStatus, providerAmount: formatKobo(action.amount), providerFee: formatKobo(action.fee), providerTime: action.timeCreated },
          },
          runIds,
          posted.entry.id,
        );
        await matching.markActionDone(trx, run.id, action.providerTxnId, 'repaired');
        await runs.bump(trx, runIds, 'repaired');
        return posted.jobs;
      });
      starter.kick(jobs);
      return true;
    } catch (error) {
      if (isUniqueViolation(error, 'ledger_entries_one_payment_per_txn_idx')) return alreadyDone(run, action, runIds);
      throw error;
    }
  }

  /**
   * A credit reversed because the provider did not know it when its window closed, which the provider
   * now shows SUCCESS for the same amount: a new confirmed credit that answers the reversal (the ledger
   * stays append-only; the statement shows credit, reversal, restoration).
   */
  async function restore(run: RunRecord, action: PendingAction, runIds: string[]): Promise<boolean> {
    try {
      return await db.transaction(async (trx) => {
        const original = action.entryId ? await createLedgerRepo(trx).findEntry(action.entryId, trx) : undefined;
        const reversal = original ? await matching.reversalOf(trx, original.id) : undefined;
        if (!original || original.status !== 'reversed' || !reversal) throw new AlreadyRepaired();
        const [restored] = await postingEngine.post(trx, original.accountId, [
          {
            direction: 'credit',
            kind: 'adjustment',
            amount: reversal.amount,
            fee: original.fee,
            status: 'confirmed',
            narration: RESTORED_NARRATION,
            providerTxnRef: original.providerTxnRef,
            transactionGroupId: original.transactionGroupId,
            reversesEntryId: reversal.id,
          },
        ]);
        await exceptions.recordRepair(
          trx,
          {
            id: uuidv7(),
            tenantId: original.tenantId,
            kind: 'reversed_credit_restored',
            subject: action.providerTxnId,
            accountId: original.accountId,
            entryId: original.id,
            providerTxnId: action.providerTxnId,
            details: { providerStatus: action.rawStatus, providerAmount: formatKobo(action.amount), reversalEntryId: reversal.id },
          },
          runIds,
          restored!.id,
        );
        await matching.markActionDone(trx, run.id, action.providerTxnId, 'repaired');
        await runs.bump(trx, runIds, 'repaired');
        return true;
      });
    } catch (error) {
      if (error instanceof AlreadyRepaired || isUniqueViolation(error, 'ledger_entries_one_reversal_idx')) return alreadyDone(run, action, runIds);
      throw error;
    }
  }

  /** A successful settlement the provider has since refunded: the settlement's own refund rule applies it. */
  async function refund(run: RunRecord, action: PendingAction, runIds: string[]): Promise<boolean> {
    const settlement = action.settlementId ? await createSettlementsRepo(db).findById(action.settlementId) : undefined;
    if (!settlement || settlement.status !== 'success') return alreadyDone(run, action, runIds);
    const status = await settlementExecution.refund(settlement.id, 'provider refunded the transfer (found by reconciliation)');
    if (status !== 'refunded') return alreadyDone(run, action, runIds);
    await db.transaction(async (trx) => {
      const reversalId = await matching.settlementReversal(trx, settlement.id);
      await exceptions.recordRepair(
        trx,
        {
          id: uuidv7(),
          tenantId: settlement.tenantId,
          kind: 'settlement_refunded',
          subject: action.providerTxnId,
          accountId: settlement.accountId,
          entryId: settlement.debitEntryId,
          settlementId: settlement.id,
          providerTxnId: action.providerTxnId,
          details: { providerStatus: action.rawStatus, merchantTxRef: settlement.merchantTxRef, amount: formatKobo(settlement.amount) },
        },
        runIds,
        reversalId,
      );
      await matching.markActionDone(trx, run.id, action.providerTxnId, 'repaired');
      await runs.bump(trx, runIds, 'repaired');
    });
    logger.info({ runId: run.id, merchantTxRef: settlement.merchantTxRef }, 'reconciliation refunded a settlement');
    return true;
  }

  /** Makes every repair the run has staged and not yet made (including those a crashed attempt left). */
  async function drainActions(run: RunRecord, onProgress: () => void): Promise<number> {
    let repaired = 0;
    for (;;) {
      const actions = await matching.pendingActions(run.id, 100);
      if (actions.length === 0) return repaired;
      for (const action of actions) {
        const runIds = await runs.runAndChild(run.id, action.tenantId);
        const made = action.action === 'credit' ? await credit(run, action, runIds) : action.action === 'restore' ? await restore(run, action, runIds) : await refund(run, action, runIds);
        if (made) repaired += 1;
        onProgress();
      }
    }
  }

  async function walletCheck(): Promise<WalletCheck> {
    const balance = await provider.getWalletBalance();
    const sums = await matching.walletSums();
    const expected = sums.ledgerBalances + sums.openSettlements - sums.recordedTransferFees + sums.unassignedMisdirected;
    return {
      walletBalance: formatKobo(balance.amountKobo),
      ledgerBalances: formatKobo(sums.ledgerBalances),
      openSettlements: formatKobo(sums.openSettlements),
      recordedTransferFees: formatKobo(sums.recordedTransferFees),
      unassignedMisdirected: formatKobo(sums.unassignedMisdirected),
      unexplained: formatKobo(balance.amountKobo - expected),
    };
  }

  return {
    /** The platform run a Schedule's workflow makes for itself (once per workflow id), with a child run per tenant. */
    async openScheduledRun(workflowId: string, lookBackMs: number, graceMs: number): Promise<ReconciliationRunHandle> {
      const existing = await runs.findByWorkflowId(workflowId);
      if (existing) return handleOf(existing);
      const windowTo = new Date(Date.now() - graceMs);
      const windowFrom = new Date(windowTo.getTime() - lookBackMs);
      const id = uuidv7();
      try {
        await db.transaction(async (trx) => {
          const repo = createReconciliationRunsRepo(trx);
          await repo.insert({ id, tenantId: null, trigger: 'schedule', windowFrom, windowTo, workflowId, status: 'running' });
          await repo.insertChildren({ id, trigger: 'schedule', windowFrom, windowTo, status: 'running' }, uuidv7);
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      return handleOf((await runs.findByWorkflowId(workflowId))!);
    },

    async begin(runId: string): Promise<ReconciliationRunHandle> {
      await runs.markRunning(runId);
      return handleOf(await load(runId));
    },

    /**
     * Up to PAGES_PER_CALL steps from `start` (or from the start of the run), each staged and its repairs
     * made before `onProgress` reports the position after it, so a retry resumes there.
     */
    async processPages(runId: string, start: PageProgress | null, onProgress: (progress: PageProgress) => void): Promise<ReconciliationPagesResult> {
      const run = await load(runId);
      let progress: PageProgress = start ?? { position: firstPosition(run), pages: 0, providerTransactions: 0, repaired: 0 };
      const beat = () => onProgress(progress);
      progress = { ...progress, repaired: progress.repaired + (await drainActions(run, beat)) };
      for (let pages = 0; pages < PAGES_PER_CALL && progress.position.source !== 'done'; pages += 1) {
        const { rows, next } = await step(run, progress.position, beat);
        if (rows.length > 0) await matching.stagePage({ id: run.id, scopeTenantId: run.tenantId }, rows, graceSeconds);
        const repaired = await drainActions(run, beat);
        progress = { position: next, pages: progress.pages + 1, providerTransactions: progress.providerTransactions + rows.length, repaired: progress.repaired + repaired };
        beat();
      }
      return progress;
    },

    /**
     * Daily totals, settlements stuck long after their attempts, the wallet against the ledger (platform
     * runs), then the run's counts from what it staged and found; its staged rows go. Idempotent.
     */
    async finish(runId: string): Promise<ReconciliationSummary> {
      let run = await load(runId);
      if (run.status === 'succeeded') {
        await matching.deleteStaged(runId);
        return summaryOf(run);
      }
      await drainActions(run, () => undefined);
      const platform = run.tenantId === null;
      const wallet = platform ? await walletCheck() : null;
      const stuck = await matching.stuckSettlements(run.tenantId, config.RECONCILIATION_STUCK_SETTLEMENT, STUCK_SETTLEMENTS_REPORTED);
      for (const settlement of stuck) {
        await reportOnce(run, {
          id: uuidv7(),
          tenantId: settlement.tenantId,
          kind: 'settlement_stuck',
          subject: settlement.merchantTxRef,
          accountId: settlement.accountId,
          settlementId: settlement.id,
          details: {
            settlementStatus: settlement.status,
            amount: formatKobo(settlement.amount),
            attempts: settlement.attemptCount,
            createdAt: settlement.createdAt.toISOString(),
            lastChangedAt: settlement.updatedAt.toISOString(),
          },
        }, { acknowledgeResolved: true });
      }
      await db.transaction(async (trx) => {
        if (wallet && wallet.unexplained !== '0.00') {
          await exceptions.report(trx, { id: uuidv7(), tenantId: null, kind: 'wallet_difference', subject: 'wallet', details: { ...wallet } }, [run.id]);
        } else if (wallet) {
          await exceptions.closeIfOpen(trx, 'wallet_difference', 'wallet', run.id);
        }
        await matching.computeDayTotals(trx, runId);
        const counts = await matching.outcomeCounts(trx, runId, null);
        const found = await exceptions.reportedCounts(trx, runId);
        const days = await matching.dayTotalsTally(trx, runId, null);
        await runs.finish(
          trx,
          runId,
          { providerTransactions: counts.seen, matched: counts.matched, repaired: counts.repaired, reported: found.reported, alerts: found.alerts, inFlight: counts.inFlight, daysCompared: days.compared, daysDiffering: days.differing },
          wallet,
        );
        if (platform) await runs.finishChildren(trx, runId);
      });
      await matching.deleteStaged(runId);
      run = await load(runId);
      logger.info({ runId, outcome: outcomeOf(run), repaired: run.repaired, reported: run.reported }, 'reconciliation run finished');
      return summaryOf(run);
    },

    async fail(runId: string, reason: string): Promise<void> {
      await runs.fail(runId, reason);
      await matching.deleteStaged(runId);
      logger.warn({ runId, reason }, 'reconciliation run failed');
    },
  };
}

export type ReconciliationExecutionService = ReturnType<typeof createReconciliationExecutionService>;
