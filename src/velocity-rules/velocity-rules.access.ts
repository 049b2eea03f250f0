import type { DbOrTrx, Trx } from '../db';
import { recordChange } from '../events/change-events';
import type { Kobo } from '../money';
import { payoutVelocity, type VelocityVerdict } from '../policies/velocity/velocity-rules';
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

/**
 * Tells the tenant a rule refused a payout (recorded on its own, as the refused payout's transaction wrote nothing)
 * or sent it to review (recorded in the transaction that holds it).
 */
export function recordVelocityTriggered(
  trx: Trx,
  triggered: {
    tenantId: string;
    verdict: Exclude<VelocityVerdict, { action: 'allow' }>;
    accountRef: string;
    amount: Kobo;
    merchantTxRef: string | null;
  },
): Promise<string> {
  const { tenantId, verdict, accountRef, amount, merchantTxRef } = triggered;
  return recordChange(trx, {
    kind: 'velocity_rule_triggered',
    tenantId,
    ruleId: verdict.rule.id,
    action: verdict.action,
    accountRef,
    amount,
    merchantTxRef,
    message: verdict.action === 'refuse' ? verdict.message : null,
  });
}
