import { Client, type ConnectionLike } from '@temporalio/client';
import { accountsDashboardRoutes } from '../accounts/accounts.dashboard.routes';
import { createAccountsService } from '../accounts/accounts.service';
import { accountsRoutes } from '../accounts/accounts.routes';
import { customerAccountsRoutes } from '../accounts/customer-accounts.routes';
import { createAuditLog } from '../audit/audit-log';
import { createBalanceSweepSchedules } from '../balance-sweeps/balance-sweep-schedules';
import { balanceSweepUse } from '../balance-sweeps/balance-sweeps.access';
import { balanceSweepsDashboardRoutes, balanceSweepsRoutes } from '../balance-sweeps/balance-sweeps.routes';
import { createBalanceSweepsService } from '../balance-sweeps/balance-sweeps.service';
import { createSettlementBatchExecutionService } from '../settlement-batches/settlement-batch-execution.service';
import { settlementBatchesDashboardRoutes, settlementBatchesRoutes } from '../settlement-batches/settlement-batches.routes';
import { batchApprovalsDashboardRoutes } from '../settlement-batches/batch-approvals.routes';
import { createSettlementBatchesService } from '../settlement-batches/settlement-batches.service';
import { beneficiariesDashboardRoutes, beneficiariesRoutes } from '../beneficiaries/beneficiaries.routes';
import { createBeneficiariesService } from '../beneficiaries/beneficiaries.service';
import { API_KEYS_CHANGED_CHANNEL, createApiKeyCache, type ApiKeyCache } from '../auth/api-key-cache';
import { createApiKeysService } from '../auth/api-keys.service';
import { authRoutes } from '../auth/auth.routes';
import { createAuthService } from '../auth/auth.service';
import { tenantAdminRoutes } from '../auth/tenant-admin.routes';
import { createPasswordChangesService } from '../auth/password-changes.service';
import { passwordRoutes } from '../auth/passwords.routes';
import { twoFactorRoutes } from '../auth/two-factor.routes';
import { createTwoFactorService } from '../auth/two-factor.service';
import { createTenantUsersService } from '../auth/tenant-users.service';
import { cellConfig, type Config } from '../config';
import { createTenantDirectory, type TenantDirectory } from '../clusters/tenant-directory';
import { customersDashboardRoutes } from '../customers/customers.dashboard.routes';
import { customersRoutes } from '../customers/customers.routes';
import { createCustomersService } from '../customers/customers.service';
import { createIdentityClient } from '../customers/identity-client';
import { createKycService } from '../customers/kyc.service';
import { tenantSummaryRoutes } from '../dashboard/tenant-summary.routes';
import { createKnex, type Db } from '../db';
import { createReadRouter, type ReadRouter } from '../read-routing/read-router';
import { feesDashboardRoutes } from '../fees/fees.dashboard.routes';
import { holdsRoutes } from '../kyc-limits/holds.routes';
import { kycLimitsRoutes } from '../kyc-limits/kyc-limits.routes';
import { createKycLimitsService } from '../kyc-limits/kyc-limits.service';
import { createHoldsService } from '../kyc-limits/holds.service';
import { createPayerReturns } from '../payer-returns/payer-returns';
import { refundsDashboardRoutes, refundsRoutes } from '../refunds/refunds.routes';
import { createRefundsService } from '../refunds/refunds.service';
import { createDynamicAccountsService } from '../dynamic-accounts/dynamic-accounts.service';
import { feesRoutes } from '../fees/fees.routes';
import { createFeesService } from '../fees/fees.service';
import type { ReadinessCheck } from '../http/app';
import type { RouteDefinition } from '../http/route';
import { createBatchClaimReleaser } from '../payment-confirmation/batch-claim-releases';
import { createConfirmationBatcher } from '../payment-confirmation/confirmation-batcher';
import { createJobs } from '../contracts/jobs';
import { createOutboxRepo } from '../workflow-starts/outbox.repo';
import { createReconciliationExceptionsRepo } from '../reconciliation/reconciliation-exceptions.repo';
import { settlementRestartPlan } from '../settlements/settlement-restarts';
import { settlementBatchRestartPlan } from '../settlement-batches/settlement-batch-restarts';
import { createWorkflowRestarter } from '../workflow-starts/workflow-restarts';
import { createWorkflowStarter } from '../workflow-starts/workflow-starter';
import { statementRoutes } from '../accounts/statement.routes';
import { createPostingEngine } from '../ledger/posting-engine';
import { tierDefaultsOf } from '../policies/kyc-limits/customer-limits';
import { createStatementService } from '../accounts/statement.service';
import { booksDashboardRoutes } from '../books/books.dashboard.routes';
import { booksRoutes } from '../books/books.routes';
import { createBooksService } from '../books/books.service';
import { accountFreezesRoutes } from '../accounts/account-freezes.routes';
import { createAccountFreezesService } from '../accounts/account-freezes.service';
import { liensRoutes } from '../liens/liens.routes';
import { createLiensService } from '../liens/liens.service';
import { splitRulesRoutes } from '../split-rules/split-rules.routes';
import { createSplitRulesService } from '../split-rules/split-rules.service';
import type { Logger } from '../logger';
import { createProcessMetrics, type ProcessMetrics } from '../metrics/process-metrics';
import { listenForNotifications, type NotificationListener } from '../notification-listener';
import { misdirectedRoutes } from '../payment-ingest/misdirected.routes';
import { createMisdirectedService } from '../payment-ingest/misdirected.service';
import { createPaymentCrediter } from '../payment-ingest/payment-credit';
import { createBatchConfirmationService } from '../payment-confirmation/batch-confirmation.service';
import { createPaymentIngestService } from '../payment-ingest/payment-ingest.service';
import { providerWebhookRoutes } from '../payment-ingest/provider-webhook.routes';
import type { PaymentProvider } from '../provider/payment-provider';
import { createProviderLanes } from '../provider/provider-lanes';
import { createSpecProvider } from '../provider/spec-provider/spec-provider';
import { createSpecProviderNotifications } from '../provider/spec-provider/webhook-notifications';
import { createReconciliationExecutionService } from '../reconciliation/reconciliation-execution.service';
import { reconciliationRoutes } from '../reconciliation/reconciliation.routes';
import { createReconciliationService } from '../reconciliation/reconciliation.service';
import { createSettlementWatchService } from '../reconciliation/settlement-watch.service';
import { createRateLimits } from '../rate-limits/rate-limits';
import { createRetentionService } from '../retention/retention.service';
import { createHistoryMonthsService } from '../history/history-months.service';
import { createBankDirectory } from '../settlements/bank-directory';
import { createSettlementExecutionService } from '../settlements/settlement-execution.service';
import type { RaiseSettlementFinding } from '../settlements/settlement-findings';
import { settlementsDashboardRoutes } from '../settlements/settlements.dashboard.routes';
import { scheduledPayoutsDashboardRoutes } from '../settlements/scheduled-payouts.dashboard.routes';
import { payoutApprovalsDashboardRoutes } from '../settlements/payout-approvals.routes';
import { approvalPoliciesDashboardRoutes } from '../approval-policies/approval-policies.routes';
import { createApprovalPoliciesService } from '../approval-policies/approval-policies.service';
import { velocityRulesRoutes } from '../velocity-rules/velocity-rules.routes';
import { createVelocityRulesService } from '../velocity-rules/velocity-rules.service';
import { settlementsRoutes } from '../settlements/settlements.routes';
import { internalTransfersDashboardRoutes } from '../internal-transfers/internal-transfers.dashboard.routes';
import { internalTransfersRoutes } from '../internal-transfers/internal-transfers.routes';
import { transferApprovalsDashboardRoutes } from '../internal-transfers/transfer-approvals.routes';
import { createInternalTransfersService } from '../internal-transfers/internal-transfers.service';
import { createEventedLedger } from '../events/ledger-events';
import { createSettlementsService } from '../settlements/settlements.service';
import { createPayoutApprovalsService } from '../settlements/payout-approvals.service';
import { createScheduledPayoutsService } from '../settlements/scheduled-payouts.service';
import { scheduledPayoutRestartPlan } from '../settlements/scheduled-payout-restarts';
import { createCellTenantWorkflows } from '../tenant-moves/cell-workflows';
import { scheduledPayoutCancelledSignal, scheduledPayoutWorkflowId } from '../contracts/scheduled-payout.contract';
import { createTemporalClient, isTemporalReachable } from '../temporal/client';
import { withTimeout } from '../timeout';
import { createWebhookDeliveryService } from '../webhooks/delivery.service';
import { webhooksDashboardRoutes } from '../webhooks/webhooks.dashboard.routes';
import { webhooksRoutes } from '../webhooks/webhooks.routes';
import { createEventDispatcher } from '../webhooks/event-dispatcher';
import { endpointsDashboardRoutes } from '../webhooks/endpoints.dashboard.routes';
import { endpointsRoutes } from '../webhooks/endpoints.routes';
import { createEndpointsService } from '../webhooks/endpoints.service';
import { createWebhooksService } from '../webhooks/webhooks.service';
import { payoutSignal, settlementWorkflowId } from '../contracts/settlement.contract';
import { settlementBatchCancelledSignal, settlementBatchWorkflowId } from '../contracts/settlement-batch.contract';

