import { z } from 'zod';
import { duration, integer, optionalInteger } from './values';

/** The worker process: how many copies, and how each one polls and caches. */
export const workerEnv = z.object({
  WORKER_PROCESSES: integer(1, 1, 64),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: optionalInteger(1, 10_000),
  WORKER_MAX_CONCURRENT_ACTIVITIES: optionalInteger(1, 10_000),
  WORKER_MAX_CACHED_WORKFLOWS: optionalInteger(0, 1_000_000),
  WORKER_WORKFLOW_TASK_POLLERS: optionalInteger(2, 1_000),
  WORKER_ACTIVITY_TASK_POLLERS: optionalInteger(1, 1_000),
  WORKER_STICKY_QUEUE_TIMEOUT: duration('10s'),
  WORKER_HEAP_GROWING_PERCENT: integer(50, 0, 1_000),
  WORKER_NICE: integer(10, 0, 19),
});
