import { createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Config } from '../config';
import type { Db } from '../db';
import { isAlreadyAnswered } from '../ledger/ledger-constraints';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { isUuid, uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import { createOutboxRepo, type OutboxEntry } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createLedgerRepo } from '../ledger/ledger.repo';
import { createLedgerArchiveRepo } from '../ledger/ledger-archive.repo';
import type { LedgerEntry } from '../ledger/ledger.types';
import type { EventedLedger } from '../events/ledger-events';
import type { SplitRulesService } from '../split-rules/split-rules.service';
import type { RateLimits } from '../rate-limits/rate-limits';
import { isPlatformDecided, type FindingKind } from './findings';
import { createReconciliationExceptionsRepo, type ExceptionRecord, type ExceptionStatus } from './reconciliation-exceptions.repo';
import { createReconciliationRunsRepo, type DayDifference, type RunRecord } from './reconciliation-runs.repo';
import { reconciliationWorkflowId } from '../contracts/reconciliation.contract';

interface Window {
  from?: Date | undefined;
  to?: Date | undefined;
}

/** A window checked and filled in (see `window`). */
interface RunWindow {
  windowFrom: Date;
  windowTo: Date;
}

/** Who decides on a finding: a dashboard user of its tenant, or the platform operator at the CLI. */
type Decider = { via: 'dashboard'; user: AuditActor } | { via: 'cli'; tenantId: string | null };

const tenantOfDecider = (decider: Decider): string | null => (decider.via === 'dashboard' ? decider.user.tenantId : decider.tenantId);

/** A finding where money left the platform's float without a debit is the platform operator's to decide, never its tenant's. */
function refuseTenantDecision(decider: Decider, finding: ExceptionRecord): void {
  if (decider.via === 'dashboard' && isPlatformDecided(finding.kind)) {
    throw new ForbiddenError(
      `only the platform operator decides a ${finding.kind} finding (money left the platform's float without a debit); the tenant sees it read-only`,
    );
  }
}

/** A run's clocks may run a little ahead of ours; a window ending further in the future is refused. */
const FUTURE_SKEW_MS = 60_000;
const HOUR_MS = 3_600_000;

type ReconciliationConfig = Pick<Config, 'RECONCILIATION_LOOKBACK' | 'RECONCILIATION_MAX_WINDOW'>;

function describeDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} days`;
  if (ms % HOUR_MS === 0) return `${ms / HOUR_MS} hours`;
  return `${Math.round(ms / 1000)} seconds`;
}

/**
 * Runs on demand (a tenant's, rate-limited; the platform operator's from the CLI), what they found,
 * and the decisions on findings: a note, or the compensating debit of a confirmed credit the provider
 * took back. Every read and decision is scoped to the tenant: another tenant's run is "not found".
 */
export function createReconciliationService(deps: {
  db: Db;
  config: ReconciliationConfig;
  jobs: Jobs;
  starter: WorkflowStarter;
  postingEngine: EventedLedger;
  /** A compensated credit's split parts, taken back with it. */
  splits: Pick<SplitRulesService, 'movedParts' | 'recordTakenBack'>;
  limits: Pick<RateLimits, 'reconciliationRuns'>;
}) {
  const { db, config, jobs, starter, postingEngine, splits, limits } = deps;
  const runs = createReconciliationRunsRepo(db);
  const exceptions = createReconciliationExceptionsRepo(db);

  function windowOf(requested: Window): RunWindow {
    const windowTo = requested.to ?? new Date();
    const windowFrom = requested.from ?? new Date(windowTo.getTime() - config.RECONCILIATION_LOOKBACK);
    if (windowFrom >= windowTo) throw new BadRequestError('validation_error', 'from must be before to');
    if (windowTo.getTime() > Date.now() + FUTURE_SKEW_MS) throw new BadRequestError('validation_error', 'to cannot be in the future');
    if (windowTo.getTime() - windowFrom.getTime() > config.RECONCILIATION_MAX_WINDOW) {
      throw new BadRequestError(
        'validation_error',
        `the window cannot be longer than ${describeDuration(config.RECONCILIATION_MAX_WINDOW)}`,
      );
    }
    return { windowFrom, windowTo };
  }

  async function findRun(tenantId: string, id: string): Promise<RunRecord> {
    const run = isUuid(id) ? await runs.findForTenant(tenantId, id.toLowerCase()) : undefined;
    if (!run) throw new NotFoundError('reconciliation run not found');
    return run;
  }

  /**
   * Refuses a window starting within the archived months of the tenant (of any tenant for a platform run): the
   * ledger's entries of those months are archived (see docs/scaling.md#archived-months), so the provider's records
   * there could not be matched.
   */
  async function refuseArchivedWindow(tenantId: string | null, windowFrom: Date): Promise<void> {
    const archiveEnd = await createLedgerArchiveRepo(db).archiveEnd(tenantId);
    if (archiveEnd && windowFrom < archiveEnd) {
      throw new BadRequestError(
        'window_archived',
        `the ledger's months before ${archiveEnd.toISOString()} are archived: a window must start at or after it`,
        { archivedBefore: archiveEnd.toISOString() },
      );
    }
  }

  return {
    /**
     * A tenant's own run over its own accounts (an API key's, or a dashboard user's, audited). Each
     * counts against the tenant's rate limit (429 with Retry-After); one at a time: the open run is
     * looked for and the new one inserted under a per-tenant lock (409). A refused window (400) or a
     * run refused as busy is not counted.
     */
    async requestTenantRun(tenantId: string, requested: Window, user?: AuditActor): Promise<RunRecord> {
      const { windowFrom, windowTo } = windowOf(requested);
      await refuseArchivedWindow(tenantId, windowFrom);
      await limits.reconciliationRuns.consume(tenantId);
      const id = uuidv7();
      const job = jobs.reconciliation({ runId: id, tenantId });
      const run = await db.transaction(async (trx): Promise<RunRecord | null> => {
        await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`reconciliation:${tenantId}`]);
        const repo = createReconciliationRunsRepo(trx);
        if (await repo.hasOpenOnDemandRun(trx, tenantId)) return null;
        await repo.insert({
          id,
          tenantId,
          trigger: user ? 'operator' : 'tenant',
          windowFrom,
          windowTo,
          workflowId: job.workflowId,
          requestedBy: user?.id ?? null,
        });
        await createOutboxRepo(trx).enqueue([job]);
        if (user)
          await createAuditLog(trx).record(
            user,
            'reconciliation.run_requested',
            { type: 'reconciliation_run', id },
            { from: windowFrom.toISOString(), to: windowTo.toISOString() },
          );
        return (await repo.find(id))!;
      });
      if (!run) {
        await limits.reconciliationRuns.reward(tenantId);
        throw new ConflictError('a reconciliation run is already in progress');
      }
      starter.kick([job]);
      return run;
    },

    /**
     * The platform operator's run (CLI): the whole platform, or one tenant; neither limited nor kept to one at a time. The caller starts
     * `job`.
     */
    async requestOperatorRun(tenantId: string | null, requested: Window): Promise<{ run: RunRecord; job: OutboxEntry }> {
      if (tenantId !== null && !(isUuid(tenantId) && (await db('tenants').where({ id: tenantId }).first('id'))))
        throw new NotFoundError('tenant not found');
      const { windowFrom, windowTo } = windowOf(requested);
      await refuseArchivedWindow(tenantId, windowFrom);
      const id = uuidv7();
      const job = jobs.reconciliation({ runId: id, tenantId });
      await db.transaction(async (trx) => {
        const repo = createReconciliationRunsRepo(trx);
        await repo.insert({ id, tenantId, trigger: 'cli', windowFrom, windowTo, workflowId: reconciliationWorkflowId(id) });
        if (tenantId === null) await repo.insertChildren({ id, trigger: 'cli', windowFrom, windowTo, status: 'pending' }, uuidv7);
        await createOutboxRepo(trx).enqueue([job]);
      });
      return { run: (await runs.find(id))!, job };
    },

    find(id: string): Promise<RunRecord | undefined> {
      return runs.find(id);
    },

    listRuns(tenantId: string, beforeId: string | null, limit: number): Promise<RunRecord[]> {
      return runs.listForTenant(tenantId, beforeId, limit);
    },

    /** The run, a page of what it found, and the days whose totals differ. */
    async runDetail(
      tenantId: string,
      id: string,
      exceptionsBefore: string | null,
      limit: number,
    ): Promise<{ run: RunRecord; exceptions: ExceptionRecord[]; days: DayDifference[] }> {
      const run = await findRun(tenantId, id);
      const [found, days] = await Promise.all([
        exceptions.list({ tenantId, runId: run.id }, exceptionsBefore, limit + 1),
        runs.dayDifferences(run, 500),
      ]);
      return { run, exceptions: found, days };
    },

    /** Everything a run found, whichever tenant: the platform operator's view (CLI). */
    findingsOfRun(runId: string, limit: number): Promise<ExceptionRecord[]> {
      return exceptions.list({ runId }, null, limit);
    },

    async listExceptions(
      tenantId: string | null,
      filter: { status?: ExceptionStatus | undefined; kind?: FindingKind | undefined },
      beforeId: string | null,
      limit: number,
    ): Promise<ExceptionRecord[]> {
      if (tenantId !== null && !isUuid(tenantId)) throw new NotFoundError('tenant not found');
      return exceptions.list(
        { tenantId, ...(filter.status ? { status: filter.status } : {}), ...(filter.kind ? { kind: filter.kind } : {}) },
        beforeId,
        limit,
      );
    },

    /** Every tenant's findings and the platform's own: the platform operator's view across the platform (CLI). */
    listAllExceptions(
      filter: { status?: ExceptionStatus | undefined; kind?: FindingKind | undefined },
      beforeId: string | null,
      limit: number,
    ): Promise<ExceptionRecord[]> {
      return exceptions.list(
        { ...(filter.status ? { status: filter.status } : {}), ...(filter.kind ? { kind: filter.kind } : {}) },
        beforeId,
        limit,
      );
    },

    /** One of the tenant's findings, with the tenant's runs that met it (newest first). */
    async exceptionDetail(tenantId: string, id: string, runLimit: number): Promise<{ finding: ExceptionRecord; runs: RunRecord[] }> {
      const finding = isUuid(id) ? await exceptions.findForTenant(tenantId, id.toLowerCase()) : undefined;
      if (!finding) throw new NotFoundError('reconciliation exception not found');
      return { finding, runs: await runs.listForException(tenantId, finding.id, runLimit) };
    },

    /** Closes an open finding with a note; who and when are kept on it. */
    async resolve(decider: Decider, id: string, note: string): Promise<ExceptionRecord> {
      const tenantId = tenantOfDecider(decider);
      if (tenantId !== null && !isUuid(tenantId)) throw new NotFoundError('reconciliation exception not found');
      await db.transaction(async (trx) => {
        const finding = isUuid(id) ? await exceptions.lockForDecision(trx, tenantId, id.toLowerCase()) : undefined;
        if (!finding) throw new NotFoundError('reconciliation exception not found');
        refuseTenantDecision(decider, finding);
        if (finding.status !== 'open') throw new ConflictError('reconciliation exception is not open');
        await exceptions.resolve(trx, finding.id, {
          resolution: 'noted',
          note,
          userId: decider.via === 'dashboard' ? decider.user.id : null,
          via: decider.via,
        });
        if (decider.via === 'dashboard')
          await createAuditLog(trx).record(
            decider.user,
            'reconciliation.resolved',
            { type: 'reconciliation_exception', id: finding.id },
            { kind: finding.kind, note },
          );
      });
      return (await exceptions.find(id.toLowerCase()))!;
    },

    /**
     * A confirmed credit the provider shows failed or refunded is taken back by a compensating debit
     * that answers it (once: the ledger's unique index on the answered entry), and the tenant is told
     * by payment.compensated. Money already spent leaves the account in deficit: settlements are
     * refused until it is covered again. The platform operator's decision (CLI); a tenant's dashboard
     * user is refused (see PLATFORM_DECIDED).
     */
    async compensate(decider: Decider, id: string, note: string): Promise<{ finding: ExceptionRecord; entry: LedgerEntry }> {
      const tenantId = tenantOfDecider(decider);
      if (tenantId === null || !isUuid(tenantId)) throw new NotFoundError('reconciliation exception not found');
      try {
        const entry = await db.transaction(async (trx) => {
          const finding = isUuid(id) ? await exceptions.lockForDecision(trx, tenantId, id.toLowerCase()) : undefined;
          if (!finding) throw new NotFoundError('reconciliation exception not found');
          refuseTenantDecision(decider, finding);
          if (finding.kind !== 'credit_failed_at_provider')
            throw new ConflictError('only a confirmed credit the provider failed or refunded can be compensated');
          if (finding.status !== 'open') throw new ConflictError('reconciliation exception is not open');
          const credit = finding.entryId ? await createLedgerRepo(trx).findEntry(finding.entryId, trx) : undefined;
          if (!credit || credit.direction !== 'credit' || credit.status !== 'confirmed')
            throw new ConflictError('the credit is no longer a confirmed credit');
          const providerStatus = typeof finding.details.providerStatus === 'string' ? finding.details.providerStatus : 'failed';
          const reason = `the provider reports this payment ${providerStatus}`;
          // A split credit's parts come back from the accounts that received them first, in the same transaction.
          const parts = await splits.movedParts(trx, credit.id);
          const { debit, takenBack } = await postingEngine.compensateCredit(
            trx,
            credit,
            { narration: `compensation: ${reason}`, reason },
            parts,
          );
          await splits.recordTakenBack(
            trx,
            credit.id,
            takenBack.map((part) => ({ position: part.position, entryId: part.entryId })),
          );
          await exceptions.resolve(trx, finding.id, { resolution: 'compensated', note, userId: null, via: 'cli', repairEntryId: debit.id });
          return debit;
        });
        return { finding: (await exceptions.find(id.toLowerCase()))!, entry };
      } catch (error) {
        if (isAlreadyAnswered(error)) throw new ConflictError('the credit has already been compensated');
        throw error;
      }
    },
  };
}

export type ReconciliationService = ReturnType<typeof createReconciliationService>;