export interface Infrastructure {
  config: Config;
  logger: Logger;
  db: Db;
  /** Where the reads that may come from a replica go (DATABASE_REPLICA_URL), and the write positions that bound them. */
  reads: ReadRouter;
  /** The replica's own pool, when there is one (reads reach it through `reads`). */
  replica?: Db;
  temporal: Client;
  provider: PaymentProvider;
  metrics: ProcessMetrics;
}

/** A replica that gives no connection within this long is treated as down: the primary serves the read. */
const REPLICA_ACQUIRE_TIMEOUT_MS = 2_000;

/** `shared`: another cell's Temporal client, provider and metrics, which every cell of a process uses. */
export function createInfrastructure(
  config: Config,
  logger: Logger,
  shared?: Pick<Infrastructure, 'temporal' | 'provider' | 'metrics'>,
): Infrastructure {
  const metrics = shared?.metrics ?? createProcessMetrics();
  const db = createKnex(config, logger.child({ component: 'db' }));
  const replica = config.DATABASE_REPLICA_URL
    ? createKnex({ ...config, DATABASE_URL: config.DATABASE_REPLICA_URL }, logger.child({ component: 'db-replica' }), {
        acquireConnectionTimeoutMs: REPLICA_ACQUIRE_TIMEOUT_MS,
      })
    : undefined;
  return {
    config,
    logger,
    db,
    replica,
    reads: createReadRouter({
      primary: db,
      replica,
      maxLagMs: config.DATABASE_REPLICA_MAX_LAG,
      logger: logger.child({ component: 'read-router' }),
    }),
    temporal: shared?.temporal ?? createTemporalClient(config),
    provider: shared?.provider ?? createSpecProvider(config, logger.child({ component: 'provider' }), metrics.provider),
    metrics,
  };
}

