/**
 * The balance sweep's contract: the id of an account's Schedule, what each scheduled run is given and
 * what it reports. Workflow code imports this module: types and pure functions only.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** One Schedule per account with a sweep; the runs it starts take this id with their time appended. */
export const balanceSweepScheduleId = (accountId: string): string => `balance-sweep:${accountId}`;

/** Set by Temporal on every run a Schedule starts: the time the run was due (a run caught up late keeps its slot). */
export const SCHEDULED_START_TIME = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

/** What the Schedule starts the workflow with. */
export interface BalanceSweepInput {
  tenantId: string;
  accountId: string;
}

/** One run of a sweep: the account, and when the run was due (which period it sweeps). */
export interface BalanceSweepRunRequest extends BalanceSweepInput {
  scheduledAtMs: number;
}

export type BalanceSweepOutcome = 'settled' | 'nothing_to_move' | 'paused' | 'refused';

/** What a run did, as recorded; `no_sweep` (the sweep was deleted before the run) records nothing. */
export type BalanceSweepRunResult =
  | { outcome: 'no_sweep' }
  | {
      outcome: BalanceSweepOutcome;
      period: string;
      reason: string | null;
      merchantTxRef: string | null;
      /** Naira, two decimals: what the run settled, or what it found to move when it moved nothing. */
      amount: string | null;
    };
