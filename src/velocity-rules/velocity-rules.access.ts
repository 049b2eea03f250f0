import type { DbOrTrx, Trx } from '../db';
import { recordChange } from '../events/change-events';
import type { Kobo } from '../money';
import { paymentCreditsWithin } from '../ledger/ledger-reads';
import { creditVelocity, payoutVelocity, type CreditVelocityVerdict, type VelocityVerdict } from '../policies/velocity/velocity-rules';
import { createVelocityRulesRepo, type JudgedPayout } from './velocity-rules.repo';

export type { VelocityVerdict };

/** The posting engine's locks: each account's customer's row, then the account's (the order every posting takes). */
type LockAccounts = (trx: Trx, accountIds: string[]) => Promise<void>;

/** Judges a payout under the tenant's velocity rules, in the transaction that makes it (see payoutVelocityOf). */
export interface PayoutVelocity {
  judge(trx: Trx, payout: JudgedPayout & { amount: Kobo }): Promise<VelocityVerdict>;
}

/**
 * The tenant's payout rules as a judge, or undefined when it has none (a payout is then judged by nothing). The judge
 * first takes the locks that serialise the payouts a rule counts, so two payouts never both see the window without
 * the other: the destination's (an advisory lock of the tenant and the bank account, for destination rules, taken
 * before any row lock) and then the account's customer's row and the account's (for every rule: the customer's row
 * serialises the customer's accounts). It then reads each rule's window and decides; the caller makes the payout (or
 * holds it for review) in the same transaction, so the next payout's window holds it.
 */
export async function payoutVelocityOf(db: DbOrTrx, tenantId: string, lockAccounts: LockAccounts): Promise<PayoutVelocity | undefined> {
  const rules = (await createVelocityRulesRepo(db).list(tenantId)).filter((rule) => rule.subject === 'payouts');
  if (rules.length === 0) return undefined;
  return {
    async judge(trx, payout) {
      if (rules.some((rule) => rule.scope === 'destination'))
        await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
          `velocity-destination:${payout.tenantId}:${payout.bankCode}:${payout.accountNumber}`,
        ]);
      await lockAccounts(trx, [payout.accountId]);
      const repo = createVelocityRulesRepo(trx);
      const judged = [];
      for (const rule of rules) judged.push({ rule, soFar: await repo.windowSoFar(rule, payout) });
      return payoutVelocity(judged, payout.amount);
    },
  };
}

/** Judges a payment credit under the tenant's credit rules, in the transaction that posts it (see creditVelocityOf). */
export interface CreditVelocity {
  judge(trx: Trx, credit: { accountId: string; amount: Kobo }): Promise<CreditVelocityVerdict>;
}

/**
 * A boolean SQL expression: whether the tenant (`tenantIdSql`, an expression of the caller's row) has any rule over
 * credits, one probe of velocity_rules_tenant_idx; then each of its payments is judged on its own (creditVelocityOf).
 */
export function tenantHasCreditRulesSql(tenantIdSql: string): string {
  return `EXISTS (SELECT 1 FROM velocity_rules r WHERE r.tenant_id = ${tenantIdSql} AND r.subject = 'credits')`;
}

/**
 * The tenant's credit rules as a judge. The judge first takes the account's customer's row lock and then the
 * account's, the locks every credit to them takes, so two credits never both see the window without the other; it
 * then reads each rule's window (the payments credited to the account, or to any account of its customer, by the
 * clock) and decides. The caller posts the credit (held whole when the verdict is `hold`) in the same transaction,
 * so the next credit's window holds it.
 */
export async function creditVelocityOf(db: DbOrTrx, tenantId: string, lockAccounts: LockAccounts): Promise<CreditVelocity> {
  const rules = (await createVelocityRulesRepo(db).list(tenantId)).filter((rule) => rule.subject === 'credits');
  return {
    async judge(trx, credit) {
      await lockAccounts(trx, [credit.accountId]);
      const judged = [];
      for (const rule of rules) {
        if (rule.scope === 'destination') throw new Error(`credit rule ${rule.id} has a destination scope`);
        const soFar = await paymentCreditsWithin(trx, {
          accountId: credit.accountId,
          scope: rule.scope,
          windowSeconds: rule.windowSeconds,
        });
        judged.push({ rule, soFar });
      }
      return creditVelocity(judged, credit.amount);
    },
  };
}

type Triggered =
  | { verdict: Exclude<VelocityVerdict, { action: 'allow' }>; merchantTxRef: string | null }
  | {
      verdict: Exclude<CreditVelocityVerdict, { action: 'allow' }>;
      transactionGroupId: string;
    };

/**
 * Tells the tenant a rule refused a payout (recorded on its own, as the refused payout's transaction wrote nothing),
 * sent it to review (recorded in the transaction that holds it), or held a credit (in the transaction that posts it).
 */
export function recordVelocityTriggered(
  trx: Trx,
  triggered: { tenantId: string; accountRef: string; amount: Kobo } & Triggered,
): Promise<string> {
  const { tenantId, verdict, accountRef, amount } = triggered;
  return recordChange(trx, {
    kind: 'velocity_rule_triggered',
    tenantId,
    ruleId: verdict.rule.id,
    action: verdict.action,
    subject: verdict.rule.subject,
    accountRef,
    amount,
    merchantTxRef: 'merchantTxRef' in triggered ? triggered.merchantTxRef : null,
    transactionGroupId: 'transactionGroupId' in triggered ? triggered.transactionGroupId : null,
    message: verdict.action === 'review' ? null : verdict.message,
  });
}