export async function closeInfrastructure(infra: Infrastructure): Promise<void> {
  await Promise.allSettled([infra.db.destroy(), infra.replica?.destroy(), infra.temporal.connection.close()]);
}

/**
 * One Infrastructure per cluster (a cell): each with its cluster's pool and, in its config, its database and task
 * queue; the Temporal client, the provider and the metrics are the process's, shared. With one cluster, exactly
 * what createInfrastructure makes.
 */
export function createCellInfrastructures(config: Config, logger: Logger): Infrastructure[] {
  const several = config.CLUSTERS.length > 1;
  const cells: Infrastructure[] = [];
  for (const cluster of config.CLUSTERS)
    cells.push(createInfrastructure(cellConfig(config, cluster), several ? logger.child({ cluster: cluster.name }) : logger, cells[0]));
  return cells;
}

export async function closeCellInfrastructures(cells: Infrastructure[]): Promise<void> {
  await Promise.allSettled([
    ...cells.flatMap((cell) => [cell.db.destroy(), cell.replica?.destroy()]),
    cells[0]?.temporal.connection.close(),
  ]);
}

/** The directory of tenant placements, on the control database; null with one cluster, where every tenant lives on it. */
export function createDirectory(config: Config, logger: Logger, poolMax = 4): TenantDirectory | null {
  if (config.CLUSTERS.length === 1) return null;
  return createTenantDirectory({
    db: createKnex({ DATABASE_URL: config.CONTROL_DATABASE_URL, DATABASE_POOL_MAX: poolMax }, logger.child({ component: 'control-db' })),
    clusters: config.CLUSTERS.map((cluster) => cluster.name),
    logger,
  });
}

/** Tenants of this many API keys at most stay in an API process's memory (the most recently first used). */
const API_KEY_CACHE_ENTRIES = 10_000;

