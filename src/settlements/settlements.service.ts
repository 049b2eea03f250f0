import { createAccountsRepo } from '../accounts/accounts.repo';
import type { Config } from '../config';
import { createCustomersRepo } from '../customers/customers.repo';
import type { Db } from '../db';
import { BadRequestError, ForbiddenError, invalidAmount, NotFoundError, ProviderUnavailableHttpError, ValidationError } from '../errors';
import { createIdempotencyRepo } from '../idempotency/idempotency.repo';
import { idempotencyMismatch, requestHash } from '../idempotency/request-hash';
import { uuidv7 } from '../ids';
import type { Jobs } from '../jobs/jobs';
import { createOutboxRepo, type OutboxEntry } from '../jobs/outbox.repo';
import type { WorkflowStarter } from '../jobs/workflow-starter';
import type { PostingEngine } from '../ledger/posting-engine';
import type { Logger } from '../logger';
import type { Kobo } from '../money';
import type { PayoutEventSink } from '../payments/payment-ingest.service';
import { ProviderRejectedError, ProviderUnavailableError } from '../provider/errors';
import type { ProviderAccountName, ProviderBank, ProviderClient } from '../provider/provider.types';
import type { PayoutSignal, PayoutSignalType } from '../temporal/payloads';
import type { BankDirectory } from './bank-directory';
import { baseReference, newMerchantTxRef } from './merchant-tx-ref';
import { createSettlementsRepo, type SettlementRecord } from './settlements.repo';

export interface SettleRequest {
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
  narration?: string | undefined;
}

/** Wakes a running settlement workflow; implemented over the Temporal client, best effort. */
export type SettlementSignaller = (merchantTxRef: string, signal: PayoutSignal) => Promise<void>;

/** Same code as when the request schema finds it, so clients see one error for one condition. */
const invalidBankCode = (): ValidationError => new ValidationError('invalid bank code');

export function createSettlementsService(deps: {
  db: Db;
  config: Pick<Config, 'MAX_AMOUNT'>;
  logger: Logger;
  provider: ProviderClient;
  banks: BankDirectory;
  postingEngine: PostingEngine;
  jobs: Jobs;
  starter: WorkflowStarter;
  signal: SettlementSignaller;
}) {
  const { db, config, logger, provider, banks, postingEngine, jobs, starter, signal } = deps;
  const settlements = createSettlementsRepo(db);

  async function requireKnownBank(bankCode: string): Promise<void> {
    if (!(await banks.has(bankCode))) throw invalidBankCode();
  }

  const payoutSink: PayoutEventSink = {
    async prepare(type: PayoutSignalType, providerRef: string) {
      const settlement = await settlements.findByRefAnyTenant(baseReference(providerRef));
      if (!settlement) return null;
      const scheduled: OutboxEntry[] =
        type === 'payout_refund'
          ? [jobs.settlementRefund({ settlementId: settlement.id, merchantTxRef: settlement.merchantTxRef, providerRef, tenantId: settlement.tenantId, accountRef: settlement.accountRef })]
          : [];
      return { tenantId: settlement.tenantId, accountId: settlement.accountId, jobs: scheduled };
    },
    notify(type: PayoutSignalType, providerRef: string): void {
      signal(baseReference(providerRef), { type, providerRef }).catch((error: unknown) =>
        logger.info({ err: error, providerRef, type }, 'settlement workflow not signalled; polling or the refund workflow covers it'),
      );
    },
  };

  return {
    payoutSink,

    /**
     * Under the account's row lock and in one transaction: the available-balance check, the
     * provisional debit and the settlement row. The workflow starts after the commit.
     */
    async initiate(tenantId: string, accountRef: string, request: SettleRequest, idempotencyKey?: string): Promise<SettlementRecord> {
      if (request.amount > config.MAX_AMOUNT) throw invalidAmount();
      const account = await createAccountsRepo(db).findByRef(tenantId, accountRef);
      if (!account) throw new NotFoundError('account not found');
      const customer = await createCustomersRepo(db).find(tenantId, account.customerId);
      if (customer?.status === 'suspended') throw new ForbiddenError('customer suspended');
      await requireKnownBank(request.bankCode);
      const hash = requestHash({ accountRef, ...request });
      const merchantTxRef = newMerchantTxRef();
      const outcome = await db.transaction(async (trx) => {
        if (idempotencyKey) {
          const { claimed, record } = await createIdempotencyRepo(trx).claim({
            tenant_id: tenantId,
            scope: 'settlement',
            key: idempotencyKey,
            request_hash: hash,
            resource_ref: merchantTxRef,
          });
          if (!claimed) {
            if (record.request_hash !== hash) throw idempotencyMismatch();
            return { kind: 'existing' as const, merchantTxRef: record.resource_ref };
          }
        }
        const [debit] = await postingEngine.post(
          trx,
          account.id,
          [
            {
              direction: 'debit',
              kind: 'settlement',
              amount: request.amount,
              status: 'provisional',
              narration: request.narration ?? '',
              providerTxnRef: merchantTxRef,
              transactionGroupId: uuidv7(),
            },
          ],
          { spendAvailable: true },
        );
        const settlementId = uuidv7();
        await createSettlementsRepo(trx).insert({
          id: settlementId,
          merchantTxRef,
          tenantId,
          accountId: account.id,
          debitEntryId: debit!.id,
          amount: request.amount,
          bankCode: request.bankCode,
          accountNumber: request.accountNumber,
          narration: request.narration ?? '',
        });
        if (idempotencyKey) await createIdempotencyRepo(trx).attachResource(tenantId, 'settlement', idempotencyKey, settlementId);
        const job = jobs.settlement({ settlementId, merchantTxRef, tenantId, accountRef: account.accountRef });
        await createOutboxRepo(trx).enqueue([job]);
        return { kind: 'created' as const, merchantTxRef, job };
      });
      if (outcome.kind === 'created') starter.kick([outcome.job]);
      return this.find(tenantId, outcome.merchantTxRef);
    },

    async find(tenantId: string, merchantTxRef: string): Promise<SettlementRecord> {
      const settlement = await settlements.findByRef(tenantId, merchantTxRef);
      if (!settlement) throw new NotFoundError('transfer not found');
      return settlement;
    },

    async lookupAccount(accountNumber: string, bankCode: string): Promise<ProviderAccountName> {
      await requireKnownBank(bankCode);
      let found: ProviderAccountName | null;
      try {
        found = await provider.lookupAccount({ accountNumber, bankCode });
      } catch (error) {
        if (error instanceof ProviderUnavailableError) throw new ProviderUnavailableHttpError();
        if (error instanceof ProviderRejectedError) throw new BadRequestError('provider_rejected', `provider rejected the lookup: ${error.description}`);
        throw error;
      }
      if (!found) throw new NotFoundError('bank account not found');
      return found;
    },

    banks(): Promise<ProviderBank[]> {
      return banks.list();
    },
  };
}

export type SettlementsService = ReturnType<typeof createSettlementsService>;
