import type { AuditRecord } from './audit-log';

export function presentAuditEntry(entry: AuditRecord) {
  return {
    ID: entry.id,
    Actor: entry.actor,
    UserID: entry.userId,
    Action: entry.action,
    TargetType: entry.targetType,
    TargetID: entry.targetId,
    Detail: entry.detail,
    At: entry.createdAt.toISOString(),
  };
}
