import type { Config } from '../config';
import { isUniqueViolation, type Db } from '../db';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import type { EventedLedger } from '../events/ledger-events';
import type { Logger } from '../logger';
import { formatKobo } from '../money';
import type { PaymentCrediter } from '../payment-ingest/payment-credit';
import type { PaymentProvider } from '../provider/payment-provider';
import type { SettlementExecutionService } from '../settlements/settlement-execution.service';
import { outcomeOf } from './findings';
import { createProviderRecords } from './provider-records';
import { createReconciliationExceptionsRepo, type Finding } from './reconciliation-exceptions.repo';
import { createReconciliationMatchingRepo, type CellShare, type RowsPage } from './reconciliation-matching.repo';
import { createReconciliationRepairs } from './reconciliation-repairs';
import type { SplitRulesService } from '../split-rules/split-rules.service';
import { createLedgerBooksRepo } from '../ledger/ledger-books.repo';
import { createReconciliationRunsRepo, type RunRecord, type WalletCheck } from './reconciliation-runs.repo';
import type {
  ReconciliationPagesResult,
  ReconciliationPosition,
  ReconciliationRunHandle,
  ReconciliationSummary,
  UnansweredCall,
} from '../contracts/reconciliation.contract';

/** Steps one activity call takes before it returns to the workflow, and the time it may spend (well inside its 15-minute timeout). */
const PAGES_PER_CALL = 20;
const CALL_BUDGET_MS = 5 * 60_000;
const STUCK_SETTLEMENTS_REPORTED = 1_000;

export class ReconciliationRunNotFoundError extends Error {
  constructor(runId: string) {
    super(`reconciliation run ${runId} does not exist`);
    this.name = 'ReconciliationRunNotFoundError';
  }
}

/** Where an activity call has got to: what it heartbeats, and what a retry resumes from. */
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
  | 'RECONCILIATION_PAGE_SIZE'
  | 'RECONCILIATION_GRACE'
  | 'RECONCILIATION_MAX_LOOKUPS'
  | 'RECONCILIATION_STUCK_SETTLEMENT'
  | 'RECONCILIATION_RUN_PROVIDER_CALLS'
>;

/**
 * The rules a reconciliation run's activities apply. The provider's records are streamed a step at a
 * time, matched in SQL and staged for the run (the window is never held in memory); the repairs a page
 * stages are made before the next page, so a retry resumes after the last page it reported.
 */
