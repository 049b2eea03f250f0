import { Counter, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './registry';

/** Workflow starts this process made, by type, and whether the server handed the first task straight back (eager start). */
export function createWorkflowStartMetrics(registry: Registry) {
  const starts = new Counter({
    name: `${METRIC_PREFIX}workflow_starts_total`,
    help: 'Workflows this process started, by workflow type and eager (true: the first workflow task came back in the start answer, to this worker)',
    labelNames: ['workflow_type', 'eager'],
    registers: [registry],
  });
  return {
    started(workflowType: string, eager: boolean): void {
      starts.inc({ workflow_type: workflowType, eager: String(eager) });
    },
  };
}

export type WorkflowStartMetrics = ReturnType<typeof createWorkflowStartMetrics>;
