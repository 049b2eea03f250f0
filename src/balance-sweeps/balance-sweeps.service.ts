import { findAccountById, findAccountByRef, type AccountRecord } from '../accounts/accounts.access';
import { lockBeneficiary } from '../beneficiaries/beneficiaries.access';
import { API_KEY_ACTOR, createAuditLog, type AuditAction, type AuditActor } from '../audit/audit-log';
import type { Config } from '../config';
import type { BalanceSweepRunRequest, BalanceSweepRunResult } from '../contracts/balance-sweep.contract';
import { requireTenantCustomer } from '../customers/customers.access';
import { isUniqueViolation, type Db, type DbOrTrx } from '../db';
import { AppError, NotFoundError } from '../errors';
import { derivedIdempotencyKey } from '../idempotency/derived-keys';
import { uuidv7 } from '../ids';
import type { PostingEngine } from '../ledger/posting-engine';
import { formatKobo } from '../money';
import type { AcceptedSettlement } from '../settlements/settle-outcomes';
import type { SettlementsService } from '../settlements/settlements.service';
import { presentBalanceSweep, runResult } from './balance-sweep.presenter';
import { sweepAmount, type SweepAmount } from './balance-sweep-amount';
import type { BalanceSweepSchedules } from './balance-sweep-schedules';
import { sweepPeriod } from './balance-sweep-period';
import { createBalanceSweepsRepo, type BalanceSweepRecord, type NewBalanceSweepRun } from './balance-sweeps.repo';
import type { BalanceSweepView, PutBalanceSweepBody } from './balance-sweeps.schemas';

/** Who changed a sweep, for the audit row: a dashboard user, or a call with one of the tenant's API keys. */
export type BalanceSweepActor = AuditActor | { tenantId: string };

/** The runs GET shows with a sweep, newest first. */
const RECENT_RUNS = 20;

/**
 * A run's reason when the approval policy holds sweeps: its payout waits for approval, its money reserved, so a later
 * period does not sweep that money again (the reservation takes it out of what the account may spend).
 */
const HELD_FOR_APPROVAL = 'its payout awaits approval under the approval policy';

/** Failures a run may outlast: it is retried (Temporal's activity retries), never recorded as refused. */
const TRANSIENT: ReadonlyArray<AppError['kind']> = ['rate_limited', 'provider_unavailable', 'unavailable'];

function recordAudit(trx: DbOrTrx, actor: BalanceSweepActor, action: AuditAction, account: AccountRecord, detail: Record<string, unknown>) {
  const target = { type: 'account', id: account.accountRef };
  const log = createAuditLog(trx);
  return 'email' in actor ? log.record(actor, action, target, detail) : log.recordAs(actor.tenantId, API_KEY_ACTOR, action, target, detail);
}

/** Why a run moves nothing however much the account holds, or null when it may sweep. */
function pauseReason(account: AccountRecord, customerStatus: string): string | null {
  if (account.deficitSince !== null || account.ledgerBalance < 0n) return 'account in deficit';
  if (customerStatus !== 'active') return 'customer suspended';
  if (account.status === 'expired') return 'account expired';
  return null;
}

/**
 * Scheduled balance sweeps: an account's setting (kept in Postgres, its Temporal Schedule brought in line
 * after each change) and each run, which pays what the account may spend less `keep` to a saved
 * beneficiary as an ordinary settlement, at most once per account and period.
 */
