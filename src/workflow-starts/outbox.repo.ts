import type { DbOrTrx } from '../db';
import { looseIndexScan } from '../loose-index-scan';
import type { WorkflowSearchAttributes } from '../contracts/search-attributes';
import { START_POLICIES, type OutboxJob, type WorkflowInputs, type WorkflowType } from '../contracts/catalogue';

/** A job as the outbox holds it: built by its workflow family's contract. */
export type OutboxEntry<T extends WorkflowType = WorkflowType> = OutboxJob<T>;

export interface OutboxRow {
  workflow_id: string;
  workflow_type: WorkflowType;
  args: WorkflowInputs[WorkflowType];
  search_attributes: WorkflowSearchAttributes;
}

/** Rows without a tenant (an operator's platform-wide reconciliation run) share one lane of the fair drainer. */
export const NO_TENANT = '00000000-0000-0000-0000-000000000000';

/** The drainer's order within a tenant: each workflow family's contract sets its priority (lower starts first). */
export function outboxPriority(workflowType: WorkflowType): number {
  return START_POLICIES[workflowType].priority;
}

export function outboxEntry<T extends WorkflowType>(
  workflowType: T,
  workflowId: string,
  args: WorkflowInputs[T],
  searchAttributes: WorkflowSearchAttributes = {},
): OutboxEntry<T> {
  return { workflowType, workflowId, args, searchAttributes };
}

export function toOutboxEntry(row: OutboxRow): OutboxEntry {
  return { workflowId: row.workflow_id, workflowType: row.workflow_type, args: row.args, searchAttributes: row.search_attributes };
}

/** A row leased to one drainer while it starts the workflow; `attempts` counts every lease. */
export interface LeasedEntry extends OutboxEntry {
  attempts: number;
}

/**
 * Unstarted rows, fair across tenants: a loose index scan finds each tenant with unstarted rows (however
 * many rows one tenant has), each tenant contributes its first `per_tenant` available rows by priority
 * and age, and the pass takes them round-robin (every tenant's first row, then every tenant's second…).
 * Leasing moves `available_at` past the lease, so no other drainer takes a row while it is being started.
 */
const LEASE_SQL = `
  WITH RECURSIVE ${looseIndexScan('tenants', 'workflow_outbox', 'tenant_id', 'started_at IS NULL')}, candidates AS (
    SELECT c.workflow_id, c.priority, row_number() OVER (PARTITION BY t.tenant_id ORDER BY c.priority, c.created_at) AS turn
      FROM tenants t
      CROSS JOIN LATERAL (
        SELECT o.workflow_id, o.priority, o.created_at FROM workflow_outbox o
         WHERE o.started_at IS NULL AND o.tenant_id = t.tenant_id AND o.available_at <= now()
           AND o.created_at <= now() - make_interval(secs => :grace_s)
         ORDER BY o.priority, o.created_at
         LIMIT :per_tenant
           FOR UPDATE SKIP LOCKED
      ) c
     WHERE t.tenant_id IS NOT NULL
  ), picked AS (
    SELECT workflow_id, turn, priority FROM candidates ORDER BY turn, priority LIMIT :limit
  )
  UPDATE workflow_outbox w SET available_at = now() + make_interval(secs => :lease_s), attempts = w.attempts + 1
    FROM picked p
   WHERE w.workflow_id = p.workflow_id
  RETURNING w.workflow_id, w.workflow_type, w.args, w.search_attributes, w.attempts, p.turn, p.priority`;

/** A start that failed waits this long times 2^(attempts - 1), up to the cap, before it is tried again. */
const RETRY_BASE_S = 1;
const RETRY_CAP_S = 600;

export function createOutboxRepo(db: DbOrTrx) {
  return {
    /** Written in the caller's transaction, beside the rows the workflow acts on. */
    async enqueue(entries: OutboxEntry[]): Promise<void> {
      if (entries.length === 0) return;
      await db('workflow_outbox')
        .insert(
          entries.map((entry) => ({
            workflow_id: entry.workflowId,
            workflow_type: entry.workflowType,
            args: JSON.stringify(entry.args),
            search_attributes: JSON.stringify(entry.searchAttributes),
            tenant_id: entry.searchAttributes.TenantId ?? NO_TENANT,
            priority: outboxPriority(entry.workflowType),
          })),
        )
        .onConflict('workflow_id')
        .ignore();
    },

    async markStarted(workflowIds: string[]): Promise<void> {
      if (workflowIds.length === 0) return;
      await db('workflow_outbox').whereIn('workflow_id', workflowIds).whereNull('started_at').update({ started_at: db.fn.now() });
    },

    /** Leases up to `limit` unstarted rows older than `graceMs`, fairly across tenants, for `leaseMs`. */
    async lease(options: { graceMs: number; limit: number; perTenant: number; leaseMs: number }): Promise<LeasedEntry[]> {
      const { rows } = (await db.raw(LEASE_SQL, {
        grace_s: options.graceMs / 1000,
        per_tenant: options.perTenant,
        limit: options.limit,
        lease_s: options.leaseMs / 1000,
      })) as { rows: Array<OutboxRow & { attempts: number; turn: string; priority: number }> };
      return rows
        .sort((a, b) => Number(a.turn) - Number(b.turn) || a.priority - b.priority)
        .map((row) => ({ ...toOutboxEntry(row), attempts: row.attempts }));
    },

    /** Makes leased rows that were not tried available again at once (a drainer stopping early). */
    async unlease(workflowIds: string[]): Promise<void> {
      if (workflowIds.length === 0) return;
      await db('workflow_outbox').whereIn('workflow_id', workflowIds).whereNull('started_at').update({ available_at: db.fn.now() });
    },

    /** A start failed: the row waits out a back-off that grows with its attempts, so it never blocks the rows behind it. */
    async backOff(workflowId: string, error: string): Promise<void> {
      await db('workflow_outbox')
        .where({ workflow_id: workflowId })
        .whereNull('started_at')
        .update({
          available_at: db.raw('now() + make_interval(secs => least(? * power(2, greatest(attempts - 1, 0)), ?))', [
            RETRY_BASE_S,
            RETRY_CAP_S,
          ]),
          last_error: error.slice(0, 500),
        });
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
