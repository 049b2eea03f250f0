import { findAccountByRef, type AccountRecord } from '../accounts/accounts.access';
import { API_KEY_ACTOR, createAuditLog, type AuditActor } from '../audit/audit-log';
import type { Db, Trx } from '../db';
import { BadRequestError, NotFoundError, ValidationError } from '../errors';
import type { InternalTransfersService } from '../internal-transfers/internal-transfers.service';
import type { SplitPartToTakeBack } from '../ledger/posting-engine';
import { formatKobo, type Kobo } from '../money';
import { splitMoves, type SplitPart } from '../policies/split-rule/split-parts';
import { createSplitRulesRepo, type RecordedMove, type SplitRule } from './split-rules.repo';
import type { SplitRuleBody } from './split-rules.schemas';

export type { SplitRule };

/** A payment credit the confirmation round has just confirmed, as a split reads it. */
export interface ConfirmedCredit {
  entryId: string;
  accountId: string;
  /** The net amount credited (the payment less the provider's fee). */
  amount: Kobo;
  fee: Kobo;
  /** What of the credit the customer's KYC limits hold. */
  held: Kobo;
  providerTxnRef: string;
}

/** Records a change of a rule in the change's transaction: by a dashboard user, or by one of the tenant's API keys. */
function audit(
  trx: Trx,
  tenantId: string,
  by: AuditActor | undefined,
  action: 'split_rule.set' | 'split_rule.removed',
  accountRef: string,
  detail: Record<string, unknown>,
): Promise<void> {
  const log = createAuditLog(trx);
  const target = { type: 'account', id: accountRef };
  return by ? log.record(by, action, target, detail) : log.recordAs(tenantId, API_KEY_ACTOR, action, target, detail);
}

/** A split rule's accounts must be ones that can receive and pay: not expired. */
function requireActiveAccount(account: AccountRecord): void {
  if (account.status !== 'active') throw new ValidationError(`account ${account.accountRef} is ${account.status}`);
}

/**
 * Split rules: a tenant's standing instruction to move parts of every payment an account receives to other
 * accounts of the tenant, when the payment is confirmed (never a provisional or reversed credit). The moves are
 * transfers (listed with the account's transfers, each with its event), in the confirmation's own transaction (see
 * moveConfirmed).
 */
