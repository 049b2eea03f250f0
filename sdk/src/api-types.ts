import type { operations } from './generated/openapi';

/** The JSON body an operation answers with a given status, from the generated OpenAPI types. */
type Answer<O extends keyof operations, S extends keyof operations[O]['responses']> = operations[O]['responses'][S] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;
/** The JSON body an operation takes. */
type Body<O extends keyof operations> =
  NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
type Query<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>;

export type CreateAccountInput = Body<'postV1Accounts'>;
export type Account = Answer<'getV1AccountsAccountRef', 200>;
export type AccountPage = Answer<'getV1Accounts', 200>;
/** `metadata`: only the accounts carrying every key given with that value. */
export type AccountListQuery = Omit<Query<'getV1Accounts'>, 'after'>;
export type UpdateAccountInput = Body<'patchV1AccountsAccountRef'>;
/** The tenant's own data on a record (an account, settlement, transfer, batch and its items, beneficiary): string keys to string values. */
export type Metadata = Record<string, string>;
type BalanceAnswer = Answer<'getV1AccountsAccountRefBalance', 200>;
/** The balances now (asked without `at`). */
export type Balance = Extract<BalanceAnswer, { availableBalance: string }>;
/** The balance as of a past instant (asked with `at`): the ledger balance and the totals to date. */
export type BalanceAt = Exclude<BalanceAnswer, { availableBalance: string }>;
export type DailyBalancesQuery = Query<'getV1AccountsAccountRefDailybalances'>;
export type DailyBalances = Answer<'getV1AccountsAccountRefDailybalances', 200>;
export type StatementQuery = Omit<Query<'getV1AccountsAccountRefStatement'>, 'after'>;
export type StatementPage = Answer<'getV1AccountsAccountRefStatement', 200>;
export type StatementLine = StatementPage['lines'][number];
type SettleBody = Body<'postV1AccountsAccountRefSettle'>;
/** A settle pays a bank account or a saved beneficiary: exactly one of the two. */
export type SettleInput =
  | (Omit<SettleBody, 'bankCode' | 'accountNumber' | 'beneficiaryId'> & { bankCode: string; accountNumber: string; beneficiaryId?: never })
  | (Omit<SettleBody, 'bankCode' | 'accountNumber' | 'beneficiaryId'> & { beneficiaryId: string; bankCode?: never; accountNumber?: never });
