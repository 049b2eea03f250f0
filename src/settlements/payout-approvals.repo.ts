import { heldApprovalsOf, type HeldApprovalStatus } from '../approvals-shared/held-approvals';
import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';
import type { ApprovalReason } from '../policies/payout-approval/payout-approval';

export type PayoutApprovalStatus = HeldApprovalStatus;

/** A payout the tenant's approval policy held: what it pays, who made it, and what became of it. */
export interface PayoutApprovalRecord {
  id: string;
  tenantId: string;
  accountId: string;
  accountRef: string;
  merchantTxRef: string;
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
  narration: string;
  accountName: string | null;
  beneficiaryId: string | null;
  /** The tenant's metadata, given to the settlement it becomes. */
  metadata: Metadata;
  reasons: ApprovalReason[];
  status: PayoutApprovalStatus;
  makerUserId: string | null;
  makerEmail: string | null;
  makerApiKeyId: string | null;
  expiresAt: Date;
  decidedBy: string | null;
  decidedByEmail: string | null;
  decidedAt: Date | null;
  decisionNote: string | null;
  createdAt: Date;
}

export type NewPayoutApproval = Pick<
  PayoutApprovalRecord,
  | 'id'
  | 'tenantId'
  | 'accountId'
  | 'merchantTxRef'
  | 'amount'
  | 'bankCode'
  | 'accountNumber'
  | 'narration'
  | 'accountName'
  | 'beneficiaryId'
  | 'metadata'
  | 'reasons'
  | 'makerUserId'
  | 'makerApiKeyId'
  | 'expiresAt'
>;

interface PayoutApprovalRow {
  id: string;
  tenant_id: string;
  account_id: string;
  account_ref: string;
  merchant_tx_ref: string;
  amount: string;
  bank_code: string;
  account_number: string;
  narration: string;
  account_name: string | null;
  beneficiary_id: string | null;
  metadata: Metadata;
  reasons: ApprovalReason[];
  status: PayoutApprovalStatus;
  maker_user_id: string | null;
  maker_email: string | null;
  maker_api_key_id: string | null;
  expires_at: Date;
  decided_by: string | null;
  decided_by_email: string | null;
  decided_at: Date | null;
  decision_note: string | null;
  created_at: Date;
}

const toApproval = (row: PayoutApprovalRow): PayoutApprovalRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  accountId: row.account_id,
  accountRef: row.account_ref,
  merchantTxRef: row.merchant_tx_ref,
  amount: koboFromDb(row.amount),
  bankCode: row.bank_code,
  accountNumber: row.account_number,
  narration: row.narration,
  accountName: row.account_name,
  beneficiaryId: row.beneficiary_id,
  metadata: row.metadata,
  reasons: row.reasons,
  status: row.status,
  makerUserId: row.maker_user_id,
  makerEmail: row.maker_email,
  makerApiKeyId: row.maker_api_key_id,
  expiresAt: row.expires_at,
  decidedBy: row.decided_by,
  decidedByEmail: row.decided_by_email,
  decidedAt: row.decided_at,
  decisionNote: row.decision_note,
  createdAt: row.created_at,
});

export function createPayoutApprovalsRepo(db: DbOrTrx) {
  const withNames = () =>
    db('payout_approvals as p')
      .join('virtual_accounts as a', 'a.id', 'p.account_id')
      .leftJoin('dashboard_users as m', 'm.id', 'p.maker_user_id')
      .leftJoin('dashboard_users as d', 'd.id', 'p.decided_by')
      .select('p.*', 'a.account_ref', 'm.email as maker_email', 'd.email as decided_by_email');
  const held = heldApprovalsOf<PayoutApprovalRow>(db, 'payout_approvals', 'p', withNames);

  return {
    decide: held.decide,

    async insert(approval: NewPayoutApproval): Promise<void> {
      await db('payout_approvals').insert({
        id: approval.id,
        tenant_id: approval.tenantId,
        account_id: approval.accountId,
        merchant_tx_ref: approval.merchantTxRef,
        amount: approval.amount.toString(),
        bank_code: approval.bankCode,
        account_number: approval.accountNumber,
        narration: approval.narration,
        account_name: approval.accountName,
        beneficiary_id: approval.beneficiaryId,
        metadata: JSON.stringify(approval.metadata),
        reasons: approval.reasons,
        maker_user_id: approval.makerUserId,
        maker_api_key_id: approval.makerApiKeyId,
        expires_at: approval.expiresAt,
      });
    },

    async findByRef(tenantId: string, merchantTxRef: string): Promise<PayoutApprovalRecord | undefined> {
      const row: PayoutApprovalRow | undefined = await withNames()
        .where({ 'p.tenant_id': tenantId, 'p.merchant_tx_ref': merchantTxRef })
        .first();
      return row ? toApproval(row) : undefined;
    },

    /** The approval's row, locked until the caller's transaction ends: one decision at a time. */
    async lockByRef(tenantId: string, merchantTxRef: string): Promise<PayoutApprovalRecord | undefined> {
      const locked: { id: string } | undefined = await db('payout_approvals')
        .where({ tenant_id: tenantId, merchant_tx_ref: merchantTxRef })
        .forUpdate()
        .first('id');
      if (!locked) return undefined;
      const row: PayoutApprovalRow = await withNames().where({ 'p.id': locked.id }).first();
      return toApproval(row);
    },

    /** Marks expired those of `ids` still awaiting approval; the ones it marked. */
    async expire(ids: string[]): Promise<PayoutApprovalRecord[]> {
      return (await held.expire(ids)).map(toApproval);
    },

    /** The tenant's payouts of one status, newest first, before the cursor's id. */
    async list(tenantId: string, status: PayoutApprovalStatus, beforeId: string | null, limit: number): Promise<PayoutApprovalRecord[]> {
      return (await held.list(tenantId, status, beforeId, limit)).map(toApproval);
    },

    /** Whether the tenant has paid (or begun to pay) this bank account before: a settlement to it exists. */
    async destinationPaidBefore(tenantId: string, bankCode: string, accountNumber: string): Promise<boolean> {
      const row = await db('settlements')
        .where({ tenant_id: tenantId, bank_code: bankCode, account_number: accountNumber })
        .first(db.raw('1 AS found'));
      return row !== undefined;
    },
  };
}
