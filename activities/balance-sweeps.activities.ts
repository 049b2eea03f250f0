import type { BalanceSweepRunRequest, BalanceSweepRunResult } from '../src/contracts/balance-sweep.contract';
import type { BalanceSweepsService } from '../src/balance-sweeps/balance-sweeps.service';

export function createBalanceSweepActivities(deps: { balanceSweeps: Pick<BalanceSweepsService, 'run'> }) {
  const { balanceSweeps } = deps;
  return {
    /** Sweeps one account for the period its run was due in; at most one settlement per account and period. */
    runBalanceSweep(request: BalanceSweepRunRequest): Promise<BalanceSweepRunResult> {
      return balanceSweeps.run(request);
    },
  };
}

export type BalanceSweepActivities = ReturnType<typeof createBalanceSweepActivities>;
