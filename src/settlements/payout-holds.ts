import { findAccountByRef } from '../accounts/accounts.access';
import { approvalPolicyOf } from '../approval-policies/approval-policies.access';
import { API_KEY_ACTOR, createAuditLog } from '../audit/audit-log';
import type { Config } from '../config';
import { requireTenantCustomer } from '../customers/customers.access';
import type { Jobs } from '../contracts/jobs';
import type { Db, Trx } from '../db';
import { AccountFrozenError, AppError, ForbiddenError, NotFoundError } from '../errors';
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
import { recordVelocityTriggered, type PayoutVelocity, type VelocityVerdict } from '../velocity-rules/velocity-rules.access';
import { createOutboxRepo } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { createPayoutApprovalsRepo } from './payout-approvals.repo';
import { SWEEP_ACTOR, type PayoutMaker } from './payout-maker';
import type { PayoutVelocityCheck } from './payout-velocity';
import { NothingMade, type AcceptedSettlement, type OnCreated, type VelocityBail } from './settle-outcomes';
import { createScheduledPayoutsRepo } from './scheduled-payouts.repo';
import type { InitiationResult, SettlementDraft } from './settlement-initiation.repo';

/** A payout the approval policy (or a velocity rule's review) would hold cannot wait for a person and for a date both. */
export const scheduledNeedsApproval = (): AppError =>
  new AppError(
    'conflict',
    'approval_required',
    "this payout needs a second person's approval under the tenant's approval policy, and a payout awaiting approval cannot be scheduled: send it without scheduledFor",
  );

/** The destination and amount of a payout the approval policy judges. */
interface JudgedPayout {
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
}

/** What a payout set aside keeps of its draft, whether held for approval or scheduled: where it pays, and who made it. */
function setAsideRowOf(draft: SettlementDraft, accountId: string, maker: PayoutMaker) {
  return {
    id: draft.id,
    tenantId: draft.tenantId,
    accountId,
    merchantTxRef: draft.merchantTxRef,
    amount: draft.amount,
    bankCode: draft.bankCode,
    accountNumber: draft.accountNumber,
    narration: draft.narration,
    accountName: draft.accountName,
    beneficiaryId: draft.beneficiaryId,
    metadata: draft.metadata,
    makerUserId: maker.kind === 'user' ? maker.user.id : null,
    makerApiKeyId: maker.kind === 'api_key' ? maker.apiKeyId : null,
  };
}

/**
 * Payouts set aside before they become settlements, their money reserved: those the tenant's approval policy (or a
 * velocity rule's review) holds (whether one is held, for how long, and holding it), and those scheduled for a date.
 */