export function createSplitRulesService(deps: { db: Db; transfers: Pick<InternalTransfersService, 'moveSplitPart' | 'entriesOf'> }) {
  const { db, transfers } = deps;

  async function accountOf(tenantId: string, accountRef: string): Promise<AccountRecord> {
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    return account;
  }

  async function ruleOf(tenantId: string, accountRef: string): Promise<SplitRule> {
    const account = await accountOf(tenantId, accountRef);
    const rule = (await createSplitRulesRepo(db).rulesOf([account.id])).get(account.id);
    if (!rule) throw new NotFoundError('split rule not found');
    return rule;
  }

  return {
    /** Sets (or replaces) the account's split rule; audited with who set it (a dashboard user, else the API key). */
    async put(tenantId: string, accountRef: string, body: SplitRuleBody, by?: AuditActor): Promise<SplitRule> {
      const account = await accountOf(tenantId, accountRef);
      requireActiveAccount(account);
      const refs = body.parts.map((part) => part.toAccountRef);
      if (refs.includes(accountRef)) throw new ValidationError('a split part cannot pay the account itself');
      if (new Set(refs).size !== refs.length) throw new ValidationError('each account may appear in one part only');
      const totalBasisPoints = body.parts.reduce((sum, part) => sum + (part.percent === undefined ? 0 : Math.round(part.percent * 100)), 0);
      if (totalBasisPoints > 10_000) throw new ValidationError('the parts add up to more than 100 percent');
      const parts: SplitPart[] = [];
      for (const part of body.parts) {
        const target = await findAccountByRef(db, tenantId, part.toAccountRef);
        if (!target) throw new NotFoundError('account not found');
        requireActiveAccount(target);
        parts.push({
          toAccountId: target.id,
          basisPoints: part.percent === undefined ? null : Math.round(part.percent * 100),
          amount: part.amount ?? null,
        });
      }
      await db.transaction(async (trx) => {
        await createSplitRulesRepo(trx).replace({ accountId: account.id, tenantId, feeBearer: body.feeBearer, parts });
        await audit(trx, tenantId, by, 'split_rule.set', accountRef, {
          feeBearer: body.feeBearer,
          parts: body.parts.map((part) => ({ ...part, amount: part.amount === undefined ? undefined : formatKobo(part.amount) })),
        });
      });
      return ruleOf(tenantId, accountRef);
    },

    get: ruleOf,

    async remove(tenantId: string, accountRef: string, by?: AuditActor): Promise<void> {
      const account = await accountOf(tenantId, accountRef);
      await db.transaction(async (trx) => {
        if (!(await createSplitRulesRepo(trx).remove(account.id))) throw new NotFoundError('split rule not found');
        await audit(trx, tenantId, by, 'split_rule.removed', accountRef, {});
      });
    },

    /**
     * The rules of the accounts a confirmation round confirms into, keyed by account id; with `trx`, share-locked
     * in it, so the rules the round locks its accounts for are the rules it applies.
     */
    rulesOf(accountIds: string[], trx?: Trx): Promise<Map<string, SplitRule>> {
      return createSplitRulesRepo(trx ?? db).rulesOf(accountIds, { locked: trx !== undefined });
    },

    /**
     * Moves the split parts of credits just confirmed, inside the confirmation's transaction `trx`, under `rules`
     * (read and share-locked in it, every account they name locked by the caller). Each part is a transfer
     * (spending confirmed money only, as every transfer), taken only from the payment's own unheld money; a part
     * that cannot move (money of the payment held by the customer's KYC limits, an account in deficit, the daily
     * payout limit, an expired receiving account or a suspended customer on either side) is recorded as not
     * moved with the reason, and the confirmation stands. The paying account's own closing does not stop its
     * parts: a checkout account's completing payment closes it as it is confirmed, and is split. Returns the
     * moves recorded.
     */
    async moveConfirmed(trx: Trx, credits: ConfirmedCredit[], rules: Map<string, SplitRule>): Promise<RecordedMove[]> {
      const repo = createSplitRulesRepo(trx);
      const recorded: RecordedMove[] = [];
      for (const credit of credits) {
        const rule = rules.get(credit.accountId);
        if (!rule) continue;
        const moves: RecordedMove[] = [];
        for (const move of splitMoves(rule.parts, rule.feeBearer, { net: credit.amount, fee: credit.fee, held: credit.held })) {
          try {
            const transfer = await transfers.moveSplitPart(trx, {
              tenantId: rule.tenantId,
              fromAccountId: credit.accountId,
              toAccountId: move.toAccountId,
              amount: move.amount,
              paymentReference: credit.providerTxnRef,
            });
            moves.push({ ...move, transferId: transfer.id, notMovedReason: null });
          } catch (error) {
            // Every refusal of a transfer is found before it writes anything.
            if (!(error instanceof BadRequestError)) throw error;
            moves.push({ ...move, transferId: null, notMovedReason: error.message });
          }
        }
        await repo.recordMoves(rule.tenantId, credit.entryId, credit.accountId, moves);
        recorded.push(...moves);
      }
      return recorded;
    },

    /**
     * The parts of a confirmed credit's split that moved and are not taken back yet, each with the two entries of
     * its transfer, in the caller's transaction (locked in it): what taking the credit back takes from the accounts
     * that received them first (see the posting engine's compensateCredit).
     */
    async movedParts(trx: Trx, paymentEntryId: string): Promise<Array<SplitPartToTakeBack & { position: number }>> {
      const moved = await createSplitRulesRepo(trx).movedNotTakenBack(paymentEntryId);
      const entries = await transfers.entriesOf(
        trx,
        moved.map((part) => part.transferId),
      );
      return moved.map((part) => {
        const transfer = entries.get(part.transferId);
        if (!transfer) throw new Error(`split transfer ${part.transferId} has no ledger entries`);
        return { position: part.position, accountId: part.toAccountId, amount: part.amount, ...transfer };
      });
    },

    /** Records which moved parts of a payment were taken back, each with the receiver's debit that took it. */
    async recordTakenBack(trx: Trx, paymentEntryId: string, taken: Array<{ position: number; entryId: string }>): Promise<void> {
      const repo = createSplitRulesRepo(trx);
      for (const part of taken) await repo.recordTakenBack(paymentEntryId, part.position, part.entryId);
    },
  };
}

export type SplitRulesService = ReturnType<typeof createSplitRulesService>;
