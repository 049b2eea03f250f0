import { findAccountByRef } from '../accounts/accounts.access';
import { approvalPolicyOf } from '../approval-policies/approval-policies.access';
import { requireTenantCustomer } from '../customers/customers.access';
import { customerMayMoveMoney } from '../policies/customer-standing/customer-standing';
import { API_KEY_ACTOR, createAuditLog, type AuditActor } from '../audit/audit-log';
import { recordChange } from '../events/change-events';
import type { EndedReservations } from '../ledger/ledger-results';
import { createReservations } from '../ledger/reservations';
import {
  DEFAULT_APPROVAL_EXPIRY_SECONDS,
  payoutApproval,
  type ApprovalDecision,
  type ApprovalReason,
} from '../policies/payout-approval/payout-approval';
import { sweepPayoutApproval } from '../policies/payout-approval/transfer-and-sweep-approval';
import { createPayoutApprovalsRepo, type PayoutApprovalRecord, type PayoutApprovalStatus } from './payout-approvals.repo';
import {
  payoutVelocityOf,
  recordVelocityTriggered,
  type PayoutVelocity,
  type VelocityVerdict,
} from '../velocity-rules/velocity-rules.access';
import { sameAccountName } from '../account-names';
import type { BeneficiariesService, PayoutDestination } from '../beneficiaries/beneficiaries.service';
import type { Config } from '../config';
import type { Db, DbOrTrx, Trx } from '../db';
import {
  AccountFrozenError,
  AppError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  invalidAmount,
  NotFoundError,
  ValidationError,
} from '../errors';
import { createIdempotencyRepo, type IdempotencyRecord } from '../idempotency/idempotency.repo';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import type { OutboxEntry } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { DailyPayoutLimitError } from '../ledger/posting-engine';
import { dailyPayoutRefusal } from '../policies/kyc-limits/daily-payout-limit';
import { accountMayPayOut, frozenRefusal } from '../policies/account-freeze/account-freeze';
import { settlementDebit } from '../ledger/postings';
import type { Logger } from '../logger';
import { formatKobo, type Kobo } from '../money';
import { ProviderRejectedError } from '../provider/errors';
import { lookupWithRetries } from '../provider/lookup-retry';
import type { PaymentProvider } from '../provider/payment-provider';
import type { ProviderAccountName, ProviderBank } from '../provider/provider.types';
import type { RateLimits } from '../rate-limits/rate-limits';
import type { BankDirectory } from './bank-directory';
import { baseReference, newMerchantTxRef } from './merchant-tx-ref';
import type { EventedLedger } from '../events/ledger-events';
import { createSettlementInitiationRepo, type InitiationResult, type SettlementDraft } from './settlement-initiation.repo';
import { createSettlementsRepo, type SettlementRecord } from './settlements.repo';
import type { PayoutSignal, PayoutSignalType } from '../contracts/settlement.contract';
import type { SettleBody } from './settlements.schemas';
import type { Metadata } from '../http/metadata';

interface SettleRequest {
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
  narration?: string | undefined;
  metadata?: Metadata | undefined;
}

interface BeneficiarySettleRequest {
  amount: Kobo;
  beneficiaryId: string;
  narration?: string | undefined;
  metadata?: Metadata | undefined;
}

/** A settle's answer: the settlement made (`pending`), or the payout the approval policy holds (`awaiting_approval`, or what became of it). */
export type AcceptedSettlement = Pick<SettlementRecord, 'merchantTxRef' | 'amount' | 'currency' | 'accountRef' | 'metadata'> & {
  status: SettlementRecord['status'] | Exclude<PayoutApprovalStatus, 'approved'>;
};

/**
 * Who asked for a payout: a dashboard user or one of the tenant's API keys, or a balance sweep's run. Only a payout with
 * a maker is judged by the tenant's approval policy (a batch's items and a return of held money are not), and a maker
 * never approves their own. A sweep's payout is judged only by the policy's `sweeps` (and by no velocity rule): nobody
 * asked for it then, so any approver may approve it.
 */
export type PayoutMaker = { kind: 'user'; user: AuditActor } | { kind: 'api_key'; apiKeyId: string } | { kind: 'balance_sweep' };

