import type { DbOrTrx } from '../db';
import { koboFromDb, type Kobo } from '../money';

export type SettlementStatus = 'pending' | 'processing' | 'success' | 'failed' | 'refunded';

export interface SettlementRecord {
  id: string;
  merchantTxRef: string;
  tenantId: string;
  accountId: string;
  accountRef: string;
  debitEntryId: string;
  amount: Kobo;
  currency: 'NGN';
  providerFee: Kobo | null;
  bankCode: string;
  accountNumber: string;
  accountName: string | null;
  narration: string;
  status: SettlementStatus;
  attemptCount: number;
  failureReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface SettlementRow {
  id: string;
  merchant_tx_ref: string;
  tenant_id: string;
  account_id: string;
  account_ref: string;
  debit_entry_id: string;
  amount: string;
  currency: 'NGN';
  provider_fee: string | null;
  bank_code: string;
  account_number: string;
  account_name: string | null;
  narration: string;
  status: SettlementStatus;
  attempt_count: number;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

function toSettlement(row: SettlementRow): SettlementRecord {
  return {
    id: row.id,
    merchantTxRef: row.merchant_tx_ref,
    tenantId: row.tenant_id,
    accountId: row.account_id,
    accountRef: row.account_ref,
    debitEntryId: row.debit_entry_id,
    amount: koboFromDb(row.amount),
    currency: row.currency,
    providerFee: row.provider_fee === null ? null : koboFromDb(row.provider_fee),
    bankCode: row.bank_code,
    accountNumber: row.account_number,
    accountName: row.account_name,
    narration: row.narration,
    status: row.status,
    attemptCount: row.attempt_count,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type AttemptOutcome = 'submitting' | 'accepted' | 'ambiguous' | 'failed' | 'success' | 'refunded';

export function createSettlementsRepo(db: DbOrTrx) {
  const withAccountRef = () =>
    db('settlements').join('virtual_accounts', 'virtual_accounts.id', 'settlements.account_id').select('settlements.*', 'virtual_accounts.account_ref');

  return {
    async findById(id: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await withAccountRef().where('settlements.id', id).first();
      return row ? toSettlement(row) : undefined;
    },

    async findByRef(tenantId: string, merchantTxRef: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await withAccountRef().where({ 'settlements.tenant_id': tenantId, 'settlements.merchant_tx_ref': merchantTxRef }).first();
      return row ? toSettlement(row) : undefined;
    },

    /** For provider events, which carry a reference but no tenant. */
    async findByRefAnyTenant(merchantTxRef: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await withAccountRef().where('settlements.merchant_tx_ref', merchantTxRef).first();
      return row ? toSettlement(row) : undefined;
    },

    async lockById(id: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await db('settlements').where({ id }).forUpdate().first();
      return row ? toSettlement({ ...row, account_ref: '' }) : undefined;
    },

    async update(
      id: string,
      change: Partial<{
        status: SettlementStatus;
        attemptCount: number;
        accountName: string;
        providerFee: Kobo | null;
        failureReason: string;
        providerTransferId: string;
        reversalEntryId: string;
      }>,
    ): Promise<void> {
      await db('settlements')
        .where({ id })
        .update({
          ...(change.status !== undefined ? { status: change.status } : {}),
          ...(change.attemptCount !== undefined ? { attempt_count: change.attemptCount } : {}),
          ...(change.accountName !== undefined ? { account_name: change.accountName } : {}),
          ...(change.providerFee !== undefined ? { provider_fee: change.providerFee } : {}),
          ...(change.failureReason !== undefined ? { failure_reason: change.failureReason } : {}),
          ...(change.providerTransferId !== undefined ? { provider_transfer_id: change.providerTransferId } : {}),
          ...(change.reversalEntryId !== undefined ? { reversal_entry_id: change.reversalEntryId } : {}),
          updated_at: db.fn.now(),
        });
    },

    async upsertAttempt(settlementId: string, attemptNo: number, providerRef: string, outcome: AttemptOutcome, detail?: { providerTransferId?: string | null; text?: string }): Promise<void> {
      await db('settlement_attempts')
        .insert({
          settlement_id: settlementId,
          attempt_no: attemptNo,
          provider_ref: providerRef,
          outcome,
          provider_transfer_id: detail?.providerTransferId ?? null,
          detail: detail?.text ?? null,
        })
        .onConflict(['settlement_id', 'attempt_no'])
        .merge({
          outcome,
          ...(detail?.providerTransferId ? { provider_transfer_id: detail.providerTransferId } : {}),
          ...(detail?.text ? { detail: detail.text } : {}),
          updated_at: db.fn.now(),
        });
    },
  };
}

export type SettlementsRepo = ReturnType<typeof createSettlementsRepo>;
