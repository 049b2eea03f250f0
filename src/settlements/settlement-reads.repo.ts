import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';
import type { SettlementStatus } from './settlements.repo';

export interface SettlementListItem {
  id: string;
  merchantTxRef: string;
  accountRef: string;
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
  accountName: string | null;
  status: SettlementStatus;
  attemptCount: number;
  metadata: Metadata;
  createdAt: Date;
  updatedAt: Date;
}

export interface SettlementAttemptView {
  attemptNo: number;
  providerRef: string;
  outcome: string;
  providerTransferId: string | null;
  detail: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface SettlementStatusChange {
  status: string;
  changedAt: Date;
}

/** The dashboard's reads of settlements: lists, attempts and the status history the trigger keeps. */
export function createSettlementReadsRepo(db: DbOrTrx) {
  return {
    /** Newest first; `beforeId` is the previous page's last id; with `metadata`, only those carrying every pair of it. */
    async list(
      tenantId: string,
      status: SettlementStatus | null,
      beforeId: string | null,
      limit: number,
      metadata?: Metadata,
    ): Promise<SettlementListItem[]> {
      const query = db('settlements as s')
        .join('virtual_accounts as va', 'va.id', 's.account_id')
        .where('s.tenant_id', tenantId)
        .orderBy('s.id', 'desc')
        .limit(limit)
        .select(
          's.id',
          's.merchant_tx_ref',
          'va.account_ref',
          's.amount',
          's.bank_code',
          's.account_number',
          's.account_name',
          's.status',
          's.attempt_count',
          's.metadata',
          's.created_at',
          's.updated_at',
        );
      if (status) query.where('s.status', status);
      if (beforeId) query.where('s.id', '<', beforeId);
      if (metadata) query.whereRaw('s.metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      const rows: Array<{
        id: string;
        merchant_tx_ref: string;
        account_ref: string;
        amount: string;
        bank_code: string;
        account_number: string;
        account_name: string | null;
        status: SettlementStatus;
        attempt_count: number;
        metadata: Metadata;
        created_at: Date;
        updated_at: Date;
      }> = await query;
      return rows.map((row) => ({
        id: row.id,
        merchantTxRef: row.merchant_tx_ref,
        accountRef: row.account_ref,
        amount: koboFromDb(row.amount),
        bankCode: row.bank_code,
        accountNumber: row.account_number,
        accountName: row.account_name,
        status: row.status,
        attemptCount: row.attempt_count,
        metadata: row.metadata,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
    },

    async attempts(settlementId: string): Promise<SettlementAttemptView[]> {
      const rows: Array<{
        attempt_no: number;
        provider_ref: string;
        outcome: string;
        provider_transfer_id: string | null;
        detail: string | null;
        created_at: Date;
        updated_at: Date;
      }> = await db('settlement_attempts')
        .where({ settlement_id: settlementId })
        .orderBy('attempt_no')
        .select('attempt_no', 'provider_ref', 'outcome', 'provider_transfer_id', 'detail', 'created_at', 'updated_at');
      return rows.map((row) => ({
        attemptNo: row.attempt_no,
        providerRef: row.provider_ref,
        outcome: row.outcome,
        providerTransferId: row.provider_transfer_id,
        detail: row.detail,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
    },

    async statusHistory(settlementId: string): Promise<SettlementStatusChange[]> {
      const rows: Array<{ status: string; changed_at: Date }> = await db('settlement_status_history')
        .where({ settlement_id: settlementId })
        .orderBy('id')
        .select('status', 'changed_at');
      return rows.map((row) => ({ status: row.status, changedAt: row.changed_at }));
    },

    /** The provider's own id of the transfer that paid (or last answered), when known. */
    async providerTransferId(settlementId: string): Promise<string | null> {
      const row: { provider_transfer_id: string | null } | undefined = await db('settlements')
        .where({ id: settlementId })
        .first('provider_transfer_id');
      return row?.provider_transfer_id ?? null;
    },
  };
}