/** The audit log's actor for a payout a balance sweep made. */
const SWEEP_ACTOR = 'balance sweep';

/** Runs inside the transaction that made the settlement, only when it made one (never on a replay). */
type OnCreated = (trx: DbOrTrx, settlement: AcceptedSettlement) => Promise<void>;

/**
 * Runs inside the transaction, before the statement that posts the settlement's debit (`debitEntryId`):
 * a return of held money releases the hold here, so the debit can spend it under the same lock; an approved
 * payout or batch item posts its reservation here, so the debit spends the money kept for it.
 */
export type BeforeDebit = (trx: Trx, debit: { debitEntryId: string; merchantTxRef: string }) => Promise<void>;

interface InitiateOptions {
  onCreated?: OnCreated;
  beforeDebit?: BeforeDebit;
  /** Pays held money back to its payer: outside the daily payout limit (neither counted nor refused by it). */
  returnToSender?: boolean;
  /** The caller already counted this request against the settlements limit. */
  counted?: boolean;
  /**
   * The provider's name for the destination, looked up by the caller just before: the settlement keeps it,
   * so its workflow pays that name rather than looking the destination up again.
   */
  accountName?: string;
  /** The saved beneficiary the settlement pays (its destination and name are the request's). */
  beneficiaryId?: string;
  /** The request as its caller sent it, when that is not `request`: what an Idempotency-Key's hash covers. */
  requestAsSent?: object;
  /** Who asked for it: the approval policy judges it (see PayoutMaker). */
  maker?: PayoutMaker;
  /** The reference the settlement keeps: the one an approved payout was given while it waited. */
  merchantTxRef?: string;
}

class AccountNameChangedError extends AppError {
  constructor(confirmed: string, current: string) {
    super(
      'conflict',
      'account_name_mismatch',
      `the destination account is now named "${current}", not "${confirmed}" as confirmed: look it up again and confirm the name`,
    );
  }
}

type VelocityRefusal = Extract<VelocityVerdict, { action: 'refuse' }>;

/** A velocity rule's verdict that makes no settlement: the payout is refused, or goes to review (held for approval). */
type VelocityBail =
  | { kind: 'velocity_refused'; verdict: VelocityRefusal }
  | { kind: 'velocity_review'; verdict: Extract<VelocityVerdict, { action: 'review' }> };

/** Rolls a keyed initiation back when it made no settlement, carrying the reason out of the transaction. */
class NothingMade extends Error {
  constructor(readonly result: InitiationResult | VelocityBail) {
    super(result.kind);
  }
}

/** Wakes a running settlement workflow; implemented over the Temporal client, best effort. */
type SettlementSignaller = (merchantTxRef: string, signal: PayoutSignal) => Promise<void>;

/** The audit log's actor for a held payout nobody decided in time. */
const EXPIRY_ACTOR = 'approval expiry';

/** Same code as when the request schema finds it, so clients see one error for one condition. */
const invalidBankCode = (): ValidationError => new ValidationError('invalid bank code');

