import { randomUUID } from 'node:crypto';
import type {
  AcceptedSettlement,
  Account,
  BalanceSweep,
  BalanceSweepInput,
  AccountListQuery,
  AccountName,
  AccountPage,
  Balance,
  BalanceAt,
  DailyBalances,
  DailyBalancesQuery,
  Banks,
  Beneficiary,
  BeneficiaryListQuery,
  BeneficiaryPage,
  CreateBeneficiaryInput,
  CreateAccountInput,
  CreateWebhookEndpointInput,
  Customer,
  CustomerPage,
  FeeQuote,
  InternalTransfer,
  InternalTransferPage,
  InternalTransfersQuery,
  LedgerBalances,
  LedgerBalancesQuery,
  LedgerTransaction,
  LedgerTransactionPage,
  LedgerTransactionsQuery,
  LookupInput,
  PaymentRefunds,
  RecoverInput,
  RecoveryQueued,
  Refund,
  RefundInput,
  RefundListQuery,
  SettleInput,
  SettlementListQuery,
  SettlementPage,
  SettlementBatch,
  SettlementBatchDryRun,
  SettlementBatchInput,
  SettlementBatchItem,
  SettlementBatchListQuery,
  SettlementBatchPage,
  SettlementBatchQuery,
  SettlementBatchSummary,
  SplitRule,
  SplitRuleInput,
  StatementLine,
  StatementPage,
  StatementQuery,
  TenantTransferPage,
  TenantTransfersQuery,
  Transfer,
  TransferInput,
  UpdateAccountInput,
  UpdateBeneficiaryInput,
  UpdateWebhookEndpointInput,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './api-types';
import { paginate } from './pagination';
import { Transport, type TransportOptions } from './transport';

export type LedgerClientOptions = TransportOptions;

export interface IdempotencyOptions {
  /** One per operation you mean to make (your own payout id, say); a retry with the same key answers the first outcome. */
  idempotencyKey?: string;
}

const segment = (value: string) => encodeURIComponent(value);

/**
 * The NUBAN ledger API for one tenant: `new LedgerClient({ baseUrl, apiKey })`. Every method answers the
 * service's JSON, typed from its OpenAPI document, or throws a `LedgerError`.
 */
export class LedgerClient {
  private readonly transport: Transport;

  constructor(options: LedgerClientOptions) {
    this.transport = new Transport(options);
  }

  readonly accounts = {
    /** Provisions a virtual account (creating or reusing the customer keyed on `externalRef`). Retried only with an idempotency key. */
    create: (input: CreateAccountInput, options: IdempotencyOptions = {}): Promise<Account> =>
      this.transport.request({
        method: 'POST',
        path: '/v1/accounts',
        body: input,
        ...(options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {}),
      }),
    get: (accountRef: string): Promise<Account> => this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}` }),
    balance: (accountRef: string): Promise<Balance> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}/balance` }),
    /** The ledger balance as of a past instant (`at`: RFC 3339, or a Date), counting the entries posted at or before it. */
    balanceAt: (accountRef: string, at: string | Date): Promise<BalanceAt> =>
      this.transport.request({
        method: 'GET',
        path: `/v1/accounts/${segment(accountRef)}/balance`,
        query: { at: at instanceof Date ? at.toISOString() : at },
      }),
    /** Each Africa/Lagos day from `from` to `to` (YYYY-MM-DD, at most 366 days): opening balance, credits, debits, closing balance. */
    dailyBalances: (accountRef: string, query: DailyBalancesQuery): Promise<DailyBalances> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}/daily-balances`, query: { ...query } }),
    /** Merges `metadata` into the account's (a key given null is deleted, others kept); answers the account. */
    update: (accountRef: string, input: UpdateAccountInput): Promise<Account> =>
      this.transport.request({ method: 'PATCH', path: `/v1/accounts/${segment(accountRef)}`, body: input }),
    /** One page of the tenant's accounts, oldest first; `metadata` filters (every pair given must match). */
    listPage: (after?: string, query: AccountListQuery = {}): Promise<AccountPage> =>
      this.transport.request({ method: 'GET', path: '/v1/accounts', query: { ...query, after } }),
    /** Every account (or those carrying `metadata`), page by page. */
    list: (query: AccountListQuery = {}): AsyncGenerator<AccountPage['accounts'][number], void, undefined> =>
      paginate(
        (after) => this.accounts.listPage(after, query),
        (page) => page.accounts,
      ),
    /** One statement page: lines oldest first with running balances, and the period's totals. */
    statementPage: (accountRef: string, query: StatementQuery & { after?: string } = {}): Promise<StatementPage> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}/statement`, query: { ...query } }),
    /** Every statement line of the account (or of the period `from`/`to`), page by page. */
    statement: (accountRef: string, query: StatementQuery = {}): AsyncGenerator<StatementLine, void, undefined> =>
      paginate(
        (after) => this.accounts.statementPage(accountRef, { ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.lines,
      ),
    /**
     * Moves money from the account to another of the tenant's accounts, at once. Always sent with an
     * Idempotency-Key (the service requires one): yours, or one generated for this call (and reused by its
     * retries). Pass your own to retry safely after this call gives up: the key is on any error it throws.
     * Under the tenant's approval policy the answer's status may be `awaiting_approval`: its amount is reserved
     * until a person approves it on the dashboard (follow it with `transfers.getInternal` or the
     * `transfer.approved`, `.rejected` and `.expired` events; see `awaitsApproval`).
     */
    transfer: (accountRef: string, input: TransferInput, options: IdempotencyOptions = {}): Promise<InternalTransfer> =>
      this.transport.request({
        method: 'POST',
        path: `/v1/accounts/${segment(accountRef)}/transfers`,
        body: input,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
    /** One page of the account's transfers, both directions, newest first. */
    transfersPage: (accountRef: string, query: InternalTransfersQuery & { after?: string } = {}): Promise<InternalTransferPage> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}/transfers`, query: { ...query } }),
    /** Every transfer of the account, both directions, newest first, page by page. */
    transfers: (accountRef: string, query: InternalTransfersQuery = {}): AsyncGenerator<InternalTransfer, void, undefined> =>
      paginate(
        (after) => this.accounts.transfersPage(accountRef, { ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.transfers,
      ),
  };

  /** The tenant's books: balanced transactions between its customer accounts and its system accounts. */
  readonly ledger = {
    /** Each system account's balance and the customer accounts' together; `total` is always "0.00". */
    /**
     * With `at` (RFC 3339, or a Date) as they stood at that past instant, `asOf` naming it; `customerAccounts` is a page
     * of the customer accounts' balances (`limit`, `after`).
     */
    balances: (query: Omit<LedgerBalancesQuery, 'at'> & { at?: string | Date } = {}): Promise<LedgerBalances> =>
      this.transport.request({
        method: 'GET',
        path: '/v1/ledger/balances',
        query: { ...query, at: query.at instanceof Date ? query.at.toISOString() : query.at },
      }),
    /** Every customer account's ledger balance (now, or at `at`), page by page. */
    customerBalances: (
      query: Omit<LedgerBalancesQuery, 'at' | 'after'> & { at?: string | Date } = {},
    ): AsyncGenerator<LedgerBalances['customerAccounts'][number], void, undefined> =>
      paginate(
        (after) => this.ledger.balances({ ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.customerAccounts,
      ),
    /** One page of transactions, newest first, each with its postings. */
    transactionsPage: (query: LedgerTransactionsQuery & { after?: string } = {}): Promise<LedgerTransactionPage> =>
      this.transport.request({ method: 'GET', path: '/v1/ledger/transactions', query: { ...query } }),
    /** Every transaction, newest first, page by page. */
    transactions: (query: LedgerTransactionsQuery = {}): AsyncGenerator<LedgerTransaction, void, undefined> =>
      paginate(
        (after) => this.ledger.transactionsPage({ ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.transactions,
      ),
  };

  readonly settlements = {
    /**
     * Pays out from the account's balance to a bank account (`bankCode`, `accountNumber`) or a saved
     * beneficiary (`beneficiaryId`). Under the tenant's approval policy the answer's status may be
     * `awaiting_approval`: its amount is reserved until a person approves it on the dashboard (follow it with
     * `transfers.get` or the `settlement.approved`, `.rejected` and `.expired` events; see `awaitsApproval`).
     * With `scheduledFor` (an RFC 3339 instant with its offset, at most 90 days ahead) the payout is scheduled: its
     * amount is reserved now, it is paid at that time, and `transfers.cancel` stops it until then (the answer's
     * `schedule` says when and where it stands).
     * Always sent with an Idempotency-Key: yours, or one generated for this call (and reused by its retries). Pass your own to retry safely after this call gives up: the
     * key is on any error it throws (`error.idempotencyKey`).
     */
    settle: (accountRef: string, input: SettleInput, options: IdempotencyOptions = {}): Promise<AcceptedSettlement> =>
      this.transport.request({
        method: 'POST',
        path: `/v1/accounts/${segment(accountRef)}/settle`,
        body: input,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
  };

  /** Refunds of inbound payments, named by the transactionGroupId of their `payment.received`. */
  readonly refunds = {
    /**
     * Refunds part (`amount`) or all that is left of a confirmed payment to its payer's account, once the provider names
     * that account as the payment names the payer (otherwise a 409 `payer_name_mismatch` naming both). Always sent with an
     * Idempotency-Key: yours, or one generated for this call (and reused by its retries); a replay answers the same
     * refund. Follow it with `list`, `transfers.get(refund.merchantTxRef)` or the `payment.refund_succeeded` and
     * `payment.refund_failed` events.
     */
    create: (transactionGroupId: string, input: RefundInput, options: IdempotencyOptions = {}): Promise<Refund> =>
      this.transport.request({
        method: 'POST',
        path: `/v1/payments/${segment(transactionGroupId)}/refunds`,
        body: input,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
    /** The payment's refunds, oldest first, with their statuses, and what may still be refunded of it; `metadata` filters. */
    list: (transactionGroupId: string, query: RefundListQuery = {}): Promise<PaymentRefunds> =>
      this.transport.request({ method: 'GET', path: `/v1/payments/${segment(transactionGroupId)}/refunds`, query: { ...query } }),
  };

  /** An account's balance sweep to a saved beneficiary: daily at a Lagos time, or whenever above an amount. */
  readonly balanceSweeps = {
    /** Creates or replaces the account's sweep (`schedule` is `{ dailyAt: "HH:MM" }` or `{ whenAbove: "<amount>" }`). */
    set: (accountRef: string, input: BalanceSweepInput): Promise<BalanceSweep> =>
      this.transport.request({ method: 'PUT', path: `/v1/accounts/${segment(accountRef)}/sweep`, body: input }),
    /** The sweep and its recent runs, newest first. */
    get: (accountRef: string): Promise<BalanceSweep> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}/sweep` }),
    /** Stops it; settlements its runs made go on. */
    delete: async (accountRef: string): Promise<void> => {
      await this.transport.request({ method: 'DELETE', path: `/v1/accounts/${segment(accountRef)}/sweep` });
    },
  };

  /** Bulk payouts: up to 5,000 items, each an ordinary settlement made in order; an invalid item fails alone. */
  readonly settlementBatches = {
    /**
     * Accepts a batch. Always sent with an Idempotency-Key: yours, or one generated for this call (and
     * reused by its retries); a replay under the key answers the same batch. Under the tenant's approval
     * policy the answer's status may be `awaiting_approval`: its items' money is reserved and none runs
     * until a person approves the batch on the dashboard (follow it with `get` or the
     * `settlement_batch.approved`, `.rejected` and `.expired` events; see `awaitsApproval`).
     */
    create: (input: SettlementBatchInput, options: IdempotencyOptions = {}): Promise<SettlementBatchSummary> =>
      this.transport.request({
        method: 'POST',
        path: '/v1/settlement-batches',
        body: input,
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
      }),
    /** Judges every item now, as far as it can be without moving money; creates nothing. */
    dryRun: (input: SettlementBatchInput): Promise<SettlementBatchDryRun> =>
      this.transport.request({ method: 'POST', path: '/v1/settlement-batches', query: { dryRun: 'true' }, body: input }),
    /** The batch with one page of its items (`after`: the previous page's last reference; `metadata` filters the items). */
    get: (id: string, query: SettlementBatchQuery & { after?: string } = {}): Promise<SettlementBatch> =>
      this.transport.request({ method: 'GET', path: `/v1/settlement-batches/${segment(id)}`, query: { ...query } }),
    /** Every item of the batch (or those carrying `metadata`), in request order, page by page. */
    items: (id: string, query: SettlementBatchQuery = {}): AsyncGenerator<SettlementBatchItem, void, undefined> =>
      paginate(
        (after) => this.settlementBatches.get(id, { ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.items,
      ),
    /** One page of the tenant's batches, newest first; `metadata` filters (every pair given must match). */
    listPage: (after?: string, query: SettlementBatchListQuery = {}): Promise<SettlementBatchPage> =>
      this.transport.request({ method: 'GET', path: '/v1/settlement-batches', query: { ...query, after } }),
    /** Every batch of the tenant (or those carrying `metadata`), newest first, page by page. */
    list: (query: SettlementBatchListQuery = {}): AsyncGenerator<SettlementBatchSummary, void, undefined> =>
      paginate(
        (after) => this.settlementBatches.listPage(after, query),
        (page) => page.batches,
      ),
    /**
     * Stops the items not yet initiated (they fail with reason "cancelled"; a batch created with `scheduledFor`, before
     * its time: all of them, their reserved money released); items already settling go on.
     */
    cancel: (id: string): Promise<SettlementBatchSummary> =>
      this.transport.request({ method: 'POST', path: `/v1/settlement-batches/${segment(id)}/cancel` }),
  };

  /** An account's split rule: parts of each confirmed payment into it move to other accounts of the tenant as transfers. */
  readonly splitRules = {
    /** Sets or replaces the rule (each part `{ toAccountRef, percent }` or `{ toAccountRef, amount }`; `feeBearer` "account" or "split"). */
    set: (accountRef: string, input: SplitRuleInput): Promise<SplitRule> =>
      this.transport.request({ method: 'PUT', path: `/v1/accounts/${segment(accountRef)}/split-rule`, body: input }),
    get: (accountRef: string): Promise<SplitRule> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(accountRef)}/split-rule` }),
    /** Removes it: payments confirmed afterwards stay whole. */
    delete: async (accountRef: string): Promise<void> => {
      await this.transport.request({ method: 'DELETE', path: `/v1/accounts/${segment(accountRef)}/split-rule` });
    },
  };

  /** Saved payout destinations; a settle can name one (`{ amount, beneficiaryId }`). Only the GETs are retried. */
  readonly beneficiaries = {
    /**
     * Saves a destination under the name the provider gives it (looked up now). A destination already saved
     * answers its beneficiary, the name looked up again (and the nickname and metadata replaced when given).
     */
    create: (input: CreateBeneficiaryInput): Promise<Beneficiary> =>
      this.transport.request({ method: 'POST', path: '/v1/beneficiaries', body: input }),
    get: (id: string): Promise<Beneficiary> => this.transport.request({ method: 'GET', path: `/v1/beneficiaries/${segment(id)}` }),
    /** Merges `metadata` into the beneficiary's (a key given null is deleted, others kept); answers the beneficiary. */
    update: (id: string, input: UpdateBeneficiaryInput): Promise<Beneficiary> =>
      this.transport.request({ method: 'PATCH', path: `/v1/beneficiaries/${segment(id)}`, body: input }),
    /** One page of the tenant's beneficiaries, oldest first (50 unless `limit`, 1-200); `metadata` filters. */
    listPage: (query: BeneficiaryListQuery & { after?: string } = {}): Promise<BeneficiaryPage> =>
      this.transport.request({ method: 'GET', path: '/v1/beneficiaries', query: { ...query } }),
    /** Every beneficiary, page by page. */
    list: (query: BeneficiaryListQuery = {}): AsyncGenerator<Beneficiary, void, undefined> =>
      paginate(
        (after) => this.beneficiaries.listPage({ ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.beneficiaries,
      ),
    /** Deletes it for new payouts; settlements made to it still show its id. */
    delete: async (id: string): Promise<void> => {
      await this.transport.request({ method: 'DELETE', path: `/v1/beneficiaries/${segment(id)}` });
    },
  };

  readonly transfers = {
    /** A settlement's state, by the merchantTxRef `settle` answered. */
    get: (merchantTxRef: string): Promise<Transfer> =>
      this.transport.request({ method: 'GET', path: `/v1/transfers/${segment(merchantTxRef)}` }),
    /** One page of the tenant's settlements, newest first; `metadata` filters (every pair given must match). */
    listPage: (query: SettlementListQuery & { after?: string } = {}): Promise<SettlementPage> =>
      this.transport.request({ method: 'GET', path: '/v1/transfers', query: { ...query } }),
    /** Every settlement of the tenant (or those carrying `metadata`), newest first, page by page. */
    list: (query: SettlementListQuery = {}): AsyncGenerator<SettlementPage['transfers'][number], void, undefined> =>
      paginate(
        (after) => this.transfers.listPage({ ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.transfers,
      ),
    /** One page of the tenant's transfers between its accounts, newest first; `metadata` filters. */
    internalPage: (query: TenantTransfersQuery & { after?: string } = {}): Promise<TenantTransferPage> =>
      this.transport.request({ method: 'GET', path: '/v1/transfers/internal', query: { ...query } }),
    /** Every transfer between the tenant's accounts (or those carrying `metadata`), newest first, page by page. */
    internal: (query: TenantTransfersQuery = {}): AsyncGenerator<InternalTransfer, void, undefined> =>
      paginate(
        (after) => this.transfers.internalPage({ ...query, ...(after !== undefined ? { after } : {}) }),
        (page) => page.transfers,
      ),
    /** Cancels a payout scheduled for later before it starts: its reserved amount is released (a cancelled one answers again). */
    cancel: (merchantTxRef: string): Promise<Transfer> =>
      this.transport.request({ method: 'POST', path: `/v1/transfers/${segment(merchantTxRef)}/cancel` }),
    /** Every payout of the tenant still scheduled for later, soonest first, page by page. */
    scheduled: (query: Omit<SettlementListQuery, 'scheduled'> = {}): AsyncGenerator<SettlementPage['transfers'][number], void, undefined> =>
      paginate(
        (after) => this.transfers.listPage({ ...query, scheduled: 'true', ...(after !== undefined ? { after } : {}) }),
        (page) => page.transfers,
      ),
    /** The name on a destination account, to confirm before settling (sent once: it is not retried). */
    lookup: (input: LookupInput): Promise<AccountName> =>
      this.transport.request({ method: 'POST', path: '/v1/transfers/lookup', body: input }),
    banks: (): Promise<Banks> => this.transport.request({ method: 'GET', path: '/v1/transfers/banks' }),
    /** A transfer between two of the tenant's accounts, by the id `accounts.transfer` answered. */
    getInternal: (id: string): Promise<InternalTransfer> =>
      this.transport.request({ method: 'GET', path: `/v1/transfers/internal/${segment(id)}` }),
  };

  readonly customers = {
    get: (id: string): Promise<Customer> => this.transport.request({ method: 'GET', path: `/v1/customers/${segment(id)}` }),
    /** One page of the tenant's customers, oldest first. */
    listPage: (after?: string): Promise<CustomerPage> => this.transport.request({ method: 'GET', path: '/v1/customers', query: { after } }),
    /** Every customer, page by page. */
    list: (): AsyncGenerator<Customer, void, undefined> =>
      paginate(
        (after) => this.customers.listPage(after),
        (page) => page.customers,
      ),
  };

  /** Where the tenant's events go. Only the GETs are retried: the others are sent once. */
  readonly webhookEndpoints = {
    /** Adds an endpoint; the answer's `Secret` signs its deliveries and is shown this once. */
    create: (input: CreateWebhookEndpointInput): Promise<WebhookEndpointWithSecret> =>
      this.transport.request({ method: 'POST', path: '/v1/webhook-endpoints', body: input }),
    /** Every endpoint of the tenant with its health, oldest first. */
    list: async (): Promise<WebhookEndpoint[]> =>
      (await this.transport.request<{ endpoints: WebhookEndpoint[] }>({ method: 'GET', path: '/v1/webhook-endpoints' })).endpoints,
    get: (id: string): Promise<WebhookEndpoint> => this.transport.request({ method: 'GET', path: `/v1/webhook-endpoints/${segment(id)}` }),
    /** Changes its url, description, eventTypes or enabled (`{ enabled: true }` re-enables a disabled one). */
    update: (id: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpoint> =>
      this.transport.request({ method: 'PATCH', path: `/v1/webhook-endpoints/${segment(id)}`, body: input }),
    /** Deletes it; its deliveries still to be attempted end as cancelled. */
    delete: async (id: string): Promise<void> => {
      await this.transport.request({ method: 'DELETE', path: `/v1/webhook-endpoints/${segment(id)}` });
    },
    /** A new secret, shown once; the previous one keeps signing beside it until `SecretRotatedUntil`. */
    rotateSecret: (id: string): Promise<WebhookEndpointWithSecret> =>
      this.transport.request({ method: 'POST', path: `/v1/webhook-endpoints/${segment(id)}/rotate-secret` }),
    /** Re-sends the endpoint's events since `since`, a bounded number per call: pass the answer's `Next` as `after` to continue. */
    recover: (id: string, input: RecoverInput): Promise<RecoveryQueued> =>
      this.transport.request({ method: 'POST', path: `/v1/webhook-endpoints/${segment(id)}/recover`, body: input }),
  };

  readonly fees = {
    /** What a payer must send for `amount` (naira, e.g. "5000.00") to land. */
    calculate: (amount: string): Promise<FeeQuote> =>
      this.transport.request({ method: 'GET', path: '/v1/fees/calculate', query: { amount } }),
  };
}
