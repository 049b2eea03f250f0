import { Context } from '@temporalio/activity';
import type { Logger } from '../src/logger';
import type { RetentionService } from '../src/retention/retention.service';
import type { RetentionResult } from '../src/contracts/retention.contract';

export function createRetentionActivities(deps: { retention: RetentionService; logger: Logger }) {
  const { retention, logger } = deps;
  return {
    async applyRetention(): Promise<RetentionResult> {
      const result = await retention.run({ onProgress: () => Context.current().heartbeat() });
      if (Object.values(result).some((count) => count > 0)) logger.info(result, 'retention applied');
      return result;
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