/** Every service, wired once; the API, the worker, the CLI and the tests all build from here. */
/**
 * `clock`: the time two-factor codes are judged by (tests pass their own; the system clock otherwise).
 * `reconciliationCells`, with several clusters: whether this cell's platform runs report the wallet's rows no cluster
 * places (the first cell's do), and the other cells' pools (see createReconciliationExecutionService).
 */
export function createServices(
  infra: Infrastructure,
  options: { searchAttributes?: boolean; clock?: () => number; reconciliationCells?: { reportsUnowned: boolean; others: Db[] } } = {},
) {
  const { config, logger, db, temporal, metrics } = infra;
  // The services behind the routes whose reads may come from a replica (replica-reads.ts) are built on readDb: it is
  // the primary everywhere except in those routes' handlers, so their writes, transactions and money checks, made by
  // other routes, the worker and the CLI, stay on the primary. Rate limits, auth and idempotency keep the primary's.
  const readDb = infra.reads.db;
  // Reconciliation reaches the provider through the background lane, behind money moving now.
  const lanes = createProviderLanes(infra.provider, { backgroundConcurrency: config.RECONCILIATION_PROVIDER_CONCURRENCY });
  const provider = lanes.foreground;
  const postingEngine = createPostingEngine(db, { tierDefaults: tierDefaultsOf(config) });
  // The ledger whose money operations record the events of what they did (events/ledger-events): what product modules that move money use.
  const ledger = createEventedLedger(postingEngine);
  const jobs = createJobs(config);
  const starter = createWorkflowStarter({
    client: temporal,
    outbox: createOutboxRepo(db),
    logger: logger.child({ component: 'workflow-starter' }),
    metrics: metrics.starts,
    options: {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      startsPerSecond: config.WORKFLOW_START_RATE,
      searchAttributes: options.searchAttributes ?? true,
    },
  });
  const rateLimits = createRateLimits(db, config);
  const apiKeyCache = createApiKeyCache({ ttlMs: config.API_KEY_CACHE_TTL, maxEntries: API_KEY_CACHE_ENTRIES });
  const clock = options.clock ?? Date.now;
  const auth = createAuthService({ db, config, apiKeyCache, logger: logger.child({ component: 'auth' }), clock });
  const accounts = createAccountsService({ db: readDb, config, provider });
  const statements = createStatementService({ db: readDb, accounts });
  const settlements = createSettlementsService({
    db: readDb,
    config,
    postingEngine: ledger,
    logger,
    provider,
    banks: createBankDirectory({ provider, logger, ttlMs: config.BANK_LIST_TTL, retryBudgetMs: config.PROVIDER_LOOKUP_RETRY_BUDGET }),
    jobs,
    starter,
    limits: rateLimits,
    signal: (merchantTxRef, signal) =>
      temporal.withDeadline(Date.now() + 10_000, () =>
        temporal.workflow.getHandle(settlementWorkflowId(merchantTxRef)).signal(payoutSignal, signal),
      ),
    beneficiaries: () => beneficiaries,
  });
  const payoutApprovals = createPayoutApprovalsService({ db, settlements });
  const scheduledPayouts = createScheduledPayoutsService({
    db,
    settlements,
    wake: (merchantTxRef) =>
      temporal.withDeadline(Date.now() + 10_000, () =>
        temporal.workflow.getHandle(scheduledPayoutWorkflowId(merchantTxRef)).signal(scheduledPayoutCancelledSignal),
      ),
  });
  // Beneficiaries ask the settlements service for names; a settlement naming a beneficiary asks them where it pays.
  const beneficiaries = createBeneficiariesService({
    db: readDb,
    config,
    names: {
      lookup: async (tenantId, destination) =>
        (await settlements.lookupAccount(tenantId, destination.accountNumber, destination.bankCode)).accountName,
      currentName: (destination) => settlements.currentAccountName(destination.accountNumber, destination.bankCode),
    },
    uses: [balanceSweepUse],
  });
  const balanceSweepSchedules = createBalanceSweepSchedules({
    db,
    client: temporal,
    config,
    logger: logger.child({ component: 'balance-sweep-schedules' }),
  });
  // Every payment back to a payer (a return of held money, a dynamic account's mismatch return, a refund) is a settlement.
  const payerReturns = createPayerReturns({
    db,
    payouts: {
      banks: () => settlements.banks(),
      accountName: (tenantId, destination) => settlements.findAccountName(tenantId, destination.accountNumber, destination.bankCode),
      pay: (tenantId, accountRef, { accountName, heldMoney, ...request }, hooks) =>
        settlements.initiate(tenantId, accountRef, request, undefined, { ...hooks, returnToSender: heldMoney, accountName }),
    },
  });
  const holds = createHoldsService({ db, postingEngine: ledger, returns: payerReturns });
  const refunds = createRefundsService({ db, config, ledger, returns: payerReturns });
  const creditPayment = createPaymentCrediter({ postingEngine: ledger, jobs });
  const internalTransfers = createInternalTransfersService({ db: readDb, config, postingEngine: ledger });
  const splitRules = createSplitRulesService({ db, transfers: internalTransfers });
  const raiseSettlementFinding: RaiseSettlementFinding = (finding) =>
    db.transaction((trx) => createReconciliationExceptionsRepo(db).raise(trx, finding));
  const settlementExecution = createSettlementExecutionService({
    db,
    provider,
    postingEngine: ledger,
    logger,
    config,
    raiseFinding: raiseSettlementFinding,
  });
  const ingest = createPaymentIngestService({
    db,
    config,
    postingEngine: ledger,
    logger: logger.child({ component: 'payments' }),
    jobs,
    starter,
    notifications: createSpecProviderNotifications(config),
    payouts: settlements.payoutSink,
    metrics: metrics.ingest,
    unverifiedLimit: rateLimits.unsignedWebhooks,
  });
  return {
    db,
    readDb,
    postingEngine,
    ledger,
    starter,
    settlementRestarts: createWorkflowRestarter({
      db,
      client: temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      logger: logger.child({ component: 'settlement-restarts' }),
      plan: settlementRestartPlan({
        db,
        client: temporal,
        jobs,
        starter,
        logger: logger.child({ component: 'settlement-restarts' }),
        raiseFinding: raiseSettlementFinding,
      }),
    }),
    settlementBatchRestarts: createWorkflowRestarter({
      db,
      client: temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      logger: logger.child({ component: 'settlement-batch-restarts' }),
      plan: settlementBatchRestartPlan({ db, jobs, starter, logger: logger.child({ component: 'settlement-batch-restarts' }) }),
    }),
    /** The tenant's workflows on this cell, for a move: stopped on the source, started again on the target. */
    tenantWorkflows: createCellTenantWorkflows({
      db,
      client: temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      jobs,
      starter,
      balanceSweepSchedules,
      raiseFinding: raiseSettlementFinding,
      logger: logger.child({ component: 'tenant-moves' }),
    }),
    scheduledPayoutRestarts: createWorkflowRestarter({
      db,
      client: temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      logger: logger.child({ component: 'scheduled-payout-restarts' }),
      plan: scheduledPayoutRestartPlan({ db, jobs, starter, logger: logger.child({ component: 'scheduled-payout-restarts' }) }),
    }),
    auth,
    apiKeyCache,
    audit: createAuditLog(db),
    tenantUsers: createTenantUsersService({ db, auth }),
    passwordChanges: createPasswordChangesService({ db, auth, config }),
    twoFactor: createTwoFactorService({ db, config, limits: rateLimits, clock }),
    apiKeys: createApiKeysService({ db, apiKeyCache }),
    accounts,
    statements,
    books: createBooksService({ db: readDb }),
    settlements,
    payoutApprovals,
    scheduledPayouts,
    approvalPolicies: createApprovalPoliciesService({ db }),
    velocityRules: createVelocityRulesService({ db }),
    internalTransfers,
    beneficiaries,
    balanceSweeps: createBalanceSweepsService({ db, config, settlements, postingEngine, schedules: balanceSweepSchedules }),
    balanceSweepSchedules,
    settlementBatches: createSettlementBatchesService({
      db,
      config,
      jobs,
      starter,
      settlements,
      funds: ledger,
      limits: rateLimits,
      wake: (batchId) =>
        temporal.withDeadline(Date.now() + 10_000, () =>
          temporal.workflow.getHandle(settlementBatchWorkflowId(batchId)).signal(settlementBatchCancelledSignal),
        ),
    }),
    batchExecution: createSettlementBatchExecutionService({ db, config, settlements }),
    ingest,
    batchClaimReleases: createBatchClaimReleaser({ db, client: temporal, logger: logger.child({ component: 'confirmation-batches' }) }),
    splitRules,
    liens: createLiensService({ db, ledger }),
    freezes: createAccountFreezesService({ db }),
    batchConfirmations: createBatchConfirmationService({
      db,
      provider,
      postingEngine: ledger,
      splits: splitRules,
      logger,
      windowMs: config.CONFIRMATION_WINDOW,
      minNotFoundLookups: config.CONFIRMATION_MIN_NOT_FOUND_LOOKUPS,
    }),
    deliveries: createWebhookDeliveryService({ db, config }),
    webhooks: createWebhooksService({ db: readDb, config, jobs, starter, limits: rateLimits }),
    endpoints: createEndpointsService({ db, config, jobs, starter, limits: rateLimits }),
    settlementExecution,
    customers: createCustomersService({ db: readDb }),
    kyc: createKycService({
      db,
      config,
      postingEngine: ledger,
      identity: createIdentityClient(config, logger.child({ component: 'identity-verification' })),
    }),
    fees: createFeesService({ db, config }),
    holds,
    refunds,
    dynamicAccounts: createDynamicAccountsService({ db, holds, logger: logger.child({ component: 'dynamic-accounts' }) }),
    kycLimits: createKycLimitsService({ db, tierDefaults: tierDefaultsOf(config) }),
    misdirected: createMisdirectedService({ db, creditPayment, starter }),
    retention: createRetentionService({ db, config }),
    historyMonths: createHistoryMonthsService({ db, refundWatchMs: config.SETTLEMENT_REFUND_WATCH }),
    rateLimits,
    reconciliation: createReconciliationService({
      db,
      config,
      jobs,
      starter,
      postingEngine: ledger,
      splits: splitRules,
      limits: rateLimits,
    }),
    settlementWatch: createSettlementWatchService({
      db,
      provider,
      config,
      metrics: metrics.settlementWatch,
      logger: logger.child({ component: 'settlement-watch' }),
    }),
    reconciliationExecution: createReconciliationExecutionService({
      db,
      config,
      logger,
      provider: lanes.background,
      callBudget: rateLimits.reconciliationProviderCalls,
      postingEngine: ledger,
      creditPayment,
      settlementExecution,
      splits: splitRules,
      jobs,
      starter,
      ...(options.reconciliationCells ? { cells: options.reconciliationCells } : {}),
    }),
  };
}