export type AcceptedSettlement = Answer<'postV1AccountsAccountRefSettle', 202>;
export type Transfer = Answer<'getV1TransfersMerchantTxRef', 200>;
export type RefundInput = Body<'postV1PaymentsTransactionGroupIdRefunds'>;
/** A refund of a payment to its payer, with its settlement's status. */
export type Refund = Answer<'postV1PaymentsTransactionGroupIdRefunds', 202>;
/** A payment's refunds, oldest first, and what may still be refunded of it. */
export type PaymentRefunds = Answer<'getV1PaymentsTransactionGroupIdRefunds', 200>;
/** `metadata`: only the refunds carrying every key given with that value. */
export type RefundListQuery = Query<'getV1PaymentsTransactionGroupIdRefunds'>;
export type SettlementPage = Answer<'getV1Transfers', 200>;
/** `metadata`: only the settlements carrying every key given with that value. */
export type SettlementListQuery = Omit<Query<'getV1Transfers'>, 'after'>;
export type TransferInput = Body<'postV1AccountsAccountRefTransfers'>;
/** A transfer between two of the tenant's accounts. */
export type InternalTransfer = Answer<'postV1AccountsAccountRefTransfers', 201>;
export type InternalTransferPage = Answer<'getV1AccountsAccountRefTransfers', 200>;
export type InternalTransfersQuery = Omit<Query<'getV1AccountsAccountRefTransfers'>, 'after'>;
export type TenantTransferPage = Answer<'getV1TransfersInternal', 200>;
export type TenantTransfersQuery = Omit<Query<'getV1TransfersInternal'>, 'after'>;
export type BalanceSweepInput = Body<'putV1AccountsAccountRefSweep'>;
export type BalanceSweep = Answer<'getV1AccountsAccountRefSweep', 200>;
export type BalanceSweepRun = BalanceSweep['runs'][number];
export type SettlementBatchInput = Body<'postV1Settlementbatches'>;
export type SettlementBatchItemInput = SettlementBatchInput['items'][number];
/** A batch as accepted, listed or cancelled: its status and counts per item status. */
export type SettlementBatchSummary = Answer<'postV1Settlementbatches', 202>;
export type SettlementBatchDryRun = Answer<'postV1Settlementbatches', 200>;
/** A batch with one page of its items, in request order. */
export type SettlementBatch = Answer<'getV1SettlementbatchesId', 200>;
export type SettlementBatchItem = SettlementBatch['items'][number];
/** `metadata`: only the items carrying every key given with that value. */
export type SettlementBatchQuery = Omit<Query<'getV1SettlementbatchesId'>, 'after'>;
export type SettlementBatchPage = Answer<'getV1Settlementbatches', 200>;
/** `metadata`: only the batches carrying every key given with that value. */
export type SettlementBatchListQuery = Omit<Query<'getV1Settlementbatches'>, 'after'>;
export type SplitRuleInput = Body<'putV1AccountsAccountRefSplitrule'>;
export type SplitRule = Answer<'getV1AccountsAccountRefSplitrule', 200>;
export type LookupInput = Body<'postV1TransfersLookup'>;
export type AccountName = Answer<'postV1TransfersLookup', 200>;
export type Banks = Answer<'getV1TransfersBanks', 200>;
export type CreateBeneficiaryInput = Body<'postV1Beneficiaries'>;
export type Beneficiary = Answer<'getV1BeneficiariesId', 200>;
export type BeneficiaryPage = Answer<'getV1Beneficiaries', 200>;
/** `metadata`: only the beneficiaries carrying every key given with that value. */
export type BeneficiaryListQuery = Omit<Query<'getV1Beneficiaries'>, 'after'>;
export type UpdateBeneficiaryInput = Body<'patchV1BeneficiariesId'>;
export type CustomerPage = Answer<'getV1Customers', 200>;
export type Customer = CustomerPage['customers'][number];
export type FeeQuote = Answer<'getV1FeesCalculate', 200>;
export type LedgerBalances = Answer<'getV1LedgerBalances', 200>;
export type LedgerBalancesQuery = Query<'getV1LedgerBalances'>;
export type LedgerTransactionsQuery = Omit<Query<'getV1LedgerTransactions'>, 'after'>;
export type LedgerTransactionPage = Answer<'getV1LedgerTransactions', 200>;
export type LedgerTransaction = LedgerTransactionPage['transactions'][number];
export type CreateWebhookEndpointInput = Body<'postV1Webhookendpoints'>;
export type UpdateWebhookEndpointInput = Body<'patchV1WebhookendpointsId'>;
export type WebhookEndpoint = Answer<'getV1WebhookendpointsId', 200>;
/** An endpoint as created or as its secret was rotated: the only answers that carry `Secret`. */
export type WebhookEndpointWithSecret = Answer<'postV1Webhookendpoints', 201>;
export type WebhookEndpointList = Answer<'getV1Webhookendpoints', 200>;
export type RecoverInput = Body<'postV1WebhookendpointsIdRecover'>;
export type RecoveryQueued = Answer<'postV1WebhookendpointsIdRecover', 202>;

/**
 * Statuses of a payout the tenant's approval policy held, which no settlement has (yet): `awaiting_approval` (its
 * amount reserved until a second person approves it on the dashboard; API keys never approve), `rejected` and
 * `expired` (its amount released). Approved, it becomes the settlement of the same merchantTxRef (`pending`, then on).
 */
export type HeldPayoutStatus = 'awaiting_approval' | 'rejected' | 'expired';
