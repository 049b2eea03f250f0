import type { DbOrTrx } from '../db';
import type { BatchApprovalPolicy } from '../policies/batch-approval/batch-approval';
import { createApprovalPoliciesRepo, type FullApprovalPolicy } from './approval-policies.repo';

/** The tenant's approval policy as the payouts it judges read it; undefined when it has none (the policy is off). */
export const approvalPolicyOf = (db: DbOrTrx, tenantId: string): Promise<FullApprovalPolicy | undefined> =>
  createApprovalPoliciesRepo(db).find(tenantId);

/** The tenant's approval policy as the settlement batches it judges read it; undefined when it has none. */
export const batchApprovalPolicyOf = (db: DbOrTrx, tenantId: string): Promise<BatchApprovalPolicy | undefined> =>
  createApprovalPoliciesRepo(db).find(tenantId);
