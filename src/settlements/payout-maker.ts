import type { AuditActor } from '../audit/audit-log';

/**
 * Who asked for a payout: a dashboard user or one of the tenant's API keys, or a balance sweep's run. Only a payout with
 * a maker is judged by the tenant's approval policy (a batch's items and a return of held money are not), and a maker
 * never approves their own. A sweep's payout is judged only by the policy's `sweeps` (and by no velocity rule): nobody
 * asked for it then, so any approver may approve it.
 */
export type PayoutMaker = { kind: 'user'; user: AuditActor } | { kind: 'api_key'; apiKeyId: string } | { kind: 'balance_sweep' };

/** The audit log's actor for a payout a balance sweep made. */
export const SWEEP_ACTOR = 'balance sweep';
