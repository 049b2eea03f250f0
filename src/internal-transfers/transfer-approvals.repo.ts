import { heldApprovalsOf, type HeldApprovalStatus } from '../approvals-shared/held-approvals';
import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';
import type { InternalTransferRecord, TransferSource } from './internal-transfers.repo';

export type TransferApprovalStatus = HeldApprovalStatus;

/** A transfer the tenant's approval policy held: what it moves, who made it, and what became of it. */
export interface TransferApprovalRecord {
  /** The transfer's id: the transfer made once it is approved keeps it. */
  id: string;
  tenantId: string;
  fromAccountId: string;
  toAccountId: string;
  fromAccountRef: string;
  toAccountRef: string;
  amount: Kobo;
  narration: string;
  /** The tenant's metadata, given to the transfer it becomes. */
  metadata: Metadata;
  idempotencyKey: string;
  requestHash: string;
  source: Extract<TransferSource, 'api' | 'dashboard'>;
  makerUserId: string | null;
  makerEmail: string | null;
  status: TransferApprovalStatus;
  expiresAt: Date;
  decidedBy: string | null;
  decidedByEmail: string | null;
  decidedAt: Date | null;
  decisionNote: string | null;
  createdAt: Date;
}

/** What a transfer request made: the transfer, or the transfer the approval policy holds (awaiting approval, or what became of it). */
export type TransferMade = InternalTransferRecord | TransferApprovalRecord;

/** Whether a transfer request's answer is a held transfer (202) rather than a completed one (201). */
export const isHeldTransfer = (made: TransferMade): made is TransferApprovalRecord => 'status' in made;

export type NewTransferApproval = Pick<
  TransferApprovalRecord,
  | 'id'
  | 'tenantId'
  | 'fromAccountId'
  | 'toAccountId'
  | 'amount'
  | 'narration'
  | 'metadata'
  | 'idempotencyKey'
  | 'requestHash'
  | 'source'
  | 'makerUserId'
  | 'expiresAt'
>;

interface TransferApprovalRow {
  id: string;
  tenant_id: string;
  from_account_id: string;
  to_account_id: string;
  from_account_ref: string;
  to_account_ref: string;
  amount: string;
  narration: string;
  metadata: Metadata;
  idempotency_key: string;
  request_hash: string;
  source: 'api' | 'dashboard';
  maker_user_id: string | null;
  maker_email: string | null;
  status: TransferApprovalStatus;
  expires_at: Date;
  decided_by: string | null;
  decided_by_email: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  created_at: Date;
}

const toApproval = (row: TransferApprovalRow): TransferApprovalRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  fromAccountId: row.from_account_id,
  toAccountId: row.to_account_id,
  fromAccountRef: row.from_account_ref,
  toAccountRef: row.to_account_ref,
  amount: koboFromDb(row.amount),
  narration: row.narration,
  metadata: row.metadata,
  idempotencyKey: row.idempotency_key,
  requestHash: row.request_hash,
  source: row.source,
  makerUserId: row.maker_user_id,
  makerEmail: row.maker_email,
  status: row.status,
  expiresAt: row.expires_at,
  decidedBy: row.decided_by,
  decidedByEmail: row.decided_by_email,
  decidedAt: row.decided_at,
  decisionNote: row.decision_note,
  createdAt: row.created_at,
});

export function createTransferApprovalsRepo(db: DbOrTrx) {
  const withNames = () =>
    db('transfer_approvals as t')
      .join('virtual_accounts as f', 'f.id', 't.from_account_id')
      .join('virtual_accounts as r', 'r.id', 't.to_account_id')
      .leftJoin('dashboard_users as m', 'm.id', 't.maker_user_id')
      .leftJoin('dashboard_users as d', 'd.id', 't.decided_by')
      .select(
        't.*',
        'f.account_ref as from_account_ref',
        'r.account_ref as to_account_ref',
        'm.email as maker_email',
        'd.email as decided_by_email',
      );
  const held = heldApprovalsOf<TransferApprovalRow>(db, 'transfer_approvals', 't', withNames);

  return {
    decide: held.decide,

    async insert(approval: NewTransferApproval): Promise<TransferApprovalRecord> {
      await db('transfer_approvals').insert({
        id: approval.id,
        tenant_id: approval.tenantId,
        from_account_id: approval.fromAccountId,
        to_account_id: approval.toAccountId,
        amount: approval.amount.toString(),
        narration: approval.narration,
        metadata: JSON.stringify(approval.metadata),
        idempotency_key: approval.idempotencyKey,
        request_hash: approval.requestHash,
        source: approval.source,
        maker_user_id: approval.makerUserId,
        expires_at: approval.expiresAt,
      });
      const row: TransferApprovalRow = await withNames().where({ 't.id': approval.id }).first();
      return toApproval(row);
    },

    async find(tenantId: string, id: string): Promise<TransferApprovalRecord | undefined> {
      const row: TransferApprovalRow | undefined = await withNames().where({ 't.tenant_id': tenantId, 't.id': id }).first();
      return row ? toApproval(row) : undefined;
    },

    /** The approval's row, locked until the caller's transaction ends: one decision at a time. */
    async lock(tenantId: string, id: string): Promise<TransferApprovalRecord | undefined> {
      const locked = await db('transfer_approvals').where({ tenant_id: tenantId, id }).forUpdate().first('id');
      if (!locked) return undefined;
      const row: TransferApprovalRow = await withNames().where({ 't.id': id }).first();
      return toApproval(row);
    },

    /** Marks expired those of `ids` still awaiting approval; the ones it marked. */
    async expire(ids: string[]): Promise<TransferApprovalRecord[]> {
      return (await held.expire(ids)).map(toApproval);
    },

    /** The tenant's held transfers of one status, newest first, before the cursor's id. */
    async list(
      tenantId: string,
      status: TransferApprovalStatus,
      beforeId: string | null,
      limit: number,
    ): Promise<TransferApprovalRecord[]> {
      return (await held.list(tenantId, status, beforeId, limit)).map(toApproval);
    },
  };
}
