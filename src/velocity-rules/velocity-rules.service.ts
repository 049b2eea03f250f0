import { API_KEY_ACTOR, createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db, Trx } from '../db';
import { NotFoundError } from '../errors';
import { uuidv7, isUuid } from '../ids';
import { formatKobo } from '../money';
import type { VelocityRule } from '../policies/velocity/velocity-rules';
import { createVelocityRulesRepo, type StoredVelocityRule } from './velocity-rules.repo';
import type { VelocityRuleBody } from './velocity-rules.schemas';

/** A rule as the API shows it: its threshold as a count or as naira, by its measure. */
export interface VelocityRuleView {
  id: string;
  subject: VelocityRule['subject'];
  measure: VelocityRule['measure'];
  scope: VelocityRule['scope'];
  windowSeconds: number;
  maxCount: number | null;
  maxAmount: string | null;
  action: VelocityRule['action'];
  message: string | null;
  createdAt: string;
  updatedAt: string;
}

export function presentVelocityRule(rule: StoredVelocityRule): VelocityRuleView {
  return {
    id: rule.id,
    subject: rule.subject,
    measure: rule.measure,
    scope: rule.scope,
    windowSeconds: rule.windowSeconds,
    maxCount: rule.measure === 'count' ? Number(rule.threshold) : null,
    maxAmount: rule.measure === 'amount' ? formatKobo(rule.threshold) : null,
    action: rule.action,
    message: rule.message,
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}

const ruleOfBody = (id: string, body: VelocityRuleBody): VelocityRule => ({
  id,
  subject: body.subject,
  measure: body.measure,
  scope: body.scope,
  windowSeconds: body.windowSeconds,
  threshold: body.measure === 'count' ? BigInt(body.maxCount ?? 0) : (body.maxAmount ?? 0n),
  action: body.action,
  message: body.message ?? null,
});

/** The audit entry's detail: the rule as the tenant wrote it. */
const detailOf = (rule: VelocityRule): Record<string, unknown> => ({
  subject: rule.subject,
  measure: rule.measure,
  scope: rule.scope,
  windowSeconds: rule.windowSeconds,
  threshold: rule.measure === 'count' ? rule.threshold.toString() : formatKobo(rule.threshold),
  action: rule.action,
  message: rule.message,
});

type RuleAction = 'velocity_rule.created' | 'velocity_rule.updated' | 'velocity_rule.deleted';

/** Records a change of a rule in the change's transaction: by a dashboard user, or by one of the tenant's API keys. */
function audit(trx: Trx, tenantId: string, by: AuditActor | undefined, action: RuleAction, rule: VelocityRule): Promise<void> {
  const log = createAuditLog(trx);
  const target = { type: 'velocity_rule', id: rule.id };
  return by ? log.record(by, action, target, detailOf(rule)) : log.recordAs(tenantId, API_KEY_ACTOR, action, target, detailOf(rule));
}

const notFound = (): NotFoundError => new NotFoundError('velocity rule not found');

/** A tenant's velocity rules: each change audited with who made it (a dashboard user, else the API key). */
export function createVelocityRulesService(deps: { db: Db }) {
  const { db } = deps;

  async function requireRule(tenantId: string, id: string): Promise<StoredVelocityRule> {
    const rule = isUuid(id) ? await createVelocityRulesRepo(db).find(tenantId, id) : undefined;
    if (!rule) throw notFound();
    return rule;
  }

  return {
    async list(tenantId: string): Promise<VelocityRuleView[]> {
      return (await createVelocityRulesRepo(db).list(tenantId)).map(presentVelocityRule);
    },

    async get(tenantId: string, id: string): Promise<VelocityRuleView> {
      return presentVelocityRule(await requireRule(tenantId, id));
    },

    /** Adds a rule: payouts asked for from now on are judged by it. */
    async create(tenantId: string, body: VelocityRuleBody, by?: AuditActor): Promise<VelocityRuleView> {
      const rule = ruleOfBody(uuidv7(), body);
      await db.transaction(async (trx) => {
        await createVelocityRulesRepo(trx).insert(tenantId, rule);
        await audit(trx, tenantId, by, 'velocity_rule.created', rule);
      });
      return presentVelocityRule(await requireRule(tenantId, rule.id));
    },

    /** Replaces a rule whole. */
    async update(tenantId: string, id: string, body: VelocityRuleBody, by?: AuditActor): Promise<VelocityRuleView> {
      if (!isUuid(id)) throw notFound();
      const rule = ruleOfBody(id, body);
      await db.transaction(async (trx) => {
        if (!(await createVelocityRulesRepo(trx).update(tenantId, rule))) throw notFound();
        await audit(trx, tenantId, by, 'velocity_rule.updated', rule);
      });
      return presentVelocityRule(await requireRule(tenantId, id));
    },

    async remove(tenantId: string, id: string, by?: AuditActor): Promise<void> {
      const rule = await requireRule(tenantId, id);
      await db.transaction(async (trx) => {
        if (!(await createVelocityRulesRepo(trx).remove(tenantId, id))) throw notFound();
        await audit(trx, tenantId, by, 'velocity_rule.deleted', rule);
      });
    },
  };
}

export type VelocityRulesService = ReturnType<typeof createVelocityRulesService>;
