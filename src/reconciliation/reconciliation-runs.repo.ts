import type { DbOrTrx, Trx } from '../db';

type RunTrigger = 'schedule' | 'cli' | 'tenant' | 'operator';
export type RunStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/**
 * The provider's wallet against what the books say it holds (clearing less the provider's fees, every tenant), and misdirected money not
 * yet in the books.
 */
export interface WalletCheck {
  walletBalance: string;
  heldPerBooks: string;
  unassignedMisdirected: string;
  unexplained: string;
}

export interface RunRecord {
  id: string;
  parentRunId: string | null;
  tenantId: string | null;
  trigger: RunTrigger;
  windowFrom: Date;
  windowTo: Date;
  status: RunStatus;
  workflowId: string | null;
  requestedBy: string | null;
  /** The email of the dashboard user who asked for the run (operator runs only). */
  requestedByEmail: string | null;
  providerTransactions: number;
  matched: number;
  repaired: number;
  reported: number;
  alerts: number;
  inFlight: number;
  lookups: number;
  daysCompared: number | null;
  daysDiffering: number | null;
  wallet: WalletCheck | null;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

interface RunRow {
  id: string;
  parent_run_id: string | null;
  tenant_id: string | null;
  trigger: RunTrigger;
  window_from: Date;
  window_to: Date;
  status: RunStatus;
  workflow_id: string | null;
  requested_by: string | null;
  /** Only where the query joins the requester (`withRequester`). */
  requested_by_email?: string | null;
  provider_transactions: number;
  matched: number;
  repaired: number;
  reported: number;
  alerts: number;
  in_flight: number;
  lookups: number;
  days_compared: number | null;
  days_differing: number | null;
  wallet: WalletCheck | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

function toRun(row: RunRow): RunRecord {
  return {
    id: row.id,
    parentRunId: row.parent_run_id,
    tenantId: row.tenant_id,
    trigger: row.trigger,
    windowFrom: row.window_from,
    windowTo: row.window_to,
    status: row.status,
    workflowId: row.workflow_id,
    requestedBy: row.requested_by,
    requestedByEmail: row.requested_by_email ?? null,
    providerTransactions: row.provider_transactions,
    matched: row.matched,
    repaired: row.repaired,
    reported: row.reported,
    alerts: row.alerts,
    inFlight: row.in_flight,
    lookups: row.lookups,
    daysCompared: row.days_compared,
    daysDiffering: row.days_differing,
    wallet: row.wallet,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

interface NewRun {
  id: string;
  tenantId: string | null;
  trigger: RunTrigger;
  windowFrom: Date;
  windowTo: Date;
  workflowId: string;
  requestedBy?: string | null;
  status?: RunStatus;
}

export interface DayDifference {
  accountRef: string;
  /** Africa/Lagos calendar day, yyyy-MM-dd. */
  day: string;
  providerCount: number;
  providerGross: bigint;
  providerFee: bigint;
  ledgerCount: number;
  ledgerGross: bigint;
  ledgerFee: bigint;
}

interface FinalCounts {
  providerTransactions: number;
  matched: number;
  repaired: number;
  reported: number;
  alerts: number;
  inFlight: number;
  lookups: number;
  daysCompared: number;
  daysDiffering: number;
}

export function createReconciliationRunsRepo(db: DbOrTrx) {
  /** Runs with the email of the dashboard user who asked for each (null for the others). */
  const withRequester = () =>
    db('reconciliation_runs as r')
      .leftJoin('dashboard_users as u', 'u.id', 'r.requested_by')
      .select('r.*', 'u.email as requested_by_email');

  return {
    async insert(run: NewRun): Promise<void> {
      await db('reconciliation_runs').insert({
        id: run.id,
        tenant_id: run.tenantId,
        trigger: run.trigger,
        window_from: run.windowFrom,
        window_to: run.windowTo,
        workflow_id: run.workflowId,
        requested_by: run.requestedBy ?? null,
        status: run.status ?? 'pending',
        started_at: run.status === 'running' ? db.fn.now() : null,
      });
    },

    /**
     * One child run per tenant that has an account here, each keeping that tenant's share of a platform run. A tenant
     * moved to another cluster has its share there: its fenced copy here gets none.
     */
    async insertChildren(
      parent: { id: string; trigger: RunTrigger; windowFrom: Date; windowTo: Date; status: RunStatus },
      childIds: () => string,
    ): Promise<void> {
      const tenants: Array<{ tenant_id: string }> = await db('virtual_accounts').whereNull('moved_out_at').distinct('tenant_id');
      if (tenants.length === 0) return;
      await db.raw(
        `INSERT INTO reconciliation_runs (id, parent_run_id, tenant_id, trigger, window_from, window_to, status, started_at)
         SELECT c.id, :parent, c.tenant_id, :trigger, :from, :to, :status, CASE WHEN :status = 'running' THEN now() END
           FROM jsonb_to_recordset(CAST(:children AS jsonb)) AS c(id uuid, tenant_id uuid)`,
        {
          parent: parent.id,
          trigger: parent.trigger,
          from: parent.windowFrom,
          to: parent.windowTo,
          status: parent.status,
          children: JSON.stringify(tenants.map((tenant) => ({ id: childIds(), tenant_id: tenant.tenant_id }))),
        },
      );
    },

    /** The last platform run that compared the provider's wallet with the books. */
    async lastWalletCheck(): Promise<RunRecord | undefined> {
      const row: RunRow | undefined = await withRequester()
        .whereNull('r.tenant_id')
        .whereNotNull('r.wallet')
        .orderBy('r.finished_at', 'desc')
        .first();
      return row ? toRun(row) : undefined;
    },

    async find(id: string): Promise<RunRecord | undefined> {
      const row: RunRow | undefined = await withRequester().where('r.id', id).first();
      return row ? toRun(row) : undefined;
    },

    async findByWorkflowId(workflowId: string): Promise<RunRecord | undefined> {
      const row: RunRow | undefined = await db('reconciliation_runs').where({ workflow_id: workflowId }).first();
      return row ? toRun(row) : undefined;
    },

    async findForTenant(tenantId: string, id: string): Promise<RunRecord | undefined> {
      const row: RunRow | undefined = await withRequester().where({ 'r.tenant_id': tenantId, 'r.id': id }).first();
      return row ? toRun(row) : undefined;
    },

    /** Newest first; `beforeId` is the previous page's last id. */
    async listForTenant(tenantId: string, beforeId: string | null, limit: number): Promise<RunRecord[]> {
      const query = withRequester().where('r.tenant_id', tenantId).orderBy('r.id', 'desc').limit(limit);
      if (beforeId) query.where('r.id', '<', beforeId);
      const rows: RunRow[] = await query;
      return rows.map(toRun);
    },

    /** The tenant's runs that met a finding, newest first. */
    async listForException(tenantId: string, exceptionId: string, limit: number): Promise<RunRecord[]> {
      const rows: RunRow[] = await withRequester()
        .join('reconciliation_run_exceptions as l', 'l.run_id', 'r.id')
        .where({ 'l.exception_id': exceptionId, 'r.tenant_id': tenantId })
        .orderBy('r.id', 'desc')
        .limit(limit);
      return rows.map(toRun);
    },

    /** Whether the tenant has an on-demand run open. One open for over a day (its workflow terminated by hand) no longer counts. */
    async hasOpenOnDemandRun(trx: Trx, tenantId: string): Promise<boolean> {
      const open = await trx('reconciliation_runs')
        .where({ tenant_id: tenantId })
        .whereIn('trigger', ['tenant', 'operator'])
        .whereIn('status', ['pending', 'running'])
        .where('created_at', '>', trx.raw("now() - interval '1 day'"))
        .first('id');
      return open !== undefined;
    },

    /** pending -> running (the run and its children); false when the run had already finished. */
    async markRunning(id: string): Promise<boolean> {
      await db('reconciliation_runs')
        .where((query) => query.where({ id }).orWhere({ parent_run_id: id }))
        .where({ status: 'pending' })
        .update({ status: 'running', started_at: db.fn.now() });
      const run = await db('reconciliation_runs').where({ id }).first('status');
      return run?.status === 'running';
    },

    /** The ids a finding of `tenantId` is linked to: the run, and the tenant's child run of a platform run. */
    async runAndChild(id: string, tenantId: string | null): Promise<string[]> {
      const rows: Array<{ id: string }> = await db('reconciliation_runs')
        .where({ id })
        .orWhere((query) => query.where({ parent_run_id: id, tenant_id: tenantId }))
        .select('id');
      return rows.map((row) => row.id);
    },

    async bump(trx: Trx, ids: string[], counter: 'repaired' | 'matched' | 'in_flight', by = 1): Promise<void> {
      if (ids.length === 0) return;
      await trx('reconciliation_runs').whereIn('id', ids).increment(counter, by);
    },

    async children(id: string): Promise<RunRecord[]> {
      const rows: RunRow[] = await db('reconciliation_runs').where({ parent_run_id: id });
      return rows.map(toRun);
    },

    async finish(trx: Trx, id: string, counts: FinalCounts, wallet: WalletCheck | null): Promise<void> {
      await trx('reconciliation_runs')
        .where({ id })
        .update({
          status: 'succeeded',
          provider_transactions: counts.providerTransactions,
          matched: counts.matched,
          repaired: counts.repaired,
          reported: counts.reported,
          alerts: counts.alerts,
          in_flight: counts.inFlight,
          lookups: counts.lookups,
          days_compared: counts.daysCompared,
          days_differing: counts.daysDiffering,
          wallet: wallet === null ? null : JSON.stringify(wallet),
          finished_at: db.fn.now(),
        });
    },

    /** A platform run's child runs finish with their tenant's share of its rows, findings and daily totals. */
    async finishChildren(trx: Trx, id: string): Promise<void> {
      await trx.raw(
        `UPDATE reconciliation_runs c
            SET status = 'succeeded', finished_at = now(),
                provider_transactions = coalesce(o.seen, 0), matched = coalesce(o.matched, 0), repaired = coalesce(o.repaired, 0),
                in_flight = coalesce(o.in_flight, 0), lookups = coalesce(o.looked_up, 0), reported = coalesce(f.reported, 0), alerts = coalesce(f.alerts, 0),
                days_compared = coalesce(d.compared, 0), days_differing = coalesce(d.differing, 0)
           FROM reconciliation_runs child
           LEFT JOIN (SELECT tenant_id, count(*) AS seen, count(*) FILTER (WHERE outcome IN ('matched', 'acknowledged')) AS matched,
                             count(*) FILTER (WHERE outcome = 'repaired') AS repaired, count(*) FILTER (WHERE outcome = 'in_flight') AS in_flight,
                             count(*) FILTER (WHERE looked_up) AS looked_up
                        FROM reconciliation_provider_rows WHERE run_id = :run GROUP BY tenant_id) o ON o.tenant_id = child.tenant_id
           LEFT JOIN (SELECT l.run_id, count(*) FILTER (WHERE x.severity <> 'info') AS reported, count(*) FILTER (WHERE x.severity = 'alert') AS alerts
                        FROM reconciliation_run_exceptions l JOIN reconciliation_exceptions x ON x.id = l.exception_id
                       WHERE l.run_id IN (SELECT id FROM reconciliation_runs WHERE parent_run_id = :run) GROUP BY l.run_id) f ON f.run_id = child.id
           LEFT JOIN (SELECT tenant_id, count(*) AS compared, count(*) FILTER (WHERE provider_gross <> ledger_gross OR provider_fee <> ledger_fee) AS differing
                        FROM reconciliation_day_totals WHERE run_id = :run GROUP BY tenant_id) d ON d.tenant_id = child.tenant_id
          WHERE c.id = child.id AND child.parent_run_id = :run`,
        { run: id },
      );
    },

    /** The tenant's daily totals of a run (a child run reads its platform run's) that differ, per account and day. */
    async dayDifferences(run: RunRecord, limit: number): Promise<DayDifference[]> {
      const rows: Array<{
        account_ref: string;
        day: string;
        provider_count: number;
        provider_gross: string;
        provider_fee: string;
        ledger_count: number;
        ledger_gross: string;
        ledger_fee: string;
      }> = await db('reconciliation_day_totals as t')
        .join('virtual_accounts as a', 'a.id', 't.account_id')
        .where('t.run_id', run.parentRunId ?? run.id)
        .where('t.tenant_id', run.tenantId)
        .where((query) => query.whereRaw('t.provider_gross <> t.ledger_gross').orWhereRaw('t.provider_fee <> t.ledger_fee'))
        .orderBy(['t.day', 'a.account_ref'])
        .limit(limit)
        .select(
          'a.account_ref',
          db.raw(`to_char(t.day, 'YYYY-MM-DD') AS day`),
          't.provider_count',
          't.provider_gross',
          't.provider_fee',
          't.ledger_count',
          't.ledger_gross',
          't.ledger_fee',
        );
      return rows.map((row) => ({
        accountRef: row.account_ref,
        day: row.day,
        providerCount: row.provider_count,
        providerGross: BigInt(row.provider_gross),
        providerFee: BigInt(row.provider_fee),
        ledgerCount: row.ledger_count,
        ledgerGross: BigInt(row.ledger_gross),
        ledgerFee: BigInt(row.ledger_fee),
      }));
    },

    /** The run and its children fail together, with the reason. */
    async fail(id: string, error: string): Promise<void> {
      await db('reconciliation_runs')
        .where((query) => query.where({ id }).orWhere({ parent_run_id: id }))
        .whereIn('status', ['pending', 'running'])
        .update({ status: 'failed', error: error.slice(0, 2_000), finished_at: db.fn.now() });
    },
  };
}
