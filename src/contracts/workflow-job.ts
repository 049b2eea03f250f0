import type { WorkflowSearchAttributes } from './search-attributes';

/**
 * A workflow to start: what the outbox stores and the starter starts. Each family's contract builds its
 * own; the catalogue lists every family's type.
 */
export interface WorkflowJob<T extends string = string, A = unknown> {
  workflowId: string;
  workflowType: T;
  args: A;
  searchAttributes: WorkflowSearchAttributes;
}

/** Where a family's jobs stand in the outbox drainer's order within a tenant (lower first), and whether an id may run again. */
export interface WorkflowStartPolicy {
  priority: number;
  reusePolicy: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE_FAILED_ONLY';
}