export function createSettlementsService(deps: {
  db: Db;
  config: Pick<Config, 'MAX_AMOUNT' | 'SETTLEMENT_FUNDS' | 'REQUEST_HASH_SECRET' | 'PROVIDER_LOOKUP_RETRY_BUDGET'>;
  postingEngine: Pick<EventedLedger, 'debitSettlementAmong' | 'insufficientFunds' | 'lockAccounts'>;
  logger: Logger;
  provider: PaymentProvider;
  banks: BankDirectory;
  jobs: Jobs;
  starter: WorkflowStarter;
  /** Per tenant, here rather than in a route, so every client of the service (API key or dashboard) counts. */
  limits: Pick<RateLimits, 'settlements' | 'nameLookups'>;
  signal: SettlementSignaller;
  /** Where a settlement naming a beneficiary pays; wired lazily, as beneficiaries ask this service for names. */
  beneficiaries: () => Pick<BeneficiariesService, 'find' | 'forPayout'>;
}) {
  const { db, config, postingEngine, logger, provider, banks, jobs, starter, limits, signal, beneficiaries } = deps;
  const settlements = createSettlementsRepo(db);

  async function requireKnownBank(bankCode: string): Promise<void> {
    if (!(await banks.has(bankCode))) throw invalidBankCode();
  }

  /**
   * What a settle checks before it writes anything, in its order, each refusal the settle's own 4xx: the
   * amount's ceiling; the account (an unknown one is the caller's first mistake: named before the destination,
   * and before the bank check may need the provider's bank list); the destination `resolve` gives (a bank code
   * as sent, or a saved beneficiary's); and that its bank is on the provider's list. Every settle and the
   * batch dry run run these same checks, so a dry run answers what the settle would.
   */
  async function checkBeforeSettling<Destination extends { bankCode: string }>(
    tenantId: string,
    accountRef: string,
    amount: Kobo,
    resolve: () => Promise<Destination>,
  ): Promise<Destination> {
    if (amount > config.MAX_AMOUNT) throw invalidAmount();
    if (!(await findAccountByRef(db, tenantId, accountRef))) throw new NotFoundError('account not found');
    const destination = await resolve();
    await requireKnownBank(destination.bankCode);
    return destination;
  }

  /**
   * The provider's name for the account, or null when the bank has no account of that number; asked again
   * within PROVIDER_LOOKUP_RETRY_BUDGET while the provider leaves it unanswered, then `503` with Retry-After.
   */
  async function findAtProvider(accountNumber: string, bankCode: string): Promise<ProviderAccountName | null> {
    await requireKnownBank(bankCode);
    try {
      return await lookupWithRetries(() => provider.lookupAccount({ accountNumber, bankCode }), {
        budgetMs: config.PROVIDER_LOOKUP_RETRY_BUDGET,
      });
    } catch (error) {
      if (error instanceof ProviderRejectedError)
        throw new BadRequestError('provider_rejected', `provider rejected the lookup: ${error.description}`);
      throw error;
    }
  }

  /**
   * A retry under an Idempotency-Key already claimed: the settlement it made (or the payout waiting for approval, or
   * what became of it), if the request is the same.
   */
  async function answerClaimed(tenantId: string, claimed: IdempotencyRecord | undefined, asSent: object): Promise<AcceptedSettlement> {
    if (!claimed || !sameRequest(claimed.request_hash, config.REQUEST_HASH_SECRET, asSent)) throw idempotencyMismatch();
    return findAccepted(tenantId, claimed.resource_ref);
  }

  /** A settlement as a settle answers it, or a held payout not made into one (awaiting approval, rejected, expired). */
  async function findAccepted(tenantId: string, merchantTxRef: string): Promise<AcceptedSettlement> {
    const settlement = await settlements.findByRef(tenantId, merchantTxRef);
    if (settlement) return settlement;
    const held = await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef);
    if (!held || held.status === 'approved') throw new NotFoundError('transfer not found');
    return {
      merchantTxRef,
      status: held.status,
      amount: held.amount,
      currency: 'NGN',
      accountRef: held.accountRef,
      metadata: held.metadata,
    };
  }

  /** How long a payout sent to review waits: the approval policy's expiry, or the default when it has none. */
  async function approvalExpiry(tenantId: string): Promise<number> {
    return (await approvalPolicyOf(db, tenantId))?.expiresAfterSeconds ?? DEFAULT_APPROVAL_EXPIRY_SECONDS;
  }

  /** What the tenant's approval policy says of a payout its maker asks for. */
  async function approvalDecision(tenantId: string, request: SettleRequest, maker: PayoutMaker): Promise<ApprovalDecision> {
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
        const verdict = velocity ? await judgeVelocity(trx, velocity, draft, account.id) : undefined;
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
        throw await velocityRefusal(outcome.verdict, draft);
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

  /**
   * The tenant's velocity rules' verdict on a payout, under their locks, in the transaction that makes or holds it. A
   * retry under an Idempotency-Key already claimed is not judged again: it answers what the key made.
   */
  async function judgeVelocity(trx: Trx, velocity: PayoutVelocity, draft: SettlementDraft, accountId: string): Promise<VelocityVerdict> {
    const { tenantId, idempotencyKey, bankCode, accountNumber, amount } = draft;
    if (idempotencyKey !== null && (await createIdempotencyRepo(trx).find(tenantId, 'settlement', idempotencyKey)))
      return { action: 'allow' };
    return velocity.judge(trx, { tenantId, accountId, bankCode, accountNumber, amount });
  }

  /** A velocity rule refused the payout (its transaction wrote nothing): told to the tenant, then the caller's 400. */
  async function velocityRefusal(verdict: VelocityRefusal, draft: SettlementDraft): Promise<Error> {
    const { tenantId, accountRef, amount } = draft;
    await db.transaction((trx) => recordVelocityTriggered(trx, { tenantId, verdict, accountRef, amount, merchantTxRef: null }));
    return new BadRequestError('velocity_limit', verdict.message);
  }

  /** Records a user's decision on a held payout (locked): its row, its audit entry and its event. */
  async function recordDecision(
    trx: Trx,
    by: AuditActor,
    held: PayoutApprovalRecord,
    decision: 'approved' | 'rejected',
    note: string | null,
  ): Promise<void> {
    await createPayoutApprovalsRepo(trx).decide(held.id, { status: decision, userId: by.id, note });
    await createAuditLog(trx).record(
      by,
      decision === 'approved' ? 'settlement.approved' : 'settlement.rejected',
      { type: 'settlement', id: held.merchantTxRef },
      {
        accountRef: held.accountRef,
        amount: formatKobo(held.amount),
        maker: held.makerEmail ?? (held.makerApiKeyId !== null ? `${API_KEY_ACTOR} ${held.makerApiKeyId}` : SWEEP_ACTOR),
        note,
      },
    );
    await recordChange(trx, {
      kind: 'payout_approval_decided',
      tenantId: held.tenantId,
      decision,
      merchantTxRef: held.merchantTxRef,
      accountRef: held.accountRef,
      amount: held.amount,
      decidedBy: by.email,
      note,
    });
  }

  /**
   * A held payout a user may decide now, read again under its row's lock by a decision: still awaiting approval, not
   * past its expiry, and (to approve) not made by this user.
   */
  function requireDecidable(held: PayoutApprovalRecord | undefined, by: AuditActor, decision: 'approve' | 'reject'): PayoutApprovalRecord {
    if (!held) throw new NotFoundError('payout awaiting approval not found');
    if (held.status !== 'awaiting_approval') throw new ConflictError(`this payout is ${held.status}, no longer awaiting approval`);
    if (held.expiresAt.getTime() <= Date.now()) throw new ConflictError('this payout expired before it was approved');
    if (decision === 'approve' && held.makerUserId === by.id)
      throw new AppError('forbidden', 'maker_cannot_approve', 'the maker of a payout cannot approve it: another user must');
    return held;
  }

  async function lookupAtProvider(accountNumber: string, bankCode: string): Promise<ProviderAccountName> {
    const found = await findAtProvider(accountNumber, bankCode);
    if (!found) throw new NotFoundError('bank account not found');
    return found;
  }

  /**
   * Makes a settlement the checks passed: one statement under the account's row lock (the funds check under
   * SETTLEMENT_FUNDS, the provisional debit, the settlement row and its workflow; see settlement-initiation.repo).
   * With an Idempotency-Key it runs in a transaction that is rolled back when no settlement was made, so the key
   * stays unclaimed. The workflow starts after the commit.
   */
  async function makeSettlement(
    tenantId: string,
    accountRef: string,
    request: SettleRequest,
    idempotencyKey: string | undefined,
    options: InitiateOptions,
  ): Promise<AcceptedSettlement> {
    const { onCreated, beforeDebit } = options;
    const settlementId = uuidv7();
    const merchantTxRef = options.merchantTxRef ?? newMerchantTxRef();
    const asSent = { accountRef, ...(options.requestAsSent ?? request) };
    const hash = requestHash(config.REQUEST_HASH_SECRET, asSent);
    const draft: SettlementDraft = {
      id: settlementId,
      merchantTxRef,
      tenantId,
      accountRef,
      amount: request.amount,
      bankCode: request.bankCode,
      accountNumber: request.accountNumber,
      narration: request.narration ?? '',
      accountName: options.accountName ?? null,
      beneficiaryId: options.beneficiaryId ?? null,
      metadata: request.metadata ?? {},
      requestHash: hash,
      idempotencyKey: idempotencyKey ?? null,
      debit: settlementDebit({
        amount: request.amount,
        narration: request.narration ?? '',
        merchantTxRef,
        spendFrom: config.SETTLEMENT_FUNDS,
        returnToSender: options.returnToSender === true,
      }),
      job: jobs.settlement({ settlementId, merchantTxRef, tenantId, accountRef }),
    };
    const { maker } = options;
    // Only a payout somebody asked for is judged by the tenant's velocity rules, as by its approval policy.
    const asked = maker?.kind === 'balance_sweep' ? undefined : maker;
    const velocity = asked ? await payoutVelocityOf(db, tenantId, postingEngine.lockAccounts) : undefined;
    if (maker) {
      const decision = await approvalDecision(tenantId, request, maker);
      if (decision.required) return holdForApproval({ ...draft, asSent }, decision, maker, onCreated, velocity);
    }
    const judged = asked && velocity ? { maker: asked, velocity, account: await findAccountByRef(db, tenantId, accountRef) } : undefined;
    if (judged && !judged.account) throw new NotFoundError('account not found');
    const accepted: AcceptedSettlement = {
      merchantTxRef,
      status: 'pending',
      amount: request.amount,
      currency: 'NGN',
      accountRef,
      metadata: draft.metadata,
    };
    const outcome =
      idempotencyKey || onCreated || beforeDebit || judged
        ? await db
            .transaction(async (trx): Promise<InitiationResult> => {
              if (judged?.account) {
                const verdict = await judgeVelocity(trx, judged.velocity, draft, judged.account.id);
                if (verdict.action === 'refuse') throw new NothingMade({ kind: 'velocity_refused', verdict });
                if (verdict.action === 'review') throw new NothingMade({ kind: 'velocity_review', verdict });
              }
              await beforeDebit?.(trx, { debitEntryId: draft.debit.drafts[0]!.id, merchantTxRef });
              const result = await createSettlementInitiationRepo(trx, postingEngine).initiate(draft);
              if (result.kind !== 'created') throw new NothingMade(result);
              await onCreated?.(trx, accepted);
              return result;
            })
            .catch((error: unknown) => {
              if (error instanceof NothingMade) return error.result;
              throw error;
            })
        : await createSettlementInitiationRepo(db, postingEngine).initiate(draft);
    switch (outcome.kind) {
      case 'velocity_refused':
        throw await velocityRefusal(outcome.verdict, draft);
      case 'velocity_review':
        // Held as the approval policy holds a payout, judged again under the locks in the hold's own transaction.
        if (!judged) throw new Error('only a judged payout is sent to review');
        return holdForApproval(
          { ...draft, asSent },
          { required: true, reasons: [], expiresAfterSeconds: await approvalExpiry(tenantId) },
          judged.maker,
          onCreated,
          judged.velocity,
        );
      case 'no_account':
        throw new NotFoundError('account not found');
      case 'customer_suspended':
        throw new ForbiddenError('customer suspended');
      case 'account_frozen':
        throw new AccountFrozenError(frozenRefusal(accountRef, outcome));
      case 'insufficient_funds':
        throw await postingEngine.insufficientFunds(db, outcome.accountId, config.SETTLEMENT_FUNDS);
      case 'daily_limit':
        throw new DailyPayoutLimitError(dailyPayoutRefusal(outcome));
      case 'key_taken':
        return answerClaimed(tenantId, await createIdempotencyRepo(db).find(tenantId, 'settlement', idempotencyKey!), asSent);
      case 'created':
        starter.kick([draft.job]);
        return accepted;
      default:
        throw new Error(`unexpected initiation outcome ${JSON.stringify(outcome satisfies never)}`);
    }
  }

  // Satisfies the ingest service's PayoutEventSink port; the container hands it over, so settlements never import payments.
  const payoutSink = {
    async prepare(type: PayoutSignalType, providerRef: string, eventId: string) {
      const settlement = await settlements.findByRefAnyTenant(baseReference(providerRef));
      if (!settlement) return null;
      const scheduled: OutboxEntry[] =
        type === 'payout_refund'
          ? [
              jobs.settlementRefund({
                settlementId: settlement.id,
                merchantTxRef: settlement.merchantTxRef,
                providerRef,
                eventId,
                tenantId: settlement.tenantId,
                accountRef: settlement.accountRef,
              }),
            ]
          : [];
      return { tenantId: settlement.tenantId, accountId: settlement.accountId, jobs: scheduled };
    },
    notify(type: PayoutSignalType, providerRef: string): void {
      signal(baseReference(providerRef), { type, providerRef }).catch((error: unknown) =>
        logger.info({ err: error, providerRef, type }, 'settlement workflow not signalled; polling or the refund workflow covers it'),
      );
    },
  };

  return {
    payoutSink,

    /** A settlement to a bank code and account number: counted (unless the caller did), checked, then made. */
    async initiate(
      tenantId: string,
      accountRef: string,
      request: SettleRequest,
      idempotencyKey?: string,
      options: InitiateOptions = {},
    ): Promise<AcceptedSettlement> {
      if (!options.counted) await limits.settlements.consume(tenantId);
      await checkBeforeSettling(tenantId, accountRef, request.amount, async () => request);
      return makeSettlement(tenantId, accountRef, request, idempotencyKey, options);
    },

    /**
     * A settle's checks for a request judged ahead of its settle (the batch dry run), writing nothing and asking
     * the provider no name: a saved beneficiary is read as saved, where the settle would re-check a stale name.
     * Throws the settle's 4xx.
     */
    async checkAhead(tenantId: string, accountRef: string, request: SettleBody): Promise<void> {
      await checkBeforeSettling(tenantId, accountRef, request.amount, async (): Promise<{ bankCode: string }> =>
        request.to === 'account' ? request : beneficiaries().find(tenantId, request.beneficiaryId),
      );
    },

    /**
     * The dashboard's settle: the name the operator confirmed must still be the provider's name for the
     * destination, looked up again now, and the settlement pays that name. A retry under an Idempotency-Key
     * already used answers as `initiate` does, without a lookup, so a name that changed since never hides a
     * settlement made.
     */
    async initiateConfirmed(
      tenantId: string,
      accountRef: string,
      request: SettleRequest & { confirmedAccountName: string },
      idempotencyKey: string | undefined,
      onCreated: OnCreated,
      maker: PayoutMaker,
    ): Promise<AcceptedSettlement> {
      const { confirmedAccountName, ...settle } = request;
      // Counted before the lookup, so a flood of settles is turned away without calling the provider.
      await limits.settlements.consume(tenantId);
      const claimed = idempotencyKey ? await createIdempotencyRepo(db).find(tenantId, 'settlement', idempotencyKey) : undefined;
      if (claimed) return this.initiate(tenantId, accountRef, settle, idempotencyKey, { onCreated, counted: true, maker });
      if (!(await findAccountByRef(db, tenantId, accountRef))) throw new NotFoundError('account not found');
      // Part of the settlement (its own limit counts it), not one of the tenant's name lookups.
      const current = await lookupAtProvider(settle.accountNumber, settle.bankCode);
      if (!sameAccountName(current.accountName, confirmedAccountName))
        throw new AccountNameChangedError(confirmedAccountName, current.accountName);
      return this.initiate(tenantId, accountRef, settle, idempotencyKey, {
        onCreated,
        counted: true,
        accountName: current.accountName,
        maker,
      });
    },

    /**
     * A settlement to a saved beneficiary: its bank account, paying the name `forPayout` gives (re-checked
     * at the provider when the saved check is stale). A retry under an Idempotency-Key already used answers
     * as `initiate` does, before the beneficiary is read, so one deleted or renamed since never hides the
     * settlement made. `confirmedAccountName`, when given (the dashboard's), must be the name paid.
     */
    async initiateToBeneficiary(
      tenantId: string,
      accountRef: string,
      request: BeneficiarySettleRequest,
      idempotencyKey: string | undefined,
      options: {
        confirmedAccountName?: string | undefined;
        onCreated?: (trx: DbOrTrx, made: AcceptedSettlement, paid: PayoutDestination) => Promise<void>;
        beforeDebit?: BeforeDebit;
        maker?: PayoutMaker;
      } = {},
    ): Promise<AcceptedSettlement> {
      const { amount, beneficiaryId, narration, metadata } = request;
      const asSent = { amount, beneficiaryId, narration, metadata };
      await limits.settlements.consume(tenantId);
      const claimed = idempotencyKey ? await createIdempotencyRepo(db).find(tenantId, 'settlement', idempotencyKey) : undefined;
      if (claimed) return answerClaimed(tenantId, claimed, { accountRef, ...asSent });
      const { confirmedAccountName, onCreated, beforeDebit, maker } = options;
      const paid = await checkBeforeSettling(tenantId, accountRef, amount, async () => {
        const destination = await beneficiaries().forPayout(tenantId, beneficiaryId);
        if (confirmedAccountName !== undefined && !sameAccountName(destination.accountName, confirmedAccountName))
          throw new AccountNameChangedError(confirmedAccountName, destination.accountName);
        return destination;
      });
      return makeSettlement(
        tenantId,
        accountRef,
        { amount, bankCode: paid.bankCode, accountNumber: paid.accountNumber, narration, metadata },
        idempotencyKey,
        {
          accountName: paid.accountName,
          beneficiaryId: beneficiaryId.toLowerCase(),
          requestAsSent: asSent,
          ...(maker ? { maker } : {}),
          ...(beforeDebit ? { beforeDebit } : {}),
          ...(onCreated ? { onCreated: (trx: DbOrTrx, made: AcceptedSettlement) => onCreated(trx, made, paid) } : {}),
        },
      );
    },

    /**
     * Approves a payout waiting for approval: it becomes the settlement it asked for, under its own merchantTxRef, as an
     * unapproved one would be made (one workflow, one transfer at the provider). In the settlement's transaction, under
     * the approval's row lock: still awaiting, not expired, not the approver's own; its reservation is posted by the
     * settlement's debit (so the debit spends the money it kept); the decision is recorded, audited and told
     * (`settlement.approved`, then the ledger's `settlement.created`). A refusal of the debit (the customer suspended,
     * the daily payout limit) leaves it waiting.
     */
    async approve(approver: AuditActor, merchantTxRef: string): Promise<AcceptedSettlement> {
      const { tenantId } = approver;
      const held = requireDecidable(await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef), approver, 'approve');
      const request = {
        amount: held.amount,
        bankCode: held.bankCode,
        accountNumber: held.accountNumber,
        narration: held.narration,
        metadata: held.metadata,
      };
      return makeSettlement(tenantId, held.accountRef, request, undefined, {
        merchantTxRef,
        ...(held.accountName !== null ? { accountName: held.accountName } : {}),
        ...(held.beneficiaryId !== null ? { beneficiaryId: held.beneficiaryId } : {}),
        beforeDebit: async (trx, debit) => {
          // The account's lock first (ofOwner takes it), then the approval's row: the order an expiry takes them in.
          const reservations = createReservations(trx);
          const reservation = await reservations.ofOwner('payout_approval', held.id);
          const locked = requireDecidable(await createPayoutApprovalsRepo(trx).lockByRef(tenantId, merchantTxRef), approver, 'approve');
          if (!reservation || reservation.open !== locked.amount) throw new ConflictError('this payout expired before it was approved');
          await reservations.post(reservation.accountId, {
            reservationId: reservation.reservationId,
            entryId: debit.debitEntryId,
            amount: locked.amount,
            userId: approver.id,
            note: null,
          });
          await recordDecision(trx, approver, locked, 'approved', null);
        },
      });
    },

    /** Rejects a payout waiting for approval: its reservation is released, exactly its amount; audited and told (`settlement.rejected`). */
    async reject(approver: AuditActor, merchantTxRef: string, note: string | null): Promise<AcceptedSettlement> {
      const { tenantId } = approver;
      const { id } = requireDecidable(await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef), approver, 'reject');
      return db.transaction(async (trx) => {
        // The account's lock first (ofOwner takes it), then the approval's row: the order an expiry takes them in.
        const reservations = createReservations(trx);
        const reservation = await reservations.ofOwner('payout_approval', id);
        const held = requireDecidable(await createPayoutApprovalsRepo(trx).lockByRef(tenantId, merchantTxRef), approver, 'reject');
        if (!reservation || reservation.open !== held.amount) throw new ConflictError('this payout expired before it was rejected');
        await reservations.release(reservation.accountId, [
          {
            reservationId: reservation.reservationId,
            kind: 'payout_approval',
            amount: held.amount,
            reason: 'rejected',
            userId: approver.id,
            note,
          },
        ]);
        await recordDecision(trx, approver, held, 'rejected', note);
        return {
          merchantTxRef,
          status: 'rejected' as const,
          amount: held.amount,
          currency: 'NGN' as const,
          accountRef: held.accountRef,
          metadata: held.metadata,
        };
      });
    },

    /**
     * Marks expired the held payouts whose reservations the ledger just expired (in its transaction), each audited and
     * told (`settlement.expired`); the number marked.
     */
    async expireHeld(trx: Trx, expired: EndedReservations): Promise<number> {
      const ids = expired.ended.filter((reservation) => reservation.kind === 'payout_approval').map((reservation) => reservation.ownerId);
      const marked = await createPayoutApprovalsRepo(trx).expire(ids);
      for (const held of marked) {
        await createAuditLog(trx).recordAs(
          held.tenantId,
          EXPIRY_ACTOR,
          'settlement.expired',
          { type: 'settlement', id: held.merchantTxRef },
          {
            accountRef: held.accountRef,
            amount: formatKobo(held.amount),
          },
        );
        await recordChange(trx, {
          kind: 'payout_approval_decided',
          tenantId: held.tenantId,
          decision: 'expired',
          merchantTxRef: held.merchantTxRef,
          accountRef: held.accountRef,
          amount: held.amount,
          decidedBy: null,
          note: null,
        });
      }
      return marked.length;
    },

    /** The tenant's held payouts of one status, newest first. */
    listHeld(tenantId: string, status: PayoutApprovalStatus, beforeId: string | null, limit: number): Promise<PayoutApprovalRecord[]> {
      return createPayoutApprovalsRepo(db).list(tenantId, status, beforeId, limit);
    },

    async findHeld(tenantId: string, merchantTxRef: string): Promise<PayoutApprovalRecord> {
      const held = await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef);
      if (!held) throw new NotFoundError('payout awaiting approval not found');
      return held;
    },

    /** A settlement, or a payout held for approval not made into one, as GET /v1/transfers/{merchantTxRef} shows it. */
    async findTransfer(tenantId: string, merchantTxRef: string): Promise<SettlementRecord | PayoutApprovalRecord> {
      const settlement = await settlements.findByRef(tenantId, merchantTxRef);
      if (settlement) return settlement;
      const held = await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef);
      if (!held || held.status === 'approved') throw new NotFoundError('transfer not found');
      return held;
    },

    /** One more than `limit` of the tenant's settlements, newest first; with `metadata`, only those carrying every pair of it. */
    list(tenantId: string, beforeId: string | null, limit: number, metadata?: Metadata): Promise<SettlementRecord[]> {
      return settlements.list(tenantId, beforeId, limit + 1, metadata);
    },

    async find(tenantId: string, merchantTxRef: string): Promise<SettlementRecord> {
      const settlement = await settlements.findByRef(tenantId, merchantTxRef);
      if (!settlement) throw new NotFoundError('transfer not found');
      return settlement;
    },

    async lookupAccount(tenantId: string, accountNumber: string, bankCode: string): Promise<ProviderAccountName> {
      await limits.nameLookups.consume(tenantId);
      return lookupAtProvider(accountNumber, bankCode);
    },

    /**
     * The provider's name for a destination now, as part of a payout that its own limit counts (not one of
     * the tenant's name lookups): null when the bank has no such account.
     */
    async currentAccountName(accountNumber: string, bankCode: string): Promise<string | null> {
      return (await findAtProvider(accountNumber, bankCode))?.accountName ?? null;
    },

    /** `lookupAccount` for a caller with its own answer to an account the bank does not have: null. */
    async findAccountName(tenantId: string, accountNumber: string, bankCode: string): Promise<string | null> {
      await limits.nameLookups.consume(tenantId);
      return (await findAtProvider(accountNumber, bankCode))?.accountName ?? null;
    },

    banks(): Promise<ProviderBank[]> {
      return banks.list();
    },
  };
}

export type SettlementsService = ReturnType<typeof createSettlementsService>;
