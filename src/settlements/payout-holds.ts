import { findAccountByRef } from '../accounts/accounts.access';
import { approvalPolicyOf } from '../approval-policies/approval-policies.access';
import { API_KEY_ACTOR, createAuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import { requireTenantCustomer } from '../customers/customers.access';
import type { Db } from '../db';
import { AccountFrozenError, ForbiddenError, NotFoundError } from '../errors';
import type { EventedLedger } from '../events/ledger-events';
import { recordChange } from '../events/change-events';
import { createIdempotencyRepo, type IdempotencyRecord } from '../idempotency/idempotency.repo';
import { createReservations } from '../ledger/reservations';
import { formatKobo, type Kobo } from '../money';
import { accountMayPayOut, frozenRefusal } from '../policies/account-freeze/account-freeze';
import { customerMayMoveMoney } from '../policies/customer-standing/customer-standing';
import {
  DEFAULT_APPROVAL_EXPIRY_SECONDS,
  payoutApproval,
  type ApprovalDecision,
  type ApprovalReason,
} from '../policies/payout-approval/payout-approval';
import { sweepPayoutApproval } from '../policies/payout-approval/transfer-and-sweep-approval';
import { recordVelocityTriggered, type PayoutVelocity } from '../velocity-rules/velocity-rules.access';
import { createPayoutApprovalsRepo } from './payout-approvals.repo';
import { SWEEP_ACTOR, type PayoutMaker } from './payout-maker';
import type { PayoutVelocityCheck } from './payout-velocity';
import { NothingMade, type AcceptedSettlement, type OnCreated, type VelocityBail } from './settle-outcomes';
import type { InitiationResult, SettlementDraft } from './settlement-initiation.repo';

/** The destination and amount of a payout the approval policy judges. */
interface JudgedPayout {
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
}

/**
 * Payouts the tenant's approval policy (or a velocity rule's review) holds before they become settlements: whether one
 * is held, for how long, and holding it.
 */
export function createPayoutHolds(deps: {
  db: Db;
  config: Pick<Config, 'SETTLEMENT_FUNDS'>;
  postingEngine: Pick<EventedLedger, 'insufficientFunds'>;
  velocityCheck: PayoutVelocityCheck;
  /** A retry under an Idempotency-Key already claimed: what the key made, if the request is the same. */
  answerClaimed: (tenantId: string, claimed: IdempotencyRecord | undefined, asSent: object) => Promise<AcceptedSettlement>;
}) {
  const { db, config, postingEngine, velocityCheck, answerClaimed } = deps;

  /** How long a payout sent to review waits: the approval policy's expiry, or the default when it has none. */
  async function approvalExpiry(tenantId: string): Promise<number> {
    return (await approvalPolicyOf(db, tenantId))?.expiresAfterSeconds ?? DEFAULT_APPROVAL_EXPIRY_SECONDS;
  }

  /** What the tenant's approval policy says of a payout its maker asks for. */
  async function approvalDecision(tenantId: string, request: JudgedPayout, maker: PayoutMaker): Promise<ApprovalDecision> {
    const policy = await approvalPolicyOf(db, tenantId);
    if (maker.kind === 'balance_sweep') return sweepPayoutApproval(policy);
    if (!policy) return { required: false };
    const firstToDestination =
      policy.newDestination &&
      !(await createPayoutApprovalsRepo(db).destinationPaidBefore(tenantId, request.bankCode, request.accountNumber));
    return payoutApproval(policy, { amount: request.amount, firstToDestination });
  }

  /**
   * Holds a payout for approval: in one transaction, claims the Idempotency-Key, reserves its amount on the account (a
   * `payout_approval` reservation, only if the account may spend it now, as the settlement's debit would judge it)
   * until its expiry, and records the approval, its `settlement.awaiting_approval` and the caller's `onCreated`.
   */
  async function holdForApproval(
    draft: SettlementDraft & { asSent: object },
    decision: Extract<ApprovalDecision, { required: true }>,
    maker: PayoutMaker,
    onCreated: OnCreated | undefined,
    velocity: PayoutVelocity | undefined,
  ): Promise<AcceptedSettlement> {
    const { tenantId, accountRef, merchantTxRef, amount, idempotencyKey } = draft;
    const accepted: AcceptedSettlement = {
      merchantTxRef,
      status: 'awaiting_approval',
      amount,
      currency: 'NGN',
      accountRef,
      metadata: draft.metadata,
    };
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    const expiresAt = new Date(Date.now() + decision.expiresAfterSeconds * 1000);
    const outcome = await db
      .transaction(async (trx): Promise<InitiationResult | VelocityBail> => {
        const verdict = velocity ? await velocityCheck.judge(trx, velocity, draft, account.id) : undefined;
        if (verdict?.action === 'refuse') throw new NothingMade({ kind: 'velocity_refused', verdict });
        if (idempotencyKey !== null) {
          const { claimed } = await createIdempotencyRepo(trx).claim({
            tenant_id: tenantId,
            scope: 'settlement',
            key: idempotencyKey,
            request_hash: draft.requestHash,
            resource_ref: merchantTxRef,
          });
          if (!claimed) throw new NothingMade({ kind: 'key_taken' });
        }
        const reserved = await createReservations(trx).reserveSpendable(
          { accountId: account.id, kind: 'payout_approval', reason: 'awaiting_approval', ownerId: draft.id, amount, expiresAt },
          config.SETTLEMENT_FUNDS,
        );
        // Judged as the settlement's debit judges them, on the rows reserveSpendable locked: the customer first, then the funds.
        if (!customerMayMoveMoney((await requireTenantCustomer(trx, tenantId, account.customerId)).status))
          throw new NothingMade({ kind: 'customer_suspended' });
        // A debit freeze refuses the payout now, as the settlement's debit would, rather than leaving it held to no end.
        const freeze = (await findAccountByRef(trx, tenantId, accountRef))?.freeze ?? null;
        if (freeze && !accountMayPayOut(freeze.frozenFor))
          throw new NothingMade({ kind: 'account_frozen', frozenFor: freeze.frozenFor, reason: freeze.reason });
        if (reserved === undefined) throw new NothingMade({ kind: 'insufficient_funds', accountId: account.id });
        // A velocity rule's review adds its reason; a payout sent here by one keeps it, even if its window cleared since.
        const reasons: ApprovalReason[] =
          verdict?.action === 'review' || decision.reasons.length === 0 ? [...decision.reasons, 'velocity'] : decision.reasons;
        await createPayoutApprovalsRepo(trx).insert({
          id: draft.id,
          tenantId,
          accountId: account.id,
          merchantTxRef,
          amount,
          bankCode: draft.bankCode,
          accountNumber: draft.accountNumber,
          narration: draft.narration,
          accountName: draft.accountName,
          beneficiaryId: draft.beneficiaryId,
          metadata: draft.metadata,
          reasons,
          makerUserId: maker.kind === 'user' ? maker.user.id : null,
          makerApiKeyId: maker.kind === 'api_key' ? maker.apiKeyId : null,
          expiresAt,
        });
        if (maker.kind === 'api_key')
          await createAuditLog(trx).recordAs(
            tenantId,
            API_KEY_ACTOR,
            'settlement.initiated',
            { type: 'settlement', id: merchantTxRef },
            { accountRef, amount: formatKobo(amount), apiKeyId: maker.apiKeyId, awaitingApproval: reasons },
          );
        if (maker.kind === 'balance_sweep')
          await createAuditLog(trx).recordAs(
            tenantId,
            SWEEP_ACTOR,
            'settlement.initiated',
            { type: 'settlement', id: merchantTxRef },
            { accountRef, amount: formatKobo(amount), awaitingApproval: reasons },
          );
        await onCreated?.(trx, accepted);
        if (verdict?.action === 'review') await recordVelocityTriggered(trx, { tenantId, verdict, accountRef, amount, merchantTxRef });
        await recordChange(trx, {
          kind: 'payout_awaiting_approval',
          tenantId,
          merchantTxRef,
          accountRef,
          amount,
          reasons,
          expiresAt,
        });
        return { kind: 'created' };
      })
      .catch((error: unknown) => {
        if (error instanceof NothingMade) return error.result;
        throw error;
      });
    switch (outcome.kind) {
      case 'customer_suspended':
        throw new ForbiddenError('customer suspended');
      case 'account_frozen':
        throw new AccountFrozenError(frozenRefusal(accountRef, outcome));
      case 'velocity_refused':
        throw await velocityCheck.refusal(outcome.verdict, draft);
      case 'insufficient_funds':
        throw await postingEngine.insufficientFunds(db, outcome.accountId, config.SETTLEMENT_FUNDS);
      case 'key_taken':
        return answerClaimed(tenantId, await createIdempotencyRepo(db).find(tenantId, 'settlement', idempotencyKey!), draft.asSent);
      case 'created':
        return accepted;
      default:
        throw new Error(`unexpected hold outcome ${outcome.kind}`);
    }
  }

  return { approvalExpiry, approvalDecision, holdForApproval };
}

export type PayoutHolds = ReturnType<typeof createPayoutHolds>;
