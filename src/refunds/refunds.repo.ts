import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';

/** A refund as stored: what of which payment, why, and the settlement that pays it back. */
export interface RefundRecord {
  id: string;
  tenantId: string;
  accountId: string;
  transactionGroupId: string;
  creditEntryId: string;
  amount: Kobo;
  reason: string;
  metadata: Metadata;
  merchantTxRef: string;
  idempotencyKey: string;
  requestHash: string;
  createdAt: Date;
}

interface RefundRow {
  id: string;
  tenant_id: string;
  account_id: string;
  transaction_group_id: string;
  credit_entry_id: string;
  amount: string;
  reason: string;
  metadata: Metadata;
  merchant_tx_ref: string;
  idempotency_key: string;
  request_hash: string;
  created_at: Date;
}

const toRecord = (row: RefundRow): RefundRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  accountId: row.account_id,
  transactionGroupId: row.transaction_group_id,
  creditEntryId: row.credit_entry_id,
  amount: koboFromDb(row.amount),
  reason: row.reason,
  metadata: row.metadata,
  merchantTxRef: row.merchant_tx_ref,
  idempotencyKey: row.idempotency_key,
  requestHash: row.request_hash,
  createdAt: row.created_at,
});

/** The unique constraint that claims a refund's Idempotency-Key. */
export const REFUND_KEY_CONSTRAINT = 'payment_refunds_idempotency_key';

export function createRefundsRepo(db: DbOrTrx) {
  return {
    async insert(refund: Omit<RefundRecord, 'createdAt'>): Promise<void> {
      await db('payment_refunds').insert({
        id: refund.id,
        tenant_id: refund.tenantId,
        account_id: refund.accountId,
        transaction_group_id: refund.transactionGroupId,
        credit_entry_id: refund.creditEntryId,
        amount: refund.amount.toString(),
        reason: refund.reason,
        metadata: JSON.stringify(refund.metadata),
        merchant_tx_ref: refund.merchantTxRef,
        idempotency_key: refund.idempotencyKey,
        request_hash: refund.requestHash,
      });
    },

    async findByKey(tenantId: string, idempotencyKey: string): Promise<RefundRecord | undefined> {
      const row: RefundRow | undefined = await db('payment_refunds')
        .where({ tenant_id: tenantId, idempotency_key: idempotencyKey })
        .first();
      return row && toRecord(row);
    },

    /** The tenant's refunds of the payment, oldest first; with `metadata`, only those carrying every pair of it. */
    async ofPayment(tenantId: string, transactionGroupId: string, metadata?: Metadata): Promise<RefundRecord[]> {
      const query = db('payment_refunds').where({ tenant_id: tenantId, transaction_group_id: transactionGroupId }).orderBy('id');
      if (metadata) query.whereRaw('payment_refunds.metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      const rows: RefundRow[] = await query;
      return rows.map(toRecord);
    },
  };
}