export type Services = ReturnType<typeof createServices>;

/** An API process's API key cache answers only while this hears every key change. */
export function listenForApiKeyChanges(infra: Infrastructure, cache: ApiKeyCache): NotificationListener {
  return listenForNotifications({
    db: infra.db,
    channel: API_KEYS_CHANGED_CHANNEL,
    logger: infra.logger.child({ component: 'api-key-cache' }),
    onNotification: cache.forget,
    onLive: cache.setLive,
  });
}

export function createRoutes(services: Services, config: Config): RouteDefinition[] {
  return [
    ...authRoutes({ auth: services.auth, audit: services.audit, config, limits: services.rateLimits }),
    ...twoFactorRoutes({ twoFactor: services.twoFactor }),
    ...accountsRoutes({ accounts: services.accounts, limits: services.rateLimits }),
    ...statementRoutes({ statements: services.statements }),
    ...booksRoutes({ books: services.books }),
    ...splitRulesRoutes({ splitRules: services.splitRules }),
    ...liensRoutes({ liens: services.liens }),
    ...accountFreezesRoutes({ freezes: services.freezes }),
    // Before the settlements' GET /v1/transfers/:merchantTxRef, which would read "internal" as a reference.
    ...internalTransfersRoutes({ transfers: services.internalTransfers }),
    ...settlementsRoutes({ settlements: services.settlements, scheduledPayouts: services.scheduledPayouts }),
    ...refundsRoutes({ refunds: services.refunds }),
    ...beneficiariesRoutes({ beneficiaries: services.beneficiaries }),
    ...balanceSweepsRoutes({ balanceSweeps: services.balanceSweeps }),
    ...settlementBatchesRoutes({ settlementBatches: services.settlementBatches }),
    ...providerWebhookRoutes({ ingest: services.ingest }),
    ...webhooksRoutes({ webhooks: services.webhooks, audit: services.audit }),
    ...endpointsRoutes({ endpoints: services.endpoints }),
    ...customersRoutes({ customers: services.customers, kyc: services.kyc }),
    ...feesRoutes({ fees: services.fees }),
    ...misdirectedRoutes({ misdirected: services.misdirected }),
    ...reconciliationRoutes({ reconciliation: services.reconciliation }),
    ...dashboardRoutes(services, config),
  ];
}

