import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';

/** Worker slots, pollers and cache from config; anything unset keeps the SDK's default (the cache is sized to the heap). */
export function workerTuning(
  config: Pick<
    Config,
    | 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'
    | 'WORKER_MAX_CONCURRENT_ACTIVITIES'
    | 'WORKER_MAX_CACHED_WORKFLOWS'
    | 'WORKER_WORKFLOW_TASK_POLLERS'
    | 'WORKER_ACTIVITY_TASK_POLLERS'
    | 'WORKER_STICKY_QUEUE_TIMEOUT'
  >,
): Partial<WorkerOptions> {
  const set = <K extends keyof WorkerOptions>(key: K, value: WorkerOptions[K] | undefined): Partial<WorkerOptions> =>
    value === undefined ? {} : { [key]: value };
  return {
    ...set('maxConcurrentWorkflowTaskExecutions', config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS),
    ...set('maxConcurrentActivityTaskExecutions', config.WORKER_MAX_CONCURRENT_ACTIVITIES),
    ...set('maxCachedWorkflows', config.WORKER_MAX_CACHED_WORKFLOWS),
    ...set('maxConcurrentWorkflowTaskPolls', config.WORKER_WORKFLOW_TASK_POLLERS),
    ...set('maxConcurrentActivityTaskPolls', config.WORKER_ACTIVITY_TASK_POLLERS),
    stickyQueueScheduleToStartTimeout: config.WORKER_STICKY_QUEUE_TIMEOUT,
  };
}
