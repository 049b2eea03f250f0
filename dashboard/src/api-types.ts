// The dashboard's view of the API, typed from the server's own zod schemas (type-only imports: nothing
// of the server ends up in the bundle), so the pages cannot drift from what the routes answer.
import type { z } from 'zod';
import type { approvalPolicySchema } from '../../src/approval-policies/approval-policies.schemas';
import type { velocityRuleListSchema } from '../../src/velocity-rules/velocity-rules.schemas';
import type {
  accountSearchResponseSchema,
  dashboardAccountSchema,
  dashboardStatementResponseSchema,
} from '../../src/accounts/accounts.dashboard.schemas';
import type {
  balanceAtResponseSchema,
  dailyBalancesResponseSchema,
  deficitAccountsResponseSchema,
} from '../../src/accounts/accounts.schemas';
import type { AuditAction } from '../../src/audit/audit-actions';
import type { balanceSweepSchema } from '../../src/balance-sweeps/balance-sweeps.schemas';
import type { auditEntrySchema, auditLogResponseSchema } from '../../src/audit/audit.schemas';
import type { Permission, UserRole } from '../../src/http/roles';
import type {
  apiKeySchema,
  apiKeyScopeListSchema,
  apiKeysResponseSchema,
  createdApiKeySchema,
  createdUserSchema,
  sessionInfoSchema,
  tenantUserSchema,
  tenantUsersResponseSchema,
} from '../../src/auth/tenant-admin.schemas';
import type { customerDetailSchema } from '../../src/accounts/accounts.dashboard.schemas';
import type { enrolmentStartedSchema, recoveryCodesSchema, twoFactorStatusSchema } from '../../src/auth/two-factor.schemas';
import type { customerSearchResponseSchema } from '../../src/customers/customers.dashboard.schemas';
import type { customerSchema, kycReviewsResponseSchema } from '../../src/customers/customers.schemas';
import type {
  holdReturnLookupResponseSchema,
  holdReturnResponseSchema,
  holdsQueueResponseSchema,
  tierLimitsResponseSchema,
} from '../../src/kyc-limits/holds.schemas';
import type { booksBalancesResponseSchema, journalResponseSchema } from '../../src/books/books.schemas';
import type { refundListSchema, refundLookupSchema, refundSchema } from '../../src/refunds/refunds.schemas';
import type {
  batchItemSchema,
  batchListResponseSchema,
  batchSchema,
  batchSummarySchema,
  dryRunResponseSchema,
  heldBatchListResponseSchema,
  heldBatchSchema,
  heldBatchStatusSchema,
} from '../../src/settlement-batches/settlement-batches.schemas';
import type { splitRuleResponseSchema } from '../../src/split-rules/split-rules.schemas';
import type { lienBodySchema, openLiensResponseSchema } from '../../src/liens/liens.schemas';
import type { freezeBodySchema } from '../../src/accounts/account-freezes.schemas';
import type { tenantSummarySchema } from '../../src/dashboard/tenant-summary.schemas';
import type { feeQuoteSchema } from '../../src/fees/fees.schemas';
import type { misdirectedListResponseSchema, misdirectedPaymentSchema } from '../../src/payment-ingest/misdirected.schemas';
import type {
  dashboardRunDetailResponseSchema,
  exceptionDetailResponseSchema,
  exceptionListResponseSchema,
  exceptionSchema,
  runAcceptedResponseSchema,
  runListResponseSchema,
  runSchema,
} from '../../src/reconciliation/reconciliation.schemas';
import type { beneficiaryListSchema, beneficiarySchema } from '../../src/beneficiaries/beneficiaries.schemas';
import type { settlementDetailSchema, settlementListResponseSchema } from '../../src/settlements/settlements.dashboard.schemas';
import type {
  banksResponseSchema,
  heldPayoutListResponseSchema,
  heldPayoutSchema,
  lookupResponseSchema,
  settleResponseSchema,
  settlementListResponseSchema as payoutListResponseSchema,
} from '../../src/settlements/settlements.schemas';
import type {
  heldTransferListResponseSchema,
  heldTransferSchema,
  internalTransferSchema,
  transferListResponseSchema,
} from '../../src/internal-transfers/internal-transfers.schemas';
import type {
  deliveryListItemSchema,
  deliveryListResponseSchema,
  processingErrorsResponseSchema,
  replayManyResponseSchema,
} from '../../src/webhooks/webhooks.dashboard.schemas';
import type { deliverySchema } from '../../src/webhooks/webhooks.schemas';
import type {
  endpointListSchema,
  endpointSchema,
  endpointWithSecretSchema,
  eventTypeListSchema,
} from '../../src/webhooks/endpoints.schemas';

type Out<T extends z.ZodType> = z.output<T>;