/** The session routes the dashboard reads through (operator actions shared with other clients are above). */
function dashboardRoutes(services: Services, config: Config): RouteDefinition[] {
  return [
    ...tenantAdminRoutes({ auth: services.auth, users: services.tenantUsers, apiKeys: services.apiKeys, audit: services.audit, config }),
    ...passwordRoutes({ passwords: services.passwordChanges, limits: services.rateLimits }),
    ...tenantSummaryRoutes({ db: services.readDb, limits: services.rateLimits }),
    ...accountsDashboardRoutes({
      accounts: services.accounts,
      customers: services.customers,
      statements: services.statements,
      config,
      limits: services.rateLimits,
    }),
    ...settlementsDashboardRoutes({ db: services.readDb, settlements: services.settlements }),
    ...scheduledPayoutsDashboardRoutes({ scheduledPayouts: services.scheduledPayouts }),
    ...payoutApprovalsDashboardRoutes({ payoutApprovals: services.payoutApprovals }),
    ...approvalPoliciesDashboardRoutes({ approvalPolicies: services.approvalPolicies }),
    ...velocityRulesRoutes({ velocityRules: services.velocityRules }),
    ...internalTransfersDashboardRoutes({ transfers: services.internalTransfers }),
    ...transferApprovalsDashboardRoutes({ transfers: services.internalTransfers }),
    ...beneficiariesDashboardRoutes({ beneficiaries: services.beneficiaries }),
    ...balanceSweepsDashboardRoutes({ balanceSweeps: services.balanceSweeps }),
    ...settlementBatchesDashboardRoutes({ settlementBatches: services.settlementBatches }),
    ...batchApprovalsDashboardRoutes({ settlementBatches: services.settlementBatches }),
    ...booksDashboardRoutes({ books: services.books }),
    ...customersDashboardRoutes({ customers: services.customers }),
    ...customerAccountsRoutes({ customers: services.customers, accounts: services.accounts, audit: services.audit }),
    ...webhooksDashboardRoutes({ db: services.readDb, webhooks: services.webhooks, auth: services.auth, audit: services.audit }),
    ...endpointsDashboardRoutes({ endpoints: services.endpoints }),
    ...feesDashboardRoutes({ fees: services.fees }),
    ...holdsRoutes({ holds: services.holds }),
    ...refundsDashboardRoutes({ refunds: services.refunds }),
    ...kycLimitsRoutes({ kycLimits: services.kycLimits }),
  ];
}

