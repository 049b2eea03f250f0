import type { DbOrTrx, Trx } from '../db';
import { FINDINGS, type FindingKind, type Severity } from './findings';

export type ExceptionStatus = 'open' | 'repaired' | 'resolved';
export type Resolution = 'noted' | 'compensated' | 'no_longer_found';

export interface Finding {
  id: string;
  tenantId: string | null;
  kind: FindingKind;
  /** What the finding is about (a provider transaction, a settlement, the wallet): one open finding per kind and subject. */
  subject: string;
  accountId?: string | null;
  entryId?: string | null;
  settlementId?: string | null;
  providerTxnId?: string | null;
  details: Record<string, unknown>;
}

export interface ExceptionRecord {
  id: string;
  tenantId: string | null;
  kind: FindingKind;
  severity: Severity;
  status: ExceptionStatus;
  subject: string;
  accountId: string | null;
  accountRef: string | null;
  entryId: string | null;
  settlementId: string | null;
  merchantTxRef: string | null;
  providerTxnId: string | null;
  details: Record<string, unknown>;
  /** Null for a finding raised outside any run (the settlement watch, a parked settlement run) until a run meets it. */
  firstRunId: string | null;
  lastRunId: string | null;
  occurrences: number;
  repairEntryId: string | null;
  resolution: Resolution | null;
  resolutionNote: string | null;
  resolvedBy: string | null;
  resolvedByEmail: string | null;
  resolvedVia: string | null;
  resolvedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface ExceptionRow {
  id: string;
  tenant_id: string | null;
  kind: FindingKind;
  severity: Severity;
  status: ExceptionStatus;
  subject: string;
  account_id: string | null;
  account_ref: string | null;
  entry_id: string | null;
  settlement_id: string | null;
  merchant_tx_ref: string | null;
  provider_txn_id: string | null;
  details: Record<string, unknown>;
  first_run_id: string | null;
  last_run_id: string | null;
  occurrences: number;
  repair_entry_id: string | null;
  resolution: Resolution | null;
  resolution_note: string | null;
  resolved_by: string | null;
  resolved_by_email: string | null;
  resolved_via: string | null;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toException(row: ExceptionRow): ExceptionRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind,
    severity: row.severity,
    status: row.status,
    subject: row.subject,
    accountId: row.account_id,
    accountRef: row.account_ref,
    entryId: row.entry_id,
    settlementId: row.settlement_id,
    merchantTxRef: row.merchant_tx_ref,
    providerTxnId: row.provider_txn_id,
    details: row.details,
    firstRunId: row.first_run_id,
    lastRunId: row.last_run_id,
    occurrences: row.occurrences,
    repairEntryId: row.repair_entry_id,
    resolution: row.resolution,
    resolutionNote: row.resolution_note,
    resolvedBy: row.resolved_by,
    resolvedByEmail: row.resolved_by_email,
    resolvedVia: row.resolved_via,
    resolvedAt: row.resolved_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface ExceptionFilter {
  /** null: the platform's own findings; absent: every tenant's (the platform operator's view of a run). */
  tenantId?: string | null;
  status?: ExceptionStatus;
  kind?: FindingKind;
  runId?: string;
}

function findingRow(finding: Finding, status: ExceptionStatus, runId: string | null) {
  return {
    id: finding.id,
    tenant_id: finding.tenantId,
    kind: finding.kind,
    severity: FINDINGS[finding.kind].severity,
    status,
    subject: finding.subject,
    account_id: finding.accountId ?? null,
    entry_id: finding.entryId ?? null,
    settlement_id: finding.settlementId ?? null,
    provider_txn_id: finding.providerTxnId ?? null,
    details: JSON.stringify(finding.details),
    first_run_id: runId,
    last_run_id: runId,
  };
}

export function createReconciliationExceptionsRepo(db: DbOrTrx) {
  const withNames = () =>
    db('reconciliation_exceptions as x')
      .leftJoin('virtual_accounts as a', 'a.id', 'x.account_id')
      .leftJoin('settlements as s', 's.id', 'x.settlement_id')
      .leftJoin('dashboard_users as u', 'u.id', 'x.resolved_by')
      .select('x.*', 'a.account_ref', 's.merchant_tx_ref', 'u.email as resolved_by_email');

  async function link(trx: DbOrTrx, exceptionId: string, runIds: string[]): Promise<void> {
    if (runIds.length === 0) return;
    await trx('reconciliation_run_exceptions')
      .insert(runIds.map((runId) => ({ run_id: runId, exception_id: exceptionId })))
      .onConflict(['run_id', 'exception_id'])
      .ignore();
  }

  return {
    /**
     * Opens the finding, or counts another occurrence of the one already open for its subject; linked to
     * `runIds`. With `acknowledgeResolved`, a finding an operator already resolved is not reported again.
     */
    async report(trx: Trx, finding: Finding, runIds: string[], options: { acknowledgeResolved?: boolean } = {}): Promise<string | null> {
      if (
        options.acknowledgeResolved &&
        (await trx('reconciliation_exceptions').where({ subject: finding.subject, kind: finding.kind, status: 'resolved' }).first('id'))
      )
        return null;
      const [row] = (await trx('reconciliation_exceptions')
        .insert(findingRow(finding, 'open', runIds[0]!))
        .onConflict(trx.raw("(kind, subject) WHERE status = 'open'"))
        .merge({
          last_run_id: runIds[0]!,
          occurrences: trx.raw('reconciliation_exceptions.occurrences + 1'),
          details: trx.raw('EXCLUDED.details'),
          updated_at: trx.fn.now(),
        })
        .returning('id')) as Array<{ id: string }>;
      await link(trx, row!.id, runIds);
      return row!.id;
    },

    /**
     * Opens the finding outside any run (the settlement watch, a parked settlement run) unless its
     * subject already has one under one of `sameSubjectKinds` (its own kind included) that is open, or
     * that an operator resolved (as a run acknowledges it); an open one of another of those kinds becomes
     * this kind, with these details. True when the finding is new.
     */
    async raise(trx: Trx, finding: Finding, sameSubjectKinds: FindingKind[] = [finding.kind]): Promise<boolean> {
      const kinds = [...new Set([finding.kind, ...sameSubjectKinds])];
      const decided = await trx('reconciliation_exceptions')
        .where({ subject: finding.subject, status: 'resolved' })
        .whereIn('kind', kinds)
        .first('id');
      if (decided) return false;
      const openRows: Array<{ id: string; kind: FindingKind }> = await trx('reconciliation_exceptions')
        .where({ subject: finding.subject, status: 'open' })
        .whereIn('kind', kinds)
        .forUpdate()
        .select('id', 'kind');
      // A run may have opened this kind beside an open one of another kind: that one stays as it is.
      if (openRows.some((row) => row.kind === finding.kind)) return false;
      const open = openRows[0];
      if (open) {
        await trx('reconciliation_exceptions')
          .where({ id: open.id })
          .update({
            kind: finding.kind,
            severity: FINDINGS[finding.kind].severity,
            details: JSON.stringify(finding.details),
            updated_at: trx.fn.now(),
          });
        return true;
      }
      const inserted = await trx('reconciliation_exceptions')
        .insert(findingRow(finding, 'open', null))
        .onConflict(trx.raw("(kind, subject) WHERE status = 'open'"))
        .ignore()
        .returning('id');
      return inserted.length > 0;
    },

    /** A repair this run made, on record with the entry it posted. */
    async recordRepair(trx: Trx, finding: Finding, runIds: string[], repairEntryId: string | null): Promise<void> {
      await trx('reconciliation_exceptions').insert({ ...findingRow(finding, 'repaired', runIds[0]!), repair_entry_id: repairEntryId });
      await link(trx, finding.id, runIds);
    },

    /** An open finding a later run no longer meets is closed by that run. */
    async closeIfOpen(trx: Trx, kind: FindingKind, subject: string, runId: string): Promise<void> {
      await trx('reconciliation_exceptions')
        .where({ kind, subject, status: 'open' })
        .update({
          status: 'resolved',
          resolution: 'no_longer_found',
          resolution_note: `no longer found by run ${runId}`,
          resolved_via: 'reconciliation',
          resolved_at: trx.fn.now(),
          updated_at: trx.fn.now(),
        });
    },

    /** Newest first; `beforeId` is the previous page's last id. A null tenant lists the platform's own findings. */
    async list(filter: ExceptionFilter, beforeId: string | null, limit: number): Promise<ExceptionRecord[]> {
      const query = withNames().orderBy('x.id', 'desc').limit(limit);
      if (filter.tenantId === null) query.whereNull('x.tenant_id');
      else if (filter.tenantId !== undefined) query.where('x.tenant_id', filter.tenantId);
      if (filter.status) query.where('x.status', filter.status);
      if (filter.kind) query.where('x.kind', filter.kind);
      if (filter.runId) query.whereIn('x.id', db('reconciliation_run_exceptions').where({ run_id: filter.runId }).select('exception_id'));
      if (beforeId) query.where('x.id', '<', beforeId);
      const rows: ExceptionRow[] = await query;
      return rows.map(toException);
    },

    async find(id: string): Promise<ExceptionRecord | undefined> {
      const row: ExceptionRow | undefined = await withNames().where('x.id', id).first();
      return row ? toException(row) : undefined;
    },

    async findForTenant(tenantId: string, id: string): Promise<ExceptionRecord | undefined> {
      const row: ExceptionRow | undefined = await withNames().where({ 'x.id': id, 'x.tenant_id': tenantId }).first();
      return row ? toException(row) : undefined;
    },

    /** Locks the tenant's finding (null tenant: the platform's) for a decision on it. */
    async lockForDecision(trx: Trx, tenantId: string | null, id: string): Promise<ExceptionRecord | undefined> {
      const query = trx('reconciliation_exceptions').where({ id }).forUpdate();
      if (tenantId === null) query.whereNull('tenant_id');
      else query.where({ tenant_id: tenantId });
      const row: ExceptionRow | undefined = await query.first();
      return row ? toException({ ...row, account_ref: null, merchant_tx_ref: null, resolved_by_email: null }) : undefined;
    },

    async resolve(
      trx: Trx,
      id: string,
      decision: { resolution: Resolution; note: string; userId: string | null; via: 'dashboard' | 'cli'; repairEntryId?: string },
    ): Promise<void> {
      await trx('reconciliation_exceptions')
        .where({ id, status: 'open' })
        .update({
          status: 'resolved',
          resolution: decision.resolution,
          resolution_note: decision.note,
          resolved_by: decision.userId,
          resolved_via: decision.via,
          resolved_at: trx.fn.now(),
          updated_at: trx.fn.now(),
          ...(decision.repairEntryId ? { repair_entry_id: decision.repairEntryId } : {}),
        });
    },

    /** Findings linked to the run that were reported (not repairs), all of them and at alert level. */
    async reportedCounts(trx: Trx, runId: string): Promise<{ reported: number; alerts: number }> {
      const row = (await trx('reconciliation_run_exceptions as l')
        .join('reconciliation_exceptions as x', 'x.id', 'l.exception_id')
        .where('l.run_id', runId)
        .whereNot('x.severity', 'info')
        .select(trx.raw('count(*) AS reported'), trx.raw(`count(*) FILTER (WHERE x.severity = 'alert') AS alerts`))
        .first()) as { reported: string; alerts: string };
      return { reported: Number(row.reported), alerts: Number(row.alerts) };
    },
  };
}