export function createPayoutHolds(deps: {
  db: Db;
  config: Pick<Config, 'SETTLEMENT_FUNDS'>;
  postingEngine: Pick<EventedLedger, 'insufficientFunds'>;
  velocityCheck: PayoutVelocityCheck;
  jobs: Pick<Jobs, 'scheduledPayout'>;
  starter: Pick<WorkflowStarter, 'kick'>;
  /** A retry under an Idempotency-Key already claimed: what the key made, if the request is the same. */
  answerClaimed: (tenantId: string, claimed: IdempotencyRecord | undefined, asSent: object) => Promise<AcceptedSettlement>;
}) {
  const { db, config, postingEngine, velocityCheck, jobs, starter, answerClaimed } = deps;

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
   * Sets a payout aside before it becomes a settlement: in one transaction, judges it by the tenant's velocity rules
   * (`velocity`), claims the Idempotency-Key, reserves its amount on the account (only if the account may spend it now,
   * as the settlement's debit would judge it) and has `keep` record what keeps it (its row, audit entry and event), then
   * the caller's `onCreated`. A refusal is the settle's own 4xx; a velocity review is left to `keep`.
   */
  async function setAside(
    draft: SettlementDraft & { asSent: object },
    aside: {
      accepted: AcceptedSettlement;
      reservation:
        { kind: 'payout_approval'; reason: 'awaiting_approval'; expiresAt: Date } | { kind: 'scheduled_payout'; reason: 'scheduled' };
      keep: (trx: Trx, accountId: string, verdict: VelocityVerdict | undefined) => Promise<void>;
      /** What a velocity review of a payout that cannot wait for review answers (a hold turns a review into its reason instead). */
      reviewRefusal?: () => AppError;
    },
    onCreated: OnCreated | undefined,
    velocity: PayoutVelocity | undefined,
  ): Promise<AcceptedSettlement> {
    const { tenantId, accountRef, merchantTxRef, amount, idempotencyKey } = draft;
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    const outcome = await db
      .transaction(async (trx): Promise<InitiationResult | VelocityBail> => {
        const verdict = velocity ? await velocityCheck.judge(trx, velocity, draft, account.id) : undefined;
        if (verdict?.action === 'refuse') throw new NothingMade({ kind: 'velocity_refused', verdict });
        if (verdict?.action === 'review' && aside.reviewRefusal) throw new NothingMade({ kind: 'velocity_review', verdict });
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
          { accountId: account.id, ownerId: draft.id, amount, ...aside.reservation },
          config.SETTLEMENT_FUNDS,
        );
        // Judged as the settlement's debit judges them, on the rows reserveSpendable locked: the customer first, then the funds.
        if (!customerMayMoveMoney((await requireTenantCustomer(trx, tenantId, account.customerId)).status))
          throw new NothingMade({ kind: 'customer_suspended' });
        // A debit freeze refuses the payout now, as the settlement's debit would, rather than leaving it set aside to no end.
        const freeze = (await findAccountByRef(trx, tenantId, accountRef))?.freeze ?? null;
        if (freeze && !accountMayPayOut(freeze.frozenFor))
          throw new NothingMade({ kind: 'account_frozen', frozenFor: freeze.frozenFor, reason: freeze.reason });
        if (reserved === undefined) throw new NothingMade({ kind: 'insufficient_funds', accountId: account.id });
        await aside.keep(trx, account.id, verdict);
        await onCreated?.(trx, aside.accepted);
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
      case 'velocity_review':
        throw aside.reviewRefusal!();
      case 'insufficient_funds':
        throw await postingEngine.insufficientFunds(db, outcome.accountId, config.SETTLEMENT_FUNDS);
      case 'key_taken':
        return answerClaimed(tenantId, await createIdempotencyRepo(db).find(tenantId, 'settlement', idempotencyKey!), draft.asSent);
      case 'created':
        return aside.accepted;
      default:
        throw new Error(`unexpected set-aside outcome ${outcome.kind}`);
    }
  }

  /** The audit entry of a payout an API key or a balance sweep asked for (a user's is the dashboard's own), with `detail`. */
  async function auditMade(trx: Trx, maker: PayoutMaker, draft: SettlementDraft, detail: Record<string, unknown>): Promise<void> {
    const { tenantId, accountRef, merchantTxRef, amount } = draft;
    const target = { type: 'settlement', id: merchantTxRef };
    if (maker.kind === 'api_key')
      await createAuditLog(trx).recordAs(tenantId, API_KEY_ACTOR, 'settlement.initiated', target, {
        accountRef,
        amount: formatKobo(amount),
        apiKeyId: maker.apiKeyId,
        ...detail,
      });
    if (maker.kind === 'balance_sweep')
      await createAuditLog(trx).recordAs(tenantId, SWEEP_ACTOR, 'settlement.initiated', target, {
        accountRef,
        amount: formatKobo(amount),
        ...detail,
      });
  }

  /**
   * Holds a payout for approval (see setAside): a `payout_approval` reservation until its expiry, the approval's row, its
   * `settlement.awaiting_approval`; a velocity rule's review adds its reason.
   */
  async function holdForApproval(
    draft: SettlementDraft & { asSent: object },
    decision: Extract<ApprovalDecision, { required: true }>,
    maker: PayoutMaker,
    onCreated: OnCreated | undefined,
    velocity: PayoutVelocity | undefined,
  ): Promise<AcceptedSettlement> {
    const { tenantId, accountRef, merchantTxRef, amount } = draft;
    const expiresAt = new Date(Date.now() + decision.expiresAfterSeconds * 1000);
    const accepted: AcceptedSettlement = {
      merchantTxRef,
      status: 'awaiting_approval',
      amount,
      currency: 'NGN',
      accountRef,
      metadata: draft.metadata,
    };
    const keep = async (trx: Trx, accountId: string, verdict: VelocityVerdict | undefined): Promise<void> => {
      // A velocity rule's review adds its reason; a payout sent here by one keeps it, even if its window cleared since.
      const reasons: ApprovalReason[] =
        verdict?.action === 'review' || decision.reasons.length === 0 ? [...decision.reasons, 'velocity'] : decision.reasons;
      await createPayoutApprovalsRepo(trx).insert({ ...setAsideRowOf(draft, accountId, maker), reasons, expiresAt });
      await auditMade(trx, maker, draft, { awaitingApproval: reasons });
      if (verdict?.action === 'review') await recordVelocityTriggered(trx, { tenantId, verdict, accountRef, amount, merchantTxRef });
      await recordChange(trx, { kind: 'payout_awaiting_approval', tenantId, merchantTxRef, accountRef, amount, reasons, expiresAt });
    };
    return setAside(
      draft,
      { accepted, reservation: { kind: 'payout_approval', reason: 'awaiting_approval', expiresAt }, keep },
      onCreated,
      velocity,
    );
  }

  /**
   * Schedules a payout for `scheduledFor` (see setAside): a `scheduled_payout` reservation with no expiry, the scheduled
   * payout's row, its `settlement.scheduled`, and its workflow's start (after the commit), which makes it the settlement
   * at that time. A velocity rule's review refuses it: a payout on a date does not wait for a review.
   */
  async function scheduleForLater(
    draft: SettlementDraft & { asSent: object },
    scheduledFor: Date,
    maker: PayoutMaker,
    onCreated: OnCreated | undefined,
    velocity: PayoutVelocity | undefined,
  ): Promise<AcceptedSettlement> {
    const { tenantId, accountRef, merchantTxRef, amount } = draft;
    const accepted: AcceptedSettlement = {
      merchantTxRef,
      status: 'pending',
      amount,
      currency: 'NGN',
      accountRef,
      metadata: draft.metadata,
      schedule: { scheduledFor, state: 'scheduled', refusal: null },
    };
    const job = jobs.scheduledPayout({ merchantTxRef, tenantId, accountRef, scheduledFor });
    const keep = async (trx: Trx, accountId: string): Promise<void> => {
      await createScheduledPayoutsRepo(trx).insert({ ...setAsideRowOf(draft, accountId, maker), scheduledFor });
      await auditMade(trx, maker, draft, { scheduledFor: scheduledFor.toISOString() });
      await recordChange(trx, { kind: 'payout_scheduled', tenantId, merchantTxRef, accountRef, amount, scheduledFor });
      await createOutboxRepo(trx).enqueue([job]);
    };
    const made = await setAside(
      draft,
      { accepted, reservation: { kind: 'scheduled_payout', reason: 'scheduled' }, keep, reviewRefusal: scheduledNeedsApproval },
      onCreated,
      velocity,
    );
    // Started only by the request that made it: a replay under its key answers what it made.
    if (made === accepted) starter.kick([job]);
    return made;
  }

  return { approvalExpiry, approvalDecision, holdForApproval, scheduleForLater };
}

export type PayoutHolds = ReturnType<typeof createPayoutHolds>;