export type { AuditAction, Permission, UserRole };
export type SessionInfo = Out<typeof sessionInfoSchema>;
export type TwoFactorStatus = Out<typeof twoFactorStatusSchema>;
export type EnrolmentStarted = Out<typeof enrolmentStartedSchema>;
export type RecoveryCodes = Out<typeof recoveryCodesSchema>;
export type Overview = Out<typeof tenantSummarySchema>;
export type DashboardAccount = Out<typeof dashboardAccountSchema>;
export type SplitRule = Out<typeof splitRuleResponseSchema>;
export type OpenLiens = Out<typeof openLiensResponseSchema>;
export type LienReason = Out<typeof lienBodySchema>['reason'];
export type FreezeSide = Out<typeof freezeBodySchema>['frozenFor'];
export type FreezeReason = Out<typeof freezeBodySchema>['reason'];
export type AccountSearch = Out<typeof accountSearchResponseSchema>;
export type DeficitAccounts = Out<typeof deficitAccountsResponseSchema>;
export type BalanceAt = Out<typeof balanceAtResponseSchema>;
export type DailyBalances = Out<typeof dailyBalancesResponseSchema>;
export type Statement = Out<typeof dashboardStatementResponseSchema>;
export type StatementLine = Statement['lines'][number];
export type BooksBalances = Out<typeof booksBalancesResponseSchema>;
export type Journal = Out<typeof journalResponseSchema>;
export type JournalTransaction = Journal['transactions'][number];
export type SettlementList = Out<typeof settlementListResponseSchema>;
export type SettlementListItem = SettlementList['settlements'][number];
export type SettlementDetail = Out<typeof settlementDetailSchema>;
export type Banks = Out<typeof banksResponseSchema>;
export type Lookup = Out<typeof lookupResponseSchema>;
export type SettleAccepted = Out<typeof settleResponseSchema>;
export type HeldPayout = Out<typeof heldPayoutSchema>;
export type HeldPayoutList = Out<typeof heldPayoutListResponseSchema>;
export type ScheduledPayoutList = Out<typeof payoutListResponseSchema>;
export type ApprovalPolicy = Out<typeof approvalPolicySchema>;
export type VelocityRuleList = Out<typeof velocityRuleListSchema>;
export type VelocityRule = VelocityRuleList['data'][number];
export type HeldBatch = Out<typeof heldBatchSchema>;
export type HeldBatchList = Out<typeof heldBatchListResponseSchema>;
export type HeldBatchStatus = Out<typeof heldBatchStatusSchema>;
export type InternalTransfer = Out<typeof internalTransferSchema>;
export type InternalTransferList = Out<typeof transferListResponseSchema>;
export type HeldTransfer = Out<typeof heldTransferSchema>;
export type HeldTransferList = Out<typeof heldTransferListResponseSchema>;
export type SettlementBatchSummary = Out<typeof batchSummarySchema>;
export type SettlementBatch = Out<typeof batchSchema>;
export type SettlementBatchList = Out<typeof batchListResponseSchema>;
export type SettlementBatchDryRun = Out<typeof dryRunResponseSchema>;
/** One item of a batch as the dashboard sends it (a request's shape, so the schema's input). */
export type SettlementBatchItem = z.input<typeof batchItemSchema>;
export type BalanceSweep = Out<typeof balanceSweepSchema>;
export type Beneficiary = Out<typeof beneficiarySchema>;
export type BeneficiaryList = Out<typeof beneficiaryListSchema>;
export type Customer = Out<typeof customerSchema>;
export type CustomerSearch = Out<typeof customerSearchResponseSchema>;
export type CustomerDetail = Out<typeof customerDetailSchema>;
export type KycReviews = Out<typeof kycReviewsResponseSchema>;
export type HoldsQueue = Out<typeof holdsQueueResponseSchema>;
export type HeldCredit = HoldsQueue['holds'][number];
export type ReturnDestination = Out<typeof holdReturnLookupResponseSchema>;
export type HoldReturned = Out<typeof holdReturnResponseSchema>;
export type Refund = Out<typeof refundSchema>;
export type PaymentRefunds = Out<typeof refundListSchema>;
export type RefundLookup = Out<typeof refundLookupSchema>;
export type TierLimits = Out<typeof tierLimitsResponseSchema>;
export type MisdirectedList = Out<typeof misdirectedListResponseSchema>;
export type MisdirectedPayment = Out<typeof misdirectedPaymentSchema>;
export type DeliveryList = Out<typeof deliveryListResponseSchema>;
export type DeliveryListItem = Out<typeof deliveryListItemSchema>;
export type Delivery = Out<typeof deliverySchema>;
export type ProcessingErrors = Out<typeof processingErrorsResponseSchema>;
export type ReplayMany = Out<typeof replayManyResponseSchema>;
export type WebhookEndpoint = Out<typeof endpointSchema>;
export type WebhookEndpointList = Out<typeof endpointListSchema>;
export type WebhookEndpointWithSecret = Out<typeof endpointWithSecretSchema>;
export type EventTypeList = Out<typeof eventTypeListSchema>;
export type ApiKey = Out<typeof apiKeySchema>;
export type ApiKeys = Out<typeof apiKeysResponseSchema>;
export type CreatedApiKey = Out<typeof createdApiKeySchema>;
export type ApiKeyScopeList = Out<typeof apiKeyScopeListSchema>;
export type TenantUser = Out<typeof tenantUserSchema>;
export type TenantUsers = Out<typeof tenantUsersResponseSchema>;
export type CreatedUser = Out<typeof createdUserSchema>;
export type AuditEntry = Out<typeof auditEntrySchema>;
export type AuditLogPage = Out<typeof auditLogResponseSchema>;
export type FeeQuote = Out<typeof feeQuoteSchema>;
export type ReconciliationRun = Out<typeof runSchema>;
export type ReconciliationRuns = Out<typeof runListResponseSchema>;
export type ReconciliationRunDetail = Out<typeof dashboardRunDetailResponseSchema>;
export type ReconciliationRunAccepted = Out<typeof runAcceptedResponseSchema>;
export type ReconciliationException = Out<typeof exceptionSchema>;
export type ReconciliationExceptions = Out<typeof exceptionListResponseSchema>;
export type ReconciliationExceptionDetail = Out<typeof exceptionDetailResponseSchema>;
export interface Pagination {
  limit: number;
  nextCursor: string | null;
  hasMore: boolean;
}
