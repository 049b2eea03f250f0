import { createJobs } from '../../contracts/jobs';
import { retrySettlementRun } from '../../settlements/settlement-restarts';
import { settlementWorkflowId } from '../../contracts/settlement.contract';
import { temporalUiLink } from '../../temporal/temporal-ui-link';
import { text, type Command } from './command';

export const settlementCommands: Record<string, Command> = {
  'settlement:retry': {
    usage:
      'settlement:retry --ref MERCHANT_TX_REF   (a new run of a pending or processing settlement whose run failed for good and was parked; it picks up where the database says it is)',
    options: { ref: { type: 'string' } },
    required: ['ref'],
    async run(context) {
      const { starter } = context.services;
      try {
        const merchantTxRef = text(context, 'ref').trim();
        const outcome = await retrySettlementRun({ db: context.db, jobs: createJobs(context.config), starter }, merchantTxRef);
        const workflowId = settlementWorkflowId(merchantTxRef);
        const human = {
          started: `settlement ${merchantTxRef}: a new run started (workflow ${workflowId}: ${temporalUiLink(context.config, workflowId)})`,
          running: `settlement ${merchantTxRef}: its run is still going; nothing started`,
          closed: `settlement ${merchantTxRef} is no longer pending or processing; nothing started`,
          not_found: `settlement ${merchantTxRef} not found`,
        }[outcome];
        context.print(human, { merchantTxRef, outcome });
        if (outcome !== 'started') process.exitCode = 1;
      } finally {
        await starter.close();
      }
    },
  },
};
