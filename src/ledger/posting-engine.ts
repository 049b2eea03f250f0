import { runPrepared, type Db, type DbOrTrx, type Trx } from '../db';
import { AccountFrozenError, BadRequestError, ConflictError } from '../errors';
import { koboFromDb, type Kobo } from '../money';
import { accountMayPayOut, frozenRefusal } from '../policies/account-freeze/account-freeze';
import { kycLimitBindings, type TierDefaults } from '../policies/kyc-limits/customer-limits';
import { fundsShortfall, type FundsShortfall } from './funds-shortfall';
import { releasableUnderLimits } from '../policies/kyc-limits/credit-limits';
import { dailyPayoutDecision } from '../policies/kyc-limits/daily-payout-limit';
import { createReservations, expireDue, type NewReservation, type Release } from './reservations';
import type { ReleaseReason, ReservationKind } from './reservation-kinds';
import { createLedgerRepo, ENTRY_COLUMNS, toLedgerEntry, type EntryRow, type PayoutStanding } from './ledger.repo';
import { paymentCreditRow, planPosting, transferEntries } from './postings';
import { draftJson } from './posting-ctes';
import {
  confirmCreditsStatement,
  paymentCreditsStatement,
  settlementDebitStatement,
  ENTRIES_AMONG_ACCOUNTS_STATEMENT,
  type ConfirmedCredits,
  type PostedCredits,
  type PostedDebit,
  type StatementParts,
} from './posting-statements';
import type { EntryDraft, FundsSource, LedgerEntry, NewPosting, PostingPlan, SystemPosting } from './ledger.types';
import { uuidv7 } from '../ids';
import type {
  CompensatedCredit,
  EndedReservations,
  MadeReservation,
  PaidSettlement,
  PostedCredit,
  PostedTransfer,
  RestoredCredit,
  Reversal,
  SplitPartToTakeBack,
} from './ledger-results';

export type { PayoutStanding } from './ledger.repo';
export type {
  CompensatedCredit,
  EndedReservation,
  EndedReservations,
  LedgerResult,
  MadeReservation,
  PaidSettlement,
  PostedCredit,
  PostedTransfer,
  RestoredCredit,
  Reversal,
  SplitPartToTakeBack,
} from './ledger-results';
export type { ConfirmedCredits, PostedCredits, PostedDebit, StatementParts } from './posting-statements';

/** SPEC.md's refusal of a payout the account cannot pay; with what is held and why, when held money is part of why. */
export class InsufficientFundsError extends BadRequestError {
  constructor(shortfall?: FundsShortfall) {
    super('insufficient_funds', 'insufficient funds', shortfall ? { ...shortfall } : undefined);
  }
}

/** A payout the customer's daily payout limit (Africa/Lagos day) does not allow: a settlement, or a transfer to another customer. */
export class DailyPayoutLimitError extends BadRequestError {
  constructor(message: string) {
    super('daily_debit_limit_exceeded', message);
  }
}

/** What the posting engine needs to judge postings against KYC limits: the platform's defaults per tier. */
export interface PostingEngineOptions {
  tierDefaults: TierDefaults;
}

/**
 * What a transfer between accounts spends: confirmed money only. Its credit is confirmed as it posts (the receiver
 * may settle it at once), so it must carry money the provider has confirmed: a provisional credit moved on and then
 * reversed would leave the receiver holding confirmed money the provider never paid.
 */
export const TRANSFER_FUNDS: FundsSource = 'available';

/**
 * The only writer of ledger entries, account totals and the customers' totals its KYC limits are judged
 * against. Every append takes the customer's row lock and then the account's (inside one SQL statement), so
 * seq, running balances, totals, the available-balance check and the limits are serialised per customer;
 * every release of held money takes the same locks in the same order. The database's CHECK constraints hold
 * the invariants whatever happens. Only a reversal (a spent provisional credit the provider did not confirm)
 * or an operator's compensating adjustment (a spent confirmed credit the provider took back) may take an
 * account below zero.
 * Statements that post together with rows of their own are built by posting-statements.
 */
