import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';
import type { BalanceSweepOutcome } from '../contracts/balance-sweep.contract';

export interface BalanceSweepRecord {
  accountId: string;
  tenantId: string;
  beneficiaryId: string;
  /** "HH:MM" in Africa/Lagos, or null for a threshold sweep. */
  dailyAt: string | null;
  /** A threshold sweep runs when what the account may spend is above this; null for a daily sweep. */
  whenAbove: Kobo | null;
  keep: Kobo;
  version: number;
  scheduleVersion: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

interface BalanceSweepRow {
  account_id: string;
  tenant_id: string;
  beneficiary_id: string;
  daily_at: string | null;
  when_above: string | null;
  keep: string;
  version: number;
  schedule_version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const toSweep = (row: BalanceSweepRow): BalanceSweepRecord => ({
  accountId: row.account_id,
  tenantId: row.tenant_id,
  beneficiaryId: row.beneficiary_id,
  dailyAt: row.daily_at,
  whenAbove: row.when_above === null ? null : koboFromDb(row.when_above),
  keep: koboFromDb(row.keep),
  version: row.version,
  scheduleVersion: row.schedule_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
});

/** What a put sets: the sweep's account, its destination and its rule. */
export type BalanceSweepSetting = Pick<BalanceSweepRecord, 'accountId' | 'tenantId' | 'beneficiaryId' | 'dailyAt' | 'whenAbove' | 'keep'>;

export interface BalanceSweepRunRecord {
  id: string;
  accountId: string;
  period: string;
  outcome: BalanceSweepOutcome;
  reason: string | null;
  merchantTxRef: string | null;
  amount: Kobo | null;
  at: Date;
}

interface BalanceSweepRunRow {
  id: string;
  tenant_id: string;
  account_id: string;
  period: string;
  outcome: BalanceSweepOutcome;
  reason: string | null;
  merchant_tx_ref: string | null;
  amount: string | null;
  at: Date;
}

const toRun = (row: BalanceSweepRunRow): BalanceSweepRunRecord => ({
  id: row.id,
  accountId: row.account_id,
  period: row.period,
  outcome: row.outcome,
  reason: row.reason,
  merchantTxRef: row.merchant_tx_ref,
  amount: row.amount === null ? null : koboFromDb(row.amount),
  at: row.at,
});

export type NewBalanceSweepRun = Omit<BalanceSweepRunRecord, 'at'> & { tenantId: string };

const runRow = (run: NewBalanceSweepRun) => ({
  id: run.id,
  tenant_id: run.tenantId,
  account_id: run.accountId,
  period: run.period,
  outcome: run.outcome,
  reason: run.reason,
  merchant_tx_ref: run.merchantTxRef,
  amount: run.amount === null ? null : run.amount.toString(),
});

export function createBalanceSweepsRepo(db: DbOrTrx) {
  async function findRun(accountId: string, period: string): Promise<BalanceSweepRunRecord | undefined> {
    const row = await db<BalanceSweepRunRow>('balance_sweep_runs').where({ account_id: accountId, period }).first();
    return row ? toRun(row) : undefined;
  }

  return {
    /** The account's sweep, unless deleted. */
    async find(tenantId: string, accountId: string): Promise<BalanceSweepRecord | undefined> {
      const row = await db<BalanceSweepRow>('balance_sweeps')
        .where({ tenant_id: tenantId, account_id: accountId })
        .whereNull('deleted_at')
        .first();
      return row ? toSweep(row) : undefined;
    },

    /** Creates or replaces the account's sweep (a deleted one comes back), counting a change its Schedule must follow. */
    async upsert(setting: BalanceSweepSetting): Promise<BalanceSweepRecord> {
      const values = {
        account_id: setting.accountId,
        tenant_id: setting.tenantId,
        beneficiary_id: setting.beneficiaryId,
        daily_at: setting.dailyAt,
        when_above: setting.whenAbove === null ? null : setting.whenAbove.toString(),
        keep: setting.keep.toString(),
      };
      const [row] = await db('balance_sweeps')
        .insert(values)
        .onConflict('account_id')
        .merge({
          beneficiary_id: values.beneficiary_id,
          daily_at: values.daily_at,
          when_above: values.when_above,
          keep: values.keep,
          version: db.raw('balance_sweeps.version + 1'),
          updated_at: db.fn.now(),
          deleted_at: null,
          // A sweep deleted and set again keeps no creation time of the one deleted.
          created_at: db.raw('CASE WHEN balance_sweeps.deleted_at IS NULL THEN balance_sweeps.created_at ELSE now() END'),
        })
        .returning('*');
      return toSweep(row as BalanceSweepRow);
    },

    /** Deletes the sweep, keeping its row (a tombstone, which its Schedule follows by going); false when there was none. */
    async markDeleted(tenantId: string, accountId: string): Promise<boolean> {
      const changed = await db('balance_sweeps')
        .where({ tenant_id: tenantId, account_id: accountId })
        .whereNull('deleted_at')
        .update({ deleted_at: db.fn.now(), updated_at: db.fn.now(), version: db.raw('version + 1') });
      return changed > 0;
    },

    /** An account whose sweep (not deleted) pays to the beneficiary, if any. */
    async accountPayingTo(tenantId: string, beneficiaryId: string): Promise<string | undefined> {
      const row = await db('balance_sweeps')
        .where({ tenant_id: tenantId, beneficiary_id: beneficiaryId })
        .whereNull('deleted_at')
        .orderBy('account_id')
        .first('account_id');
      return row?.account_id;
    },

    /** The sweep, deleted or not (a deleted sweep's row stays: its `version` goes on counting if it is set again). */
    async findAny(accountId: string): Promise<BalanceSweepRecord | undefined> {
      const row = await db<BalanceSweepRow>('balance_sweeps').where({ account_id: accountId }).first();
      return row ? toSweep(row) : undefined;
    },

    /** Marks `version` as the one the Schedule follows, only while it is still the sweep's latest (false once it is not). */
    async markScheduled(accountId: string, version: number): Promise<boolean> {
      const changed = await db('balance_sweeps').where({ account_id: accountId, version }).update({ schedule_version: version });
      return changed > 0;
    },

    /**
     * Counts a change the Schedule must follow without changing the sweep: after a push that may have
     * landed after a later one's, the Schedule matches no known version until it is pushed again.
     */
    async markReschedule(accountId: string): Promise<void> {
      await db('balance_sweeps')
        .where({ account_id: accountId })
        .update({ version: db.raw('version + 1') });
    },

    /** Sweeps whose Schedule has not followed their last change, in account id order after `after` (a pass's place). */
    async unscheduled(limit: number, after: string | null): Promise<string[]> {
      const pending = db('balance_sweeps').whereRaw('version <> schedule_version');
      if (after !== null) pending.where('account_id', '>', after);
      const rows = await pending.orderBy('account_id').limit(limit).select('account_id');
      return rows.map((row: { account_id: string }) => row.account_id);
    },

    findRun,

    /** Records a run unless a run of that account and period was recorded first (that one wins); either way, the run recorded. */
    async recordRun(run: NewBalanceSweepRun): Promise<BalanceSweepRunRecord> {
      const [inserted] = await db<BalanceSweepRunRow>('balance_sweep_runs')
        .insert(runRow(run))
        .onConflict(['account_id', 'period'])
        .ignore()
        .returning('*');
      if (inserted) return toRun(inserted as BalanceSweepRunRow);
      const first = await findRun(run.accountId, run.period);
      if (!first) throw new Error(`the balance sweep run of account ${run.accountId} for ${run.period} was removed as it was recorded`);
      return first;
    },

    /** The settled run, in the settlement's own transaction: a run already recorded for the period fails it (unique key). */
    async recordSettledRun(run: NewBalanceSweepRun): Promise<void> {
      await db('balance_sweep_runs').insert(runRow(run));
    },

    async recentRuns(tenantId: string, accountId: string, limit: number): Promise<BalanceSweepRunRecord[]> {
      const rows = await db<BalanceSweepRunRow>('balance_sweep_runs')
        .where({ tenant_id: tenantId, account_id: accountId })
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit);
      return rows.map(toRun);
    },
  };
}