export function createBalanceSweepsService(deps: {
  db: Db;
  config: Pick<Config, 'SETTLEMENT_FUNDS' | 'MAX_AMOUNT' | 'BALANCE_SWEEP_CHECK_INTERVAL'>;
  /** A run pays as a settlement to a saved beneficiary does (its name checked again at the provider when stale). */
  settlements: Pick<SettlementsService, 'initiateToBeneficiary'>;
  /** What the account may spend and what its customer's daily payout limit leaves today, read to size a run. */
  postingEngine: Pick<PostingEngine, 'payoutStanding'>;
  schedules: Pick<BalanceSweepSchedules, 'kick'>;
}) {
  const { db, config, settlements, postingEngine, schedules } = deps;
  const sweeps = createBalanceSweepsRepo(db);

  async function requireAccount(tenantId: string, accountRef: string): Promise<AccountRecord> {
    const account = await findAccountByRef(db, tenantId, accountRef);
    if (!account) throw new NotFoundError('account not found');
    return account;
  }

  async function view(account: AccountRecord, sweep: BalanceSweepRecord): Promise<BalanceSweepView> {
    return presentBalanceSweep(account.accountRef, sweep, await sweeps.recentRuns(account.tenantId, account.id, RECENT_RUNS));
  }

  /** Records a run that moved nothing; a run of the period recorded first (a doubled trigger) is the answer instead. */
  async function recordUnsettled(run: Omit<NewBalanceSweepRun, 'id' | 'merchantTxRef'>): Promise<BalanceSweepRunResult> {
    return runResult(await sweeps.recordRun({ ...run, id: uuidv7(), merchantTxRef: null }));
  }

  async function settle(
    sweep: BalanceSweepRecord,
    account: AccountRecord,
    period: string,
    sized: SweepAmount,
  ): Promise<BalanceSweepRunResult> {
    const base = { tenantId: sweep.tenantId, accountId: sweep.accountId, period };
    const { amount, cap } = sized;
    let made: AcceptedSettlement;
    try {
      made = await settlements.initiateToBeneficiary(
        sweep.tenantId,
        account.accountRef,
        { amount, beneficiaryId: sweep.beneficiaryId, narration: `Balance sweep ${period}` },
        derivedIdempotencyKey('balance-sweep', account.accountRef, period),
        {
          // Judged by the approval policy's `sweeps`: under it the payout waits for approval, its money reserved.
          maker: { kind: 'balance_sweep' },
          onCreated: (trx, settlement) =>
            createBalanceSweepsRepo(trx).recordSettledRun({
              ...base,
              id: uuidv7(),
              outcome: 'settled',
              reason: settlement.status === 'awaiting_approval' ? [cap, HELD_FOR_APPROVAL].filter(Boolean).join('; ') : cap,
              merchantTxRef: settlement.merchantTxRef,
              amount,
            }),
        },
      );
    } catch (error) {
      // Another run of the period got there first (its settlement or its record): that run is the answer.
      const recorded = await sweeps.findRun(sweep.accountId, period);
      if (recorded) return runResult(recorded);
      if (isUniqueViolation(error) || !(error instanceof AppError) || TRANSIENT.includes(error.kind)) throw error;
      return recordUnsettled({ ...base, outcome: 'refused', reason: error.message, amount });
    }
    // The run was recorded with the settlement. Should it be gone (a replay of the period's key whose run
    // retention removed), the settlement the key made is recorded as the period's run now.
    return runResult(
      await sweeps.recordRun({
        ...base,
        id: uuidv7(),
        outcome: 'settled',
        reason: null,
        merchantTxRef: made.merchantTxRef,
        amount: made.amount,
      }),
    );
  }

  return {
    async get(tenantId: string, accountRef: string): Promise<BalanceSweepView> {
      const account = await requireAccount(tenantId, accountRef);
      const sweep = await sweeps.find(tenantId, account.id);
      if (!sweep) throw new NotFoundError('balance sweep not found');
      return view(account, sweep);
    },

    /** Creates or replaces the account's sweep; its Schedule follows after the commit. */
    async put(actor: BalanceSweepActor, accountRef: string, body: PutBalanceSweepBody): Promise<BalanceSweepView> {
      const account = await requireAccount(actor.tenantId, accountRef);
      const sweep = await db.transaction(async (trx) => {
        // Locked, so a delete of the beneficiary waits for this sweep and then refuses (balanceSweepUse).
        const beneficiary = await lockBeneficiary(trx, actor.tenantId, body.beneficiaryId);
        if (!beneficiary) throw new NotFoundError('beneficiary not found');
        const saved = await createBalanceSweepsRepo(trx).upsert({
          accountId: account.id,
          tenantId: actor.tenantId,
          beneficiaryId: beneficiary.id,
          dailyAt: body.schedule.dailyAt ?? null,
          whenAbove: body.schedule.whenAbove ?? null,
          keep: body.keep ?? 0n,
        });
        await recordAudit(trx, actor, 'balance_sweep.set', account, {
          beneficiaryId: saved.beneficiaryId,
          schedule: body.schedule.dailyAt !== undefined ? { dailyAt: body.schedule.dailyAt } : { whenAbove: formatKobo(saved.whenAbove!) },
          keep: formatKobo(saved.keep),
        });
        return saved;
      });
      schedules.kick(account.id);
      return view(account, sweep);
    },

    async delete(actor: BalanceSweepActor, accountRef: string): Promise<void> {
      const account = await requireAccount(actor.tenantId, accountRef);
      const deleted = await db.transaction(async (trx) => {
        if (!(await createBalanceSweepsRepo(trx).markDeleted(actor.tenantId, account.id))) return false;
        await recordAudit(trx, actor, 'balance_sweep.deleted', account, {});
        return true;
      });
      if (!deleted) throw new NotFoundError('balance sweep not found');
      schedules.kick(account.id);
    },

    /**
     * One run: paused (recorded, nothing moved) while the account is in deficit, its customer suspended
     * or the account expired; otherwise what a settlement may spend now (SETTLEMENT_FUNDS) less `keep`,
     * up to MAX_AMOUNT and to what the customer's daily payout limit leaves today (the run's reason says
     * which capped it), settled to the beneficiary under the derived Idempotency-Key of the account and
     * period, with the run recorded in the settlement's own transaction. A threshold sweep moves money only when
     * what may be spent is above its threshold. A run of a period already recorded answers that record.
     */
    async run(request: BalanceSweepRunRequest): Promise<BalanceSweepRunResult> {
      const sweep = await sweeps.find(request.tenantId, request.accountId);
      if (!sweep) return { outcome: 'no_sweep' };
      const period = sweepPeriod(
        sweep.dailyAt !== null ? 'daily' : 'threshold',
        request.scheduledAtMs,
        config.BALANCE_SWEEP_CHECK_INTERVAL,
      );
      const recorded = await sweeps.findRun(sweep.accountId, period);
      if (recorded) return runResult(recorded);
      const base = { tenantId: sweep.tenantId, accountId: sweep.accountId, period };
      const account = (await findAccountById(db, sweep.accountId))!;
      const customer = await requireTenantCustomer(db, sweep.tenantId, account.customerId);
      const paused = pauseReason(account, customer.status);
      if (paused) return recordUnsettled({ ...base, outcome: 'paused', reason: paused, amount: null });
      const standing = (await postingEngine.payoutStanding(account.id, config.SETTLEMENT_FUNDS))!;
      const spendable = standing.spendable > 0n ? standing.spendable : 0n;
      if (sweep.whenAbove !== null && spendable <= sweep.whenAbove)
        return recordUnsettled({
          ...base,
          outcome: 'nothing_to_move',
          reason: `${formatKobo(spendable)} to spend is not above the threshold of ${formatKobo(sweep.whenAbove)}`,
          amount: null,
        });
      if (spendable <= sweep.keep)
        return recordUnsettled({
          ...base,
          outcome: 'nothing_to_move',
          reason: `${formatKobo(spendable)} to spend is not above the ${formatKobo(sweep.keep)} to keep`,
          amount: null,
        });
      const sized = sweepAmount(spendable - sweep.keep, config.MAX_AMOUNT, standing);
      if (sized.amount === 0n)
        return recordUnsettled({
          ...base,
          outcome: 'nothing_to_move',
          reason: sized.cap,
          amount: null,
        });
      return settle(sweep, account, period, sized);
    },
  };
}

export type BalanceSweepsService = ReturnType<typeof createBalanceSweepsService>;
