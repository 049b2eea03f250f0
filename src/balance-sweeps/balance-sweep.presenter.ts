import { formatKobo } from '../money';
import type { BalanceSweepRunResult } from '../contracts/balance-sweep.contract';
import type { BalanceSweepRecord, BalanceSweepRunRecord } from './balance-sweeps.repo';
import type { BalanceSweepView } from './balance-sweeps.schemas';
import { SWEEP_TIME_ZONE } from './balance-sweep-period';

export function presentRun(run: BalanceSweepRunRecord): BalanceSweepView['runs'][number] {
  return {
    period: run.period,
    outcome: run.outcome,
    reason: run.reason,
    merchantTxRef: run.merchantTxRef,
    amount: run.amount === null ? null : formatKobo(run.amount),
    at: run.at.toISOString(),
  };
}

export function runResult(run: BalanceSweepRunRecord): BalanceSweepRunResult {
  const { period, outcome, reason, merchantTxRef, amount } = presentRun(run);
  return { period, outcome, reason, merchantTxRef, amount };
}

export function presentBalanceSweep(accountRef: string, sweep: BalanceSweepRecord, runs: BalanceSweepRunRecord[]): BalanceSweepView {
  return {
    accountRef,
    beneficiaryId: sweep.beneficiaryId,
    schedule: sweep.dailyAt !== null ? { dailyAt: sweep.dailyAt } : { whenAbove: formatKobo(sweep.whenAbove!) },
    keep: formatKobo(sweep.keep),
    timeZone: SWEEP_TIME_ZONE,
    createdAt: sweep.createdAt.toISOString(),
    updatedAt: sweep.updatedAt.toISOString(),
    runs: runs.map(presentRun),
  };
}
