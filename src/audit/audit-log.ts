import type { DbOrTrx } from '../db';
import { uuidv7 } from '../ids';
import type { AuditAction } from './audit-actions';

export type { AuditAction };

/** Who acted: a dashboard user of the tenant (its email is kept as written then). */
export interface AuditActor {
  id: string;
  tenantId: string;
  email: string;
}

/** The actor written for an action taken with one of the tenant's API keys. */
export const API_KEY_ACTOR = 'API key';

interface AuditTarget {
  type: string;
  id: string | null;
}

export interface AuditRecord {
  id: string;
  tenantId: string;
  userId: string | null;
  actor: string;
  action: AuditAction;
  targetType: string;
  targetId: string | null;
  detail: Record<string, unknown>;
  createdAt: Date;
}

interface AuditQuery {
  beforeId: string | null;
  limit: number;
  action?: string | undefined;
  userId?: string | undefined;
  target?: AuditTarget | undefined;
}

interface AuditRow {
  id: string;
  tenant_id: string;
  user_id: string | null;
  actor: string;
  action: AuditAction;
  target_type: string;
  target_id: string | null;
  detail: Record<string, unknown>;
  created_at: Date;
}

/**
 * The one writer and reader of the audit log. Actions that run in a transaction of their own record
 * inside it (pass the transaction), so the action and its record commit together; the table is
 * append-only (a trigger refuses UPDATE, DELETE and TRUNCATE).
 */
export function createAuditLog(db: DbOrTrx) {
  return {
    async record(actor: AuditActor, action: AuditAction, target: AuditTarget, detail: Record<string, unknown> = {}): Promise<void> {
      await db('audit_log').insert({
        id: uuidv7(),
        tenant_id: actor.tenantId,
        user_id: actor.id,
        actor: actor.email,
        action,
        target_type: target.type,
        target_id: target.id,
        detail: JSON.stringify(detail),
      });
    },

    /** An action taken by no dashboard user: an API key's call, or the service itself (`actor` names which). */
    async recordAs(
      tenantId: string,
      actor: string,
      action: AuditAction,
      target: AuditTarget,
      detail: Record<string, unknown> = {},
    ): Promise<void> {
      await db('audit_log').insert({
        id: uuidv7(),
        tenant_id: tenantId,
        user_id: null,
        actor,
        action,
        target_type: target.type,
        target_id: target.id,
        detail: JSON.stringify(detail),
      });
    },

    /** Newest first; `beforeId` is the previous page's last id. */
    async list(tenantId: string, query: AuditQuery): Promise<AuditRecord[]> {
      const select = db('audit_log').where({ tenant_id: tenantId }).orderBy('id', 'desc').limit(query.limit);
      if (query.beforeId) select.where('id', '<', query.beforeId);
      if (query.action) select.where({ action: query.action });
      if (query.userId) select.where({ user_id: query.userId });
      if (query.target) select.where({ target_type: query.target.type, target_id: query.target.id });
      const rows: AuditRow[] = await select;
      return rows.map((row) => ({
        id: row.id,
        tenantId: row.tenant_id,
        userId: row.user_id,
        actor: row.actor,
        action: row.action,
        targetType: row.target_type,
        targetId: row.target_id,
        detail: row.detail,
        createdAt: row.created_at,
      }));
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