export function createPostingEngine(db: Db, options: PostingEngineOptions) {
  const repo = createLedgerRepo(db);

  /** The provider's fee for a payout, from clearing to the tenant's costs (negative: given back). */
  async function postPayoutFee(trx: Trx, tenantId: string, reference: string, fee: Kobo): Promise<void> {
    await repo.postSystemTransaction(trx, {
      tenantId,
      kind: 'payout_fee',
      reference,
      postings: [
        { account: 'clearing', amount: fee },
        { account: 'costs', amount: -fee },
      ],
    });
  }

  /** The system side of a transaction answering (undoing) the one `entry` belongs to. */
  async function undoneCounterPostings(trx: Trx, entry: LedgerEntry): Promise<SystemPosting[]> {
    return (await repo.systemPostingsOf(trx, entry.tenantId, entry.transactionId)).map((posting) => ({
      account: posting.account,
      amount: -posting.amount,
    }));
  }

  /** The refusal of a payout from the account spending `from`, saying what is held or unconfirmed, and why, when either is part of why. */
  async function insufficientFunds(reader: DbOrTrx, accountId: string, from: FundsSource): Promise<InsufficientFundsError> {
    const standing = await repo.fundsStanding(reader, accountId, from);
    return new InsufficientFundsError(standing ? fundsShortfall(standing, from) : undefined);
  }

  async function append(trx: Trx, accountId: string, plan: PostingPlan): Promise<LedgerEntry[]> {
    const entries = await repo.append(trx, accountId, plan.drafts, plan.totals, options.tierDefaults);
    if (entries) return entries;
    if (await repo.accountExists(accountId, trx)) throw new InsufficientFundsError();
    throw new Error(`account ${accountId} does not exist`);
  }

  /**
   * Posts entries to one account. With `spendFrom`, the debits must fit in that balance (the ledger
   * balance, or the available one: ledger less provisional credits), checked under the same lock as the write.
   */
  function post(trx: Trx, accountId: string, postings: NewPosting[], options: { spendFrom?: FundsSource } = {}): Promise<LedgerEntry[]> {
    return append(trx, accountId, planPosting(postings, options));
  }

  /** Each composed statement's text, built once per name: they run as named prepared statements. */
  const statements = new Map<string, string>();
  function statementNamed(name: string, build: () => string): string {
    let sql = statements.get(name);
    if (sql === undefined) statements.set(name, (sql = build()));
    return sql;
  }
  const limitBindings = kycLimitBindings(options.tierDefaults);

  /**
   * One credit through the payment credits' statement, as a group of one (a payment, or a reversed payment's
   * restoration): judged as every payment is; `held` is what the customer's limits or the account's policy hold of it.
   */
  async function creditOne(trx: Trx, accountId: string, plan: PostingPlan): Promise<PostedCredit> {
    const { rows } = await runPrepared(
      trx,
      'payment-credit-single',
      statementNamed('payment-credit-single', () =>
        paymentCreditsStatement({
          before:
            'single AS (SELECT CAST(:account_id AS uuid) AS account_id, 1 AS position, CAST(:entry AS jsonb) AS entry, CAST(NULL AS text) AS velocity_note)',
          credits: 'single',
          // The ledger's own statement: it reads its own CTEs. Its columns named, as a prepared statement's must be.
          select: () =>
            `SELECT ${ENTRY_COLUMNS.map((column) => `i.${column}`).join(', ')}, coalesce(j.held, 0) AS held
               FROM posting_inserted i LEFT JOIN posting_judged j ON j.id = i.id`,
        }),
      ),
      { account_id: accountId, entry: JSON.stringify(paymentCreditRow(plan)), ...limitBindings },
    );
    const [row] = rows as Array<EntryRow & { held: string }>;
    if (!row) throw new Error(`account ${accountId} does not exist`);
    return { kind: 'credited', entry: toLedgerEntry(row), held: koboFromDb(row.held) };
  }

  return {
    post,
    insufficientFunds,

    /**
     * Payment credits to several accounts in ONE statement (one round trip, atomic without BEGIN/COMMIT),
     * together with the caller's own rows: its `before` CTEs decide which credits post (see
     * paymentCreditsStatement), its `after` CTEs and `select` read what was posted from PostedCredits. The ledger writes the
     * money, judges the credits against the customers' KYC limits, and runs the statement, prepared once per
     * connection under `name`; the caller's rows are the caller's bindings.
     */
    creditPaymentsAmong(
      db: DbOrTrx,
      name: string,
      parts: StatementParts<PostedCredits> & { credits: string },
      bindings: Record<string, unknown>,
    ): Promise<{ rows: unknown[] }> {
      return runPrepared(
        db,
        name,
        statementNamed(name, () => paymentCreditsStatement(parts)),
        { ...bindings, ...limitBindings },
      );
    },

    /**
     * One payment credit to a known account in the caller's transaction: the grouped statement's posting for a
     * group of one, so a credit is judged and written the same way whichever path it arrives by.
     */
    creditPayment(trx: Trx, accountId: string, plan: PostingPlan): Promise<PostedCredit> {
      return creditOne(trx, accountId, plan);
    },

    /**
     * A settlement's debit in ONE statement with the caller's own rows: posted only when the account its CTEs
     * select has the funds and the customer's daily payout limit allows it (see settlementDebitStatement).
     */
    debitSettlementAmong(
      db: DbOrTrx,
      name: string,
      parts: StatementParts<PostedDebit> & { accountIdSql: string },
      debit: PostingPlan,
      bindings: Record<string, unknown>,
    ): Promise<{ rows: unknown[] }> {
      const statement = settlementDebitStatement(parts, debit);
      return runPrepared(
        db,
        name,
        statementNamed(name, () => statement.sql),
        { ...bindings, ...statement.bindings, ...limitBindings },
      );
    },

    /**
     * Moves `amount` from one account to another of the same tenant: one balanced transaction of a debit and a
     * credit (kind `transfer`, confirmed). The sending account spends only confirmed money, its held money apart
     * (TRANSFER_FUNDS, whatever SETTLEMENT_FUNDS lets a settlement spend); the credit is judged against the
     * receiving customer's KYC limits like any credit (the part over them held); the debit counts toward the
     * sending customer's daily payout limit only when the money leaves the customer. Both customers' rows and then both accounts' are locked in id order first, so crossed
     * transfers wait for each other instead of deadlocking, and the funds read stays true until the posting.
     * `debitEntryId`, when given, is the debit's id: a caller that posted a reservation by the debit earlier in the
     * transaction (a held transfer approved) names it first.
     */
    async transfer(
      trx: Trx,
      transfer: { fromAccountId: string; toAccountId: string; amount: Kobo; narration: string; reference: string; debitEntryId?: string },
    ): Promise<PostedTransfer> {
      if (transfer.fromAccountId === transfer.toAccountId) throw new Error('a transfer moves money between two accounts');
      await repo.lockAccounts(trx, [transfer.fromAccountId, transfer.toAccountId]);
      const sending = await repo.payoutStanding(trx, transfer.fromAccountId, TRANSFER_FUNDS, options.tierDefaults);
      const receiving = await repo.payoutStanding(trx, transfer.toAccountId, TRANSFER_FUNDS, options.tierDefaults);
      if (!sending || !receiving) throw new Error('a transfer account does not exist');
      if (sending.freeze && !accountMayPayOut(sending.freeze.frozenFor))
        throw new AccountFrozenError(frozenRefusal(sending.accountRef, sending.freeze));
      if (sending.spendable < transfer.amount) throw await insufficientFunds(trx, transfer.fromAccountId, TRANSFER_FUNDS);
      const leavesCustomer = sending.customerId !== receiving.customerId;
      if (leavesCustomer) {
        const decision = dailyPayoutDecision(
          { tier: sending.tier, limit: sending.dailyLimit, usedToday: sending.usedToday },
          transfer.amount,
        );
        if (!decision.allowed) throw new DailyPayoutLimitError(decision.message);
      }
      const entries = transferEntries(transfer);
      const { rows } = (await trx.raw(ENTRIES_AMONG_ACCOUNTS_STATEMENT, {
        entry_drafts: JSON.stringify(entries.map(({ accountId, draft }) => ({ account_id: accountId, ...draftJson(draft, 1) }))),
        debits_count_toward_day: leavesCustomer,
        ...limitBindings,
      })) as { rows: Array<EntryRow & { held: string }> };
      const debit = rows.find((row) => row.direction === 'debit');
      const credit = rows.find((row) => row.direction === 'credit');
      if (!debit || !credit) throw new Error('a transfer posted without both its entries');
      return {
        kind: 'transferred',
        reference: transfer.reference,
        transactionId: debit.transaction_id,
        debit: toLedgerEntry(debit),
        credit: toLedgerEntry(credit),
        held: koboFromDb(credit.held),
      };
    },

    /**
     * Confirms provisional payment credits in ONE statement with the caller's own rows (see confirmCreditsStatement),
     * prepared once per connection under `name`.
     */
    confirmCreditsAmong(
      db: DbOrTrx,
      name: string,
      parts: StatementParts<ConfirmedCredits> & { entryIdsSql: string; accountIdsSql: string },
      bindings: Record<string, unknown>,
    ): Promise<{ rows: unknown[] }> {
      return runPrepared(
        db,
        name,
        statementNamed(name, () => confirmCreditsStatement(parts)),
        bindings,
      );
    },

    /** Releases all that is still held of one credit (an operator's decision); the reservation released, none when nothing was held. */
    async releaseHold(
      trx: Trx,
      accountId: string,
      entryId: string,
      decision: { userId: string; note: string | null },
    ): Promise<EndedReservations> {
      await repo.lockAccounts(trx, [accountId]);
      const reservations = createReservations(trx);
      const held = await reservations.queuedCredit(accountId, entryId);
      const released: EndedReservations = {
        kind: 'reservations_ended',
        outcome: 'released',
        reason: 'operator',
        entryId: null,
        userId: decision.userId,
        ended: [],
      };
      if (!held || held.open === 0n) return released;
      await reservations.release(accountId, [
        { reservationId: held.reservationId, kind: held.kind, amount: held.open, reason: 'operator', ...decision },
      ]);
      const { reservationId, kind, open: amount, transactionGroupId } = held;
      return { ...released, ended: [{ reservationId, accountId, kind, ownerId: entryId, transactionGroupId, amount }] };
    },

    /**
     * Posts all that is held of one credit by the settlement debit (`debitEntryId`, posted next in the same
     * transaction) that returns it to its payer; the account stays locked until the transaction ends, so no other
     * settle can spend the money in between. Refused (409) when the credit was returned already or its held amount
     * is no longer `amount`. `userId` is null for a return the service makes itself (a dynamic account's mismatched
     * payment). The reservation posted.
     */
    async returnHold(
      trx: Trx,
      accountId: string,
      entryId: string,
      payback: { debitEntryId: string; amount: Kobo; userId: string | null; note: string },
    ): Promise<EndedReservations> {
      await repo.lockAccounts(trx, [accountId]);
      const reservations = createReservations(trx);
      const held = await reservations.queuedCredit(accountId, entryId);
      if (held && held.posted > 0n) throw new ConflictError('the held money of this credit was already returned to the sender');
      if (!held || held.open !== payback.amount) throw new ConflictError('the held amount of this credit changed meanwhile: look again');
      await reservations.post(accountId, {
        reservationId: held.reservationId,
        entryId: payback.debitEntryId,
        amount: payback.amount,
        userId: payback.userId,
        note: payback.note,
      });
      const { reservationId, kind, transactionGroupId } = held;
      return {
        kind: 'reservations_ended',
        outcome: 'posted',
        reason: null,
        entryId: payback.debitEntryId,
        userId: payback.userId,
        ended: [{ reservationId, accountId, kind, ownerId: entryId, transactionGroupId, amount: payback.amount }],
      };
    },

    /**
     * Re-judges the open KYC-limit reservations of a customer, across its accounts and oldest credit first, against
     * the limits that apply now (after a tier rise or new limits) and releases what they no longer justify; the
     * reservations released. The customer's row is locked first, then the accounts whose reservations are released.
     */
    async releaseHoldsWithinLimits(trx: Trx, customerId: string, userId: string | null): Promise<EndedReservations> {
      const reason = 'tier_raised';
      await repo.lockCustomer(trx, customerId);
      const reservations = createReservations(trx);
      const { customer, reservationOf } = await reservations.openKycHoldsOfCustomer(customerId, kycLimitBindings(options.tierDefaults));
      const releases = releasableUnderLimits(customer).map((release) => ({
        ...release,
        reservationId: reservationOf.get(release.entryId)!,
      }));
      const accountIds = [...new Set(releases.map((release) => release.accountId))];
      await repo.lockAccounts(trx, accountIds);
      for (const accountId of accountIds) {
        await reservations.release(
          accountId,
          releases
            .filter((release) => release.accountId === accountId)
            .map((release) => ({
              reservationId: release.reservationId,
              kind: 'kyc_limit' as const,
              amount: release.amount,
              reason,
              userId,
              note: null,
            })),
        );
      }
      return {
        kind: 'reservations_ended',
        outcome: 'released',
        reason,
        entryId: null,
        userId,
        ended: releases.map((release) => ({
          reservationId: release.reservationId,
          accountId: release.accountId,
          kind: 'kyc_limit',
          ownerId: release.entryId,
          transactionGroupId: null,
          amount: release.amount,
        })),
      };
    },

    /** Sets money aside on an account for a feature (a lien; see the reservations' reserve, which locks it first); the reservation made. */
    async reserve(trx: Trx, reservation: NewReservation): Promise<MadeReservation> {
      const reservationId = await createReservations(trx).reserve(reservation);
      const { accountId, kind, reason, ownerId, amount } = reservation;
      return {
        kind: 'reserved',
        reservationId,
        accountId,
        reservationKind: kind,
        reason,
        ownerId,
        amount,
        expiresAt: reservation.expiresAt ?? null,
      };
    },

    /**
     * Releases what is still open of the account's reservation of `kind` kept for `ownerId` (a lien lifted), for a
     * release reason its kind declares; the reservation released, none when nothing of it was open on the account.
     */
    async releaseOwned<Kind extends ReservationKind>(
      trx: Trx,
      release: { accountId: string; kind: Kind; ownerId: string; reason: ReleaseReason<Kind>; userId: string | null; note: string | null },
    ): Promise<EndedReservations> {
      const { accountId, kind, ownerId, reason, userId, note } = release;
      const reservations = createReservations(trx);
      const owned = await reservations.ofOwner(kind, ownerId);
      const released: EndedReservations = { kind: 'reservations_ended', outcome: 'released', reason, entryId: null, userId, ended: [] };
      if (!owned || owned.accountId !== accountId || owned.open === 0n) return released;
      await reservations.release(accountId, [
        { reservationId: owned.reservationId, kind, amount: owned.open, reason, userId, note } as Release,
      ]);
      return {
        ...released,
        ended: [{ reservationId: owned.reservationId, accountId, kind, ownerId, transactionGroupId: null, amount: owned.open }],
      };
    },

    /**
     * Releases, as expired, what is still reserved of reservations whose expiry is at or before `now` (see the
     * reservations' expireDue: up to `limit` accounts' per call); the reservations expired.
     */
    async expireDue(trx: Trx, now: Date, limit?: number): Promise<EndedReservations> {
      const expired = await expireDue(trx, now, limit);
      return {
        kind: 'reservations_ended',
        outcome: 'expired',
        reason: null,
        entryId: null,
        userId: null,
        ended: expired.map(({ reservationId, accountId, kind, ownerId, amount }) => ({
          reservationId,
          accountId,
          kind,
          ownerId,
          transactionGroupId: null,
          amount,
        })),
      };
    },

    /** A payment credit, provisional -> confirmed; undefined when the entry had already left `provisional`. */
    async confirm(trx: Trx, entryId: string): Promise<LedgerEntry | undefined> {
      const confirmed = await repo.markConfirmed(trx, entryId);
      if (confirmed?.direction === 'credit') await repo.releasePending(trx, confirmed.accountId, confirmed.amount);
      return confirmed;
    },

    /**
     * A settlement's payout left the provider: its debit is confirmed, the amount moves from payouts in transit
     * to clearing, and the provider's payout fee (when it charged one) from clearing to the tenant's costs.
     * Undefined when the debit had already left `provisional`.
     */
    async settlementPaid(trx: Trx, debitEntryId: string, payoutFee: Kobo): Promise<PaidSettlement | undefined> {
      const debit = await repo.markConfirmed(trx, debitEntryId);
      if (!debit) return undefined;
      const reference = debit.providerTxnRef ?? debit.id;
      await repo.postSystemTransaction(trx, {
        tenantId: debit.tenantId,
        kind: 'payout',
        reference,
        postings: [
          { account: 'payouts_in_transit', amount: -debit.amount },
          { account: 'clearing', amount: debit.amount },
        ],
      });
      if (payoutFee > 0n) await postPayoutFee(trx, debit.tenantId, reference, payoutFee);
      return { kind: 'settlement_paid', debit };
    },

    /** The provider gave back a refunded payout's fee: the opposite of the fee's transaction. */
    async payoutFeeReturned(trx: Trx, tenantId: string, reference: string, payoutFee: Kobo): Promise<void> {
      if (payoutFee > 0n) await postPayoutFee(trx, tenantId, reference, -payoutFee);
    },

    /**
     * Where a payout from the account stands now: what it may spend under `from`, its customer's daily
     * payout limit and what today (Africa/Lagos) has used of it. Read without locks, to size a payout
     * before asking for it; the posting's own check under the locks is what enforces them.
     */
    payoutStanding(accountId: string, from: FundsSource): Promise<PayoutStanding | undefined> {
      return repo.payoutStanding(db, accountId, from, options.tierDefaults);
    },

    /**
     * Locks accounts' customers and then the accounts, each in id order, before postings to several accounts in one transaction (no
     * deadlock with another such caller or a posting).
     */
    lockAccounts(trx: Trx, accountIds: string[]): Promise<void> {
      return repo.lockAccounts(trx, accountIds);
    },

    /**
     * A confirmed credit answering `reversal` (a reversed credit the provider showed paid after all), for the
     * amount the reversal took back, in the caller's transaction: the ledger stays append-only, and the unique
     * index on the answered entry makes it happen once. It is judged as a new payment, by the payment credits'
     * statement (a group of one): the customer's KYC limits (the part over them held), a dynamic account's
     * policy (its variance recorded, a mismatch held in full to return) and, since it is confirmed at once, the
     * closing of the account the payment completes. `held`: what the limits or the policy hold of it.
     */
    async restoreReversedCredit(trx: Trx, original: LedgerEntry, reversal: LedgerEntry, narration: string): Promise<RestoredCredit> {
      const plan = planPosting([
        {
          direction: 'credit',
          kind: 'adjustment',
          amount: reversal.amount,
          fee: original.fee,
          status: 'confirmed',
          narration,
          providerTxnRef: original.providerTxnRef,
          transactionGroupId: original.transactionGroupId,
          reversesEntryId: reversal.id,
          counterPostings: await undoneCounterPostings(trx, reversal),
        },
      ]);
      const { entry, held } = await creditOne(trx, original.accountId, plan);
      return { kind: 'restored', original, entry, held };
    },

    /**
     * A confirmed debit taking back a confirmed credit (the provider took the money back); it may leave the
     * account in deficit. When parts of the credit were split to other accounts (`parts`: each split transfer that
     * moved), each part is taken back from its receiver first, in the same balanced transaction: the receiver is
     * debited the part (an adjustment answering the transfer's credit; a receiver that spent it goes into deficit
     * and is flagged, as the payer would) and the splitting account credited it (answering the transfer's debit),
     * then the whole credit is debited from the splitting account, so it bears only what it kept. Every account
     * involved is locked first (customers, then accounts, in id order), and what the limits held of the credit and
     * of the parts' credits is released with them. Once per credit and per part: the unique index on the answered
     * entry. Returns the compensating debit and, per part, the receiver's debit that took it back.
     */
    async compensateCredit<Part extends SplitPartToTakeBack>(
      trx: Trx,
      credit: LedgerEntry,
      narration: string,
      parts: Part[] = [],
    ): Promise<CompensatedCredit<Part>> {
      await repo.lockAccounts(trx, [credit.accountId, ...parts.map((part) => part.accountId)]);
      const reservations = createReservations(trx);
      await reservations.closeHeldCreditOf(credit.accountId, credit.id);
      for (const part of parts) await reservations.closeHeldCreditOf(part.accountId, part.creditEntryId);
      const transactionId = uuidv7();
      const entry = (
        fields: Pick<EntryDraft, 'direction' | 'amount' | 'fee' | 'narration' | 'reversesEntryId' | 'counterPostings'>,
      ): EntryDraft => ({
        id: uuidv7(),
        kind: 'adjustment',
        status: 'confirmed',
        providerTxnRef: credit.providerTxnRef,
        transactionGroupId: credit.transactionGroupId,
        transactionId,
        ...fields,
      });
      const takenBack = parts.map((part) => ({
        part,
        fromReceiver: entry({
          direction: 'debit',
          amount: part.amount,
          fee: 0n,
          narration: `${narration} (its split part taken back)`,
          reversesEntryId: part.creditEntryId,
          counterPostings: [],
        }),
        toPayer: entry({
          direction: 'credit',
          amount: part.amount,
          fee: 0n,
          narration: `${narration} (a split part taken back)`,
          reversesEntryId: part.debitEntryId,
          counterPostings: [],
        }),
      }));
      const compensation = entry({
        direction: 'debit',
        amount: credit.amount,
        fee: credit.fee,
        narration,
        reversesEntryId: credit.id,
        counterPostings: await undoneCounterPostings(trx, credit),
      });
      const drafts = [
        ...takenBack.map(({ part, fromReceiver }) => ({ account_id: part.accountId, ...draftJson(fromReceiver, 1) })),
        // The splitting account's entries in order: the parts come back, then the credit leaves.
        ...[...takenBack.map(({ toPayer }) => toPayer), compensation].map((draft, index) => ({
          account_id: credit.accountId,
          ...draftJson(draft, index + 1),
        })),
      ];
      const { rows } = (await trx.raw(ENTRIES_AMONG_ACCOUNTS_STATEMENT, {
        entry_drafts: JSON.stringify(drafts),
        debits_count_toward_day: false,
        ...limitBindings,
      })) as { rows: EntryRow[] };
      if (rows.length !== drafts.length) throw new Error(`a compensation posted ${rows.length} of its ${drafts.length} entries`);
      const debit = rows.find((row) => row.id === compensation.id)!;
      return {
        kind: 'compensated',
        credit,
        debit: toLedgerEntry(debit),
        takenBack: takenBack.map(({ part, fromReceiver }) => ({ ...part, entryId: fromReceiver.id })),
      };
    },

    /**
     * Marks the entry reversed and posts the opposite entry (the original stays visible). A provisional
     * entry can always be reversed; a confirmed one only when it is a settlement debit the provider refunded.
     */
    async reverse(trx: Trx, entryId: string, narration: string): Promise<Reversal | undefined> {
      const reversed = await repo.markReversed(trx, entryId);
      if (!reversed) return undefined;
      const original = reversed.entry;
      // A paid settlement's money had left payouts in transit for clearing: its refund comes back from clearing.
      const counterPostings: SystemPosting[] = reversed.wasConfirmed
        ? [{ account: 'clearing', amount: -original.amount }]
        : await undoneCounterPostings(trx, original);
      // The customer's and the account's locks before the reservation's row, as every release takes them.
      await repo.lockAccounts(trx, [original.accountId]);
      const heldReleased = await createReservations(trx).closeHeldCredit(original.accountId, original.id);
      const [reversal] = await append(
        trx,
        original.accountId,
        planPosting(
          [
            {
              direction: original.direction === 'credit' ? 'debit' : 'credit',
              kind: 'reversal',
              amount: original.amount,
              status: 'confirmed',
              narration,
              providerTxnRef: original.providerTxnRef,
              transactionGroupId: original.transactionGroupId,
              reversesEntryId: original.id,
              counterPostings,
            },
          ],
          // Only provisional credits can be reversed, so a reversed credit always leaves pending credits.
          { pendingReleased: original.direction === 'credit' ? original.amount : 0n, heldReleased },
        ),
      );
      // A return to sender that did not pay: the money is over the limit still, so it is held again.
      if (original.direction === 'debit' && original.kind === 'settlement')
        await createReservations(trx).reserveReturnedAgain(original.accountId, original.id, reversal!.id);
      return { kind: 'reversed', original, reversal: reversal! };
    },
  };
}

export type PostingEngine = ReturnType<typeof createPostingEngine>;
