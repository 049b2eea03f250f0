import type { DbOrTrx } from '../db';
import type { WorkflowSearchAttributes } from '../temporal/search-attributes';
import type { WorkflowInputs, WorkflowType } from '../temporal/payloads';

export interface OutboxEntry<T extends WorkflowType = WorkflowType> {
  workflowId: string;
  workflowType: T;
  args: WorkflowInputs[T];
  searchAttributes: WorkflowSearchAttributes;
}

export interface OutboxRow {
  workflow_id: string;
  workflow_type: WorkflowType;
  args: WorkflowInputs[WorkflowType];
  search_attributes: WorkflowSearchAttributes;
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
          })),
        )
        .onConflict('workflow_id')
        .ignore();
    },

    async markStarted(workflowIds: string[]): Promise<void> {
      if (workflowIds.length === 0) return;
      await db('workflow_outbox').whereIn('workflow_id', workflowIds).whereNull('started_at').update({ started_at: db.fn.now() });
    },

    async listUnstarted(olderThanMs: number, limit: number): Promise<OutboxEntry[]> {
      const rows: OutboxRow[] = await db('workflow_outbox')
        .whereNull('started_at')
        .where('created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanMs / 1000]))
        .orderBy('created_at')
        .limit(limit)
        .select('workflow_id', 'workflow_type', 'args', 'search_attributes');
      return rows.map(toOutboxEntry);
    },

    async countUnstarted(): Promise<number> {
      const row = await db('workflow_outbox').whereNull('started_at').count<{ count: string }[]>('* as count').first();
      return Number(row?.count ?? 0);
    },
  };
}

export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
