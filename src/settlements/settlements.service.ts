import { findAccountByRef } from '../accounts/accounts.access';
import { payoutVelocityOf } from '../velocity-rules/velocity-rules.access';
import { createPayoutApprovalsRepo, type PayoutApprovalRecord } from './payout-approvals.repo';
import { createPayoutHolds, scheduledNeedsApproval } from './payout-holds';
import { createScheduledPayoutsRepo, type ScheduledPayoutRecord } from './scheduled-payouts.repo';
import { scheduleDecision } from '../policies/scheduled-payout/scheduled-payout';
import type { PayoutMaker } from './payout-maker';
import { createPayoutVelocityCheck } from './payout-velocity';
import { NothingMade, type AcceptedSettlement, type OnCreated } from './settle-outcomes';
import { sameAccountName } from '../account-names';
import type { BeneficiariesService, PayoutDestination } from '../beneficiaries/beneficiaries.service';
import type { Config } from '../config';
import type { Db, DbOrTrx, Trx } from '../db';
import { AccountFrozenError, AppError, BadRequestError, ForbiddenError, invalidAmount, NotFoundError, ValidationError } from '../errors';
import { createIdempotencyRepo, type IdempotencyRecord } from '../idempotency/idempotency.repo';
import { idempotencyMismatch, requestHash, sameRequest } from '../idempotency/request-hash';
import { uuidv7 } from '../ids';
import type { Jobs } from '../contracts/jobs';
import type { OutboxEntry } from '../workflow-starts/outbox.repo';
import type { WorkflowStarter } from '../workflow-starts/workflow-starter';
import { DailyPayoutLimitError } from '../ledger/posting-engine';
import { dailyPayoutRefusal } from '../policies/kyc-limits/daily-payout-limit';
import { frozenRefusal } from '../policies/account-freeze/account-freeze';
import { settlementDebit } from '../ledger/postings';
import type { Logger } from '../logger';
import type { Kobo } from '../money';
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
  /** A payout on a date: scheduled (its money reserved) rather than made now. */
  scheduledFor?: Date | undefined;
}

interface BeneficiarySettleRequest {
  amount: Kobo;
  beneficiaryId: string;
  narration?: string | undefined;
  metadata?: Metadata | undefined;
  scheduledFor?: Date | undefined;
}

/** A payout on a date must be due after now and within the policy's reach: else 400 with the policy's words. */
function requireSchedulable(scheduledFor: Date | undefined): void {
  if (scheduledFor === undefined) return;
  const decision = scheduleDecision(scheduledFor, new Date());
  if (!decision.allowed) throw new ValidationError(decision.message, [{ path: 'scheduledFor', message: decision.message }]);
}

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

/** Wakes a running settlement workflow; implemented over the Temporal client, best effort. */
type SettlementSignaller = (merchantTxRef: string, signal: PayoutSignal) => Promise<void>;

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
  const velocityCheck = createPayoutVelocityCheck(db);
  const holds = createPayoutHolds({ db, config, postingEngine, velocityCheck, jobs, starter, answerClaimed });

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

  /**
   * A settlement as a settle answers it, a scheduled payout not (yet) made into one, or a held payout not made into one
   * (awaiting approval, rejected, expired).
   */
  async function findAccepted(tenantId: string, merchantTxRef: string): Promise<AcceptedSettlement> {
    const settlement = await settlements.findByRef(tenantId, merchantTxRef);
    const scheduled = await createScheduledPayoutsRepo(db).findByRef(tenantId, merchantTxRef);
    if (settlement) return scheduled ? { ...settlement, schedule: scheduled } : settlement;
    if (scheduled) {
      const status = scheduled.state === 'cancelled' ? 'cancelled' : scheduled.state === 'refused' ? 'failed' : 'pending';
      const { amount, accountRef, metadata } = scheduled;
      return { merchantTxRef, status, amount, currency: 'NGN', accountRef, metadata, schedule: scheduled };
    }
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
      const decision = await holds.approvalDecision(tenantId, request, maker);
      if (request.scheduledFor !== undefined) {
        // The policy is judged now, when the payout is asked for: one it would hold is refused a date.
        if (decision.required) throw scheduledNeedsApproval();
        return holds.scheduleForLater({ ...draft, asSent }, request.scheduledFor, maker, onCreated, velocity);
      }
      if (decision.required) return holds.holdForApproval({ ...draft, asSent }, decision, maker, onCreated, velocity);
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
                const verdict = await velocityCheck.judge(trx, judged.velocity, draft, judged.account.id);
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
        throw await velocityCheck.refusal(outcome.verdict, draft);
      case 'velocity_review':
        // Held as the approval policy holds a payout, judged again under the locks in the hold's own transaction.
        if (!judged) throw new Error('only a judged payout is sent to review');
        return holds.holdForApproval(
          { ...draft, asSent },
          { required: true, reasons: [], expiresAfterSeconds: await holds.approvalExpiry(tenantId) },
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
      requireSchedulable(request.scheduledFor);
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
      const { amount, beneficiaryId, narration, metadata, scheduledFor } = request;
      const asSent = { amount, beneficiaryId, narration, metadata, scheduledFor };
      await limits.settlements.consume(tenantId);
      const claimed = idempotencyKey ? await createIdempotencyRepo(db).find(tenantId, 'settlement', idempotencyKey) : undefined;
      if (claimed) return answerClaimed(tenantId, claimed, { accountRef, ...asSent });
      const { confirmedAccountName, onCreated, beforeDebit, maker } = options;
      requireSchedulable(scheduledFor);
      const paid = await checkBeforeSettling(tenantId, accountRef, amount, async () => {
        const destination = await beneficiaries().forPayout(tenantId, beneficiaryId);
        if (confirmedAccountName !== undefined && !sameAccountName(destination.accountName, confirmedAccountName))
          throw new AccountNameChangedError(confirmedAccountName, destination.accountName);
        return destination;
      });
      return makeSettlement(
        tenantId,
        accountRef,
        { amount, bankCode: paid.bankCode, accountNumber: paid.accountNumber, narration, metadata, scheduledFor },
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
     * Makes the settlement a payout held for approval asked for, once approved, or a scheduled payout at its time: not
     * counted or checked again (it was, when it was held or scheduled), under the merchantTxRef it was given;
     * `beforeDebit` posts its reservation.
     */
    settleApproved(
      tenantId: string,
      accountRef: string,
      request: SettleRequest,
      options: Pick<InitiateOptions, 'merchantTxRef' | 'accountName' | 'beneficiaryId' | 'beforeDebit'>,
    ): Promise<AcceptedSettlement> {
      return makeSettlement(tenantId, accountRef, request, undefined, options);
    },

    /**
     * A settlement (and the schedule it was made on, if any), a scheduled payout or a payout held for approval not made
     * into one, as GET /v1/transfers/{merchantTxRef} shows it.
     */
    async findTransfer(
      tenantId: string,
      merchantTxRef: string,
    ): Promise<{ transfer: SettlementRecord | PayoutApprovalRecord | ScheduledPayoutRecord; schedule?: ScheduledPayoutRecord }> {
      const settlement = await settlements.findByRef(tenantId, merchantTxRef);
      const scheduled = await createScheduledPayoutsRepo(db).findByRef(tenantId, merchantTxRef);
      if (settlement) return scheduled ? { transfer: settlement, schedule: scheduled } : { transfer: settlement };
      if (scheduled) return { transfer: scheduled };
      const held = await createPayoutApprovalsRepo(db).findByRef(tenantId, merchantTxRef);
      if (!held || held.status === 'approved') throw new NotFoundError('transfer not found');
      return { transfer: held };
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
