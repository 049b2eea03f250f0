import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';

/** Who made a transfer: a tenant's API key, a dashboard user, or a split rule moving part of a confirmed payment. */
export type TransferSource = 'api' | 'dashboard' | 'split';

export interface InternalTransferRecord {
  id: string;
  tenantId: string;
  fromAccountRef: string;
  toAccountRef: string;
  amount: Kobo;
  narration: string;
  /** The tenant's own data, fixed when the transfer was made. */
  metadata: Metadata;
  source: TransferSource;
  /** A split's part: the provider's transaction id of the payment it came from. */
  splitOfPayment: string | null;
  createdAt: Date;
}

export interface NewInternalTransfer {
  id: string;
  tenantId: string;
  fromAccountId: string;
  toAccountId: string;
  amount: Kobo;
  narration: string;
  metadata: Metadata;
  transactionId: string;
  debitEntryId: string;
  creditEntryId: string;
  /** Null only for a split's part, which its split_moves row makes once. */
  idempotencyKey: string | null;
  requestHash: string | null;
  source: TransferSource;
  createdBy: string | null;
  splitOfPayment: string | null;
}

interface TransferRow {
  id: string;
  tenant_id: string;
  from_account_ref: string;
  to_account_ref: string;
  amount: string;
  narration: string;
  metadata: Metadata;
  source: TransferSource;
  split_of_payment: string | null;
  created_at: Date;
}

function toTransfer(row: TransferRow): InternalTransferRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    fromAccountRef: row.from_account_ref,
    toAccountRef: row.to_account_ref,
    amount: koboFromDb(row.amount),
    narration: row.narration,
    metadata: row.metadata,
    source: row.source,
    splitOfPayment: row.split_of_payment,
    createdAt: row.created_at,
  };
}

/** A transfer with its two accounts' references. */
const SELECT_TRANSFER = `
  SELECT t.id, t.tenant_id, f.account_ref AS from_account_ref, r.account_ref AS to_account_ref, t.amount, t.narration, t.metadata,
         t.source, t.split_of_payment, t.created_at
    FROM internal_transfers t
    JOIN virtual_accounts f ON f.id = t.from_account_id
    JOIN virtual_accounts r ON r.id = t.to_account_id`;

export function createInternalTransfersRepo(db: DbOrTrx) {
  return {
    async insert(transfer: NewInternalTransfer): Promise<InternalTransferRecord> {
      const { rows } = (await db.raw(
        `WITH inserted AS (
           INSERT INTO internal_transfers (id, tenant_id, from_account_id, to_account_id, amount, narration, transaction_id, debit_entry_id,
                                           credit_entry_id, idempotency_key, request_hash, source, created_by, split_of_payment, metadata)
           VALUES (:id, :tenant_id, :from_account_id, :to_account_id, :amount, :narration, :transaction_id, :debit_entry_id,
                   :credit_entry_id, :idempotency_key, :request_hash, :source, :created_by, :split_of_payment, CAST(:metadata AS jsonb))
           RETURNING *
         )
         ${SELECT_TRANSFER.replace('FROM internal_transfers t', 'FROM inserted t')}`,
        {
          id: transfer.id,
          tenant_id: transfer.tenantId,
          from_account_id: transfer.fromAccountId,
          to_account_id: transfer.toAccountId,
          amount: transfer.amount.toString(),
          narration: transfer.narration,
          transaction_id: transfer.transactionId,
          debit_entry_id: transfer.debitEntryId,
          credit_entry_id: transfer.creditEntryId,
          idempotency_key: transfer.idempotencyKey,
          request_hash: transfer.requestHash,
          source: transfer.source,
          created_by: transfer.createdBy,
          split_of_payment: transfer.splitOfPayment,
          metadata: JSON.stringify(transfer.metadata),
        },
      )) as { rows: TransferRow[] };
      return toTransfer(rows[0]!);
    },

    /**
     * The tenant's transfers, newest first, `beforeId` the previous page's last; with `metadata`, only those carrying
     * every pair of it (`@>`, served by the GIN index).
     */
    async list(tenantId: string, beforeId: string | null, limit: number, metadata?: Metadata): Promise<InternalTransferRecord[]> {
      const { rows } = (await db.raw(
        `${SELECT_TRANSFER}
          WHERE t.tenant_id = :tenant_id
            AND (CAST(:before AS uuid) IS NULL OR t.id < CAST(:before AS uuid))
            AND (CAST(:metadata AS jsonb) IS NULL OR t.metadata @> CAST(:metadata AS jsonb))
          ORDER BY t.id DESC LIMIT :limit`,
        { tenant_id: tenantId, before: beforeId, metadata: metadata ? JSON.stringify(metadata) : null, limit },
      )) as { rows: TransferRow[] };
      return rows.map(toTransfer);
    },

    /** The ledger entries each of these transfers posted: its debit of the sending account and its credit of the receiving one. */
    async entriesOf(ids: string[]): Promise<Map<string, { debitEntryId: string; creditEntryId: string }>> {
      if (ids.length === 0) return new Map();
      const rows: Array<{ id: string; debit_entry_id: string; credit_entry_id: string }> = await db('internal_transfers')
        .whereIn('id', ids)
        .select('id', 'debit_entry_id', 'credit_entry_id');
      return new Map(rows.map((row) => [row.id, { debitEntryId: row.debit_entry_id, creditEntryId: row.credit_entry_id }]));
    },

    async find(tenantId: string, id: string): Promise<InternalTransferRecord | undefined> {
      const { rows } = (await db.raw(`${SELECT_TRANSFER} WHERE t.tenant_id = :tenant_id AND t.id = :id`, { tenant_id: tenantId, id })) as {
        rows: TransferRow[];
      };
      return rows[0] ? toTransfer(rows[0]) : undefined;
    },

    /**
     * An account's transfers in both directions, newest first, after the cursor `beforeId` (the previous page's last id):
     * each direction is an index scan of its own, merged, so a page reads at most `limit` rows of each. With `metadata`, only
     * the transfers carrying every pair of it.
     */
    async listOfAccount(accountId: string, beforeId: string | null, limit: number, metadata?: Metadata): Promise<InternalTransferRecord[]> {
      const side = (column: string) => `(
        SELECT * FROM internal_transfers
         WHERE ${column} = :account_id AND (CAST(:before AS uuid) IS NULL OR id < CAST(:before AS uuid))
           AND (CAST(:metadata AS jsonb) IS NULL OR metadata @> CAST(:metadata AS jsonb))
         ORDER BY id DESC LIMIT :limit)`;
      const { rows } = (await db.raw(
        `WITH page AS (
           SELECT * FROM (${side('from_account_id')} UNION ALL ${side('to_account_id')}) both_sides ORDER BY id DESC LIMIT :limit
         )
         ${SELECT_TRANSFER.replace('FROM internal_transfers t', 'FROM page t')}
         ORDER BY t.id DESC`,
        { account_id: accountId, before: beforeId, metadata: metadata ? JSON.stringify(metadata) : null, limit },
      )) as { rows: TransferRow[] };
      return rows.map(toTransfer);
    },
  };
}