export function createReconciliationExecutionService(deps: {
  db: Db;
  config: ReconciliationConfig;
  logger: Logger;
  provider: PaymentProvider;
  /** The tenants' hourly budget of provider calls, keyed by tenant id. */
  callBudget: { take(tenantId: string): Promise<number> };
  postingEngine: EventedLedger;
  creditPayment: PaymentCrediter;
  settlementExecution: SettlementExecutionService;
  /** The split rules a restored payment is split by, as a confirmed payment is. */
  splits: Pick<SplitRulesService, 'rulesOf' | 'moveConfirmed'>;
  jobs: Jobs;
  starter: WorkflowStarter;
  /**
   * With several clusters, which share one provider wallet: whether this cell reports the wallet's rows no cluster
   * places (the first cell does), and the other cells' pools, asked which of a page's rows they place.
   */
  cells?: { reportsUnowned: boolean; others: Db[] };
}) {
  const { db, config, provider, cells } = deps;
  const logger = deps.logger.child({ component: 'reconciliation' });
  const runs = createReconciliationRunsRepo(db);
  const matching = createReconciliationMatchingRepo(db);
  const exceptions = createReconciliationExceptionsRepo(db);
  const records = createProviderRecords({ db, config, provider, callBudget: deps.callBudget, logger });
  const repairs = createReconciliationRepairs({ ...deps, logger });
  const graceSeconds = config.RECONCILIATION_GRACE / 1000;

  async function load(runId: string): Promise<RunRecord> {
    const run = await runs.find(runId);
    if (!run) throw new ReconciliationRunNotFoundError(runId);
    return run;
  }

  async function reportOnce(run: RunRecord, finding: Finding, options: { acknowledgeResolved?: boolean } = {}): Promise<void> {
    const runIds = await runs.runAndChild(run.id, finding.tenantId);
    await db.transaction((trx) => exceptions.report(trx, finding, runIds, options));
  }

  /**
   * How a page of this cell's run is shared with the other cells: null with one cluster (nothing is asked). A platform
   * run of the cell that reports unplaced rows asks every other cell which of a listing page's rows it places, once per
   * page; the other cells leave every unplaced row alone. Nobody is asked for a tenant's run (it lists only the
   * tenant's accounts) or for lookups (they answer this cluster's own records).
   */
  async function shareOf(run: RunRecord, page: RowsPage, lookedUp: boolean): Promise<CellShare | null> {
    if (!cells) return null;
    if (run.tenantId !== null || lookedUp || !cells.reportsUnowned) return { reportsUnowned: cells.reportsUnowned, ownedElsewhere: [] };
    const placed = await Promise.all(cells.others.map((other) => createReconciliationMatchingRepo(other).placedRows(page)));
    return { reportsUnowned: true, ownedElsewhere: [...new Set(placed.flat())] };
  }

  /**
   * The one provider wallet behind every cluster against the books of all of them: with several clusters only the
   * first cell compares it (the others' runs record no wallet), summing each cluster's books.
   */
  async function walletCheck(): Promise<WalletCheck> {
    const balance = await provider.getWalletBalance();
    const clusters = [db, ...(cells?.others ?? [])];
    const sum = (amounts: bigint[]) => amounts.reduce((total, amount) => total + amount, 0n);
    const heldPerBooks = sum(await Promise.all(clusters.map((cluster) => createLedgerBooksRepo(cluster).heldAtProvider())));
    const unassignedMisdirected = sum(
      await Promise.all(clusters.map((cluster) => createReconciliationMatchingRepo(cluster).unassignedMisdirected())),
    );
    return {
      walletBalance: formatKobo(balance.amountKobo),
      heldPerBooks: formatKobo(heldPerBooks),
      unassignedMisdirected: formatKobo(unassignedMisdirected),
      unexplained: formatKobo(balance.amountKobo - heldPerBooks - unassignedMisdirected),
    };
  }

  /**
   * Reads the step at `position` and stages it. Its own function so that the page's text is garbage
   * once it returns: only the position after it and its size go on.
   */
  async function stageStep(
    run: RunRecord,
    position: ReconciliationPosition,
    beat: () => void,
  ): Promise<{ next: ReconciliationPosition; size: number; waitMs?: number; unanswered?: UnansweredCall }> {
    const { page, next, lookedUp, askedFrom, lookupLimitReached, runBudgetReached, waitMs, unanswered } = await records.next(
      run,
      position,
      beat,
    );
    if (page.size > 0) {
      const share = await shareOf(run, page, lookedUp);
      await matching.stagePage({ id: run.id, scopeTenantId: run.tenantId }, page, {
        graceSeconds,
        lookedUp,
        askedFrom,
        ...(share ? { cells: share } : {}),
      });
    }
    if (lookupLimitReached) {
      await reportOnce(run, {
        id: uuidv7(),
        tenantId: run.tenantId,
        kind: 'lookup_limit_reached',
        subject: `run:${run.id}`,
        details: {
          limit: config.RECONCILIATION_MAX_LOOKUPS,
          note: 'narrow the window or raise RECONCILIATION_MAX_LOOKUPS to check the rest',
        },
      });
    }
    if (runBudgetReached) {
      await reportOnce(run, {
        id: uuidv7(),
        tenantId: run.tenantId,
        kind: 'provider_budget_reached',
        subject: `run:${run.id}`,
        details: {
          limit: config.RECONCILIATION_RUN_PROVIDER_CALLS,
          stoppedAt: position.source,
          note: 'the run read what its budget allowed; start a run over a narrower window for the rest, or raise RECONCILIATION_RUN_PROVIDER_CALLS',
        },
      });
    }
    return { next, size: page.size, ...(waitMs === undefined ? {} : { waitMs }), ...(unanswered ? { unanswered } : {}) };
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
     * Up to PAGES_PER_CALL steps (or CALL_BUDGET_MS) from `start` (or from the start of the run), each
     * staged and its repairs made before `onProgress` reports the position after it, so a retry resumes there.
     * It returns early when the tenant's hourly budget asks for a wait, or when the provider did not answer.
     */
    async processPages(
      runId: string,
      start: PageProgress | null,
      onProgress: (progress: PageProgress) => void,
    ): Promise<ReconciliationPagesResult> {
      const run = await load(runId);
      let progress: PageProgress = start ?? { position: records.first(run), pages: 0, providerTransactions: 0, repaired: 0 };
      const beat = () => onProgress(progress);
      progress = { ...progress, repaired: progress.repaired + (await repairs.drain(run.id, beat)) };
      const deadline = Date.now() + CALL_BUDGET_MS;
      for (let pages = 0; pages < PAGES_PER_CALL && progress.position.source !== 'done' && Date.now() < deadline; pages += 1) {
        const { next, size, waitMs, unanswered } = await stageStep(run, progress.position, beat);
        const repaired = await repairs.drain(run.id, beat);
        progress = {
          position: next,
          pages: progress.pages + 1,
          providerTransactions: progress.providerTransactions + size,
          repaired: progress.repaired + repaired,
        };
        beat();
        if (waitMs !== undefined) {
          logger.info(
            { runId, tenantId: run.tenantId, waitMs },
            "reconciliation run waits for its tenant's hourly budget of provider calls",
          );
          return { ...progress, waitMs };
        }
        if (unanswered) {
          logger.warn({ runId, tenantId: run.tenantId, reason: unanswered.reason }, 'the provider did not answer a reconciliation call');
          return { ...progress, unanswered };
        }
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
      await repairs.drain(run.id, () => undefined);
      const platform = run.tenantId === null;
      const wallet = platform && (cells?.reportsUnowned ?? true) ? await walletCheck() : null;
      const stuck = await matching.stuckSettlements(run.tenantId, config.RECONCILIATION_STUCK_SETTLEMENT, STUCK_SETTLEMENTS_REPORTED);
      for (const settlement of stuck) {
        await reportOnce(
          run,
          {
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
          },
          { acknowledgeResolved: true },
        );
      }
      await db.transaction(async (trx) => {
        if (wallet && wallet.unexplained !== '0.00') {
          await exceptions.report(
            trx,
            { id: uuidv7(), tenantId: null, kind: 'wallet_difference', subject: 'wallet', details: { ...wallet } },
            [run.id],
          );
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
          {
            providerTransactions: counts.seen,
            matched: counts.matched,
            repaired: counts.repaired,
            reported: found.reported,
            alerts: found.alerts,
            inFlight: counts.inFlight,
            lookups: counts.lookedUp,
            daysCompared: days.compared,
            daysDiffering: days.differing,
          },
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