export function createReadiness(infra: Infrastructure): ReadinessCheck {
  return async () => {
    const [database, temporal] = await Promise.all([
      withTimeout(infra.db.raw('select 1'), 1_000, 'database check').then(
        () => true,
        () => false,
      ),
      isTemporalReachable(infra.temporal),
    ]);
    return { database, temporal };
  };
}

/**
 * The worker's own starts (the confirmation batcher's batches, the outbox drainer's rows), made through
 * the connection the worker polls with and asking for eager start: the server answers the start with the
 * workflow's first task for this very worker, so it skips the task queue's add-and-poll round trip (CPU
 * in the Temporal server, and latency) when this worker has a free slot, and starts it the usual way when
 * it has none. The convergence check's starts keep the ordinary client.
 */
export function createWorkerStarts(infra: Infrastructure, connection: ConnectionLike) {
  const { config, logger, db, metrics } = infra;
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const starter = createWorkflowStarter({
    client,
    outbox: createOutboxRepo(db),
    logger: logger.child({ component: 'workflow-starter' }),
    metrics: metrics.starts,
    options: { taskQueue: config.TEMPORAL_TASK_QUEUE, startsPerSecond: config.WORKFLOW_START_RATE, eagerStart: true },
  });
  const batcher = createConfirmationBatcher({
    db,
    starter,
    jobs: createJobs(config),
    maxBatchSize: config.CONFIRMATION_BATCH_MAX,
    maxBusyBatches: config.CONFIRMATION_BATCHES_PER_WORKER,
    unstartedAfterMs: config.SWEEP_GRACE,
    logger: logger.child({ component: 'confirmation-batches' }),
  });
  const dispatcher = createEventDispatcher({ db, jobs: createJobs(config), starter });
  return { starter, batcher, dispatcher };
}

export type WorkerStarts = ReturnType<typeof createWorkerStarts>;
