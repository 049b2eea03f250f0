import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { koboFromDb, type Kobo } from '../money';

/** Where a payout on a date stands: waiting for its time, made its settlement, cancelled before it, or refused at it. */
export type ScheduledPayoutState = 'scheduled' | 'started' | 'cancelled' | 'refused';

/** A payout on a date: what it pays, when, and what became of it. */
export interface ScheduledPayoutRecord {
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
  scheduledFor: Date;
  state: ScheduledPayoutState;
  /** Why the settlement was refused at its time (state `refused`). */
  refusal: string | null;
  createdAt: Date;
  /** When it started, was cancelled or was refused; null while scheduled. */
  endedAt: Date | null;
}

export type NewScheduledPayout = Pick<
  ScheduledPayoutRecord,
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
  | 'scheduledFor'
> & { makerUserId: string | null; makerApiKeyId: string | null };

interface ScheduledPayoutRow {
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
  scheduled_for: Date;
  state: ScheduledPayoutState;
  refusal: string | null;
  created_at: Date;
  ended_at: Date | null;
}

const toScheduled = (row: ScheduledPayoutRow): ScheduledPayoutRecord => ({
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
  scheduledFor: row.scheduled_for,
  state: row.state,
  refusal: row.refusal,
  createdAt: row.created_at,
  endedAt: row.ended_at,
});

export function createScheduledPayoutsRepo(db: DbOrTrx) {
  const withRefs = () => db('scheduled_payouts as s').join('virtual_accounts as a', 'a.id', 's.account_id').select('s.*', 'a.account_ref');

  return {
    async insert(payout: NewScheduledPayout): Promise<void> {
      await db('scheduled_payouts').insert({
        id: payout.id,
        tenant_id: payout.tenantId,
        account_id: payout.accountId,
        merchant_tx_ref: payout.merchantTxRef,
        amount: payout.amount.toString(),
        bank_code: payout.bankCode,
        account_number: payout.accountNumber,
        narration: payout.narration,
        account_name: payout.accountName,
        beneficiary_id: payout.beneficiaryId,
        metadata: JSON.stringify(payout.metadata),
        scheduled_for: payout.scheduledFor,
        maker_user_id: payout.makerUserId,
        maker_api_key_id: payout.makerApiKeyId,
      });
    },

    async findByRef(tenantId: string, merchantTxRef: string): Promise<ScheduledPayoutRecord | undefined> {
      const row: ScheduledPayoutRow | undefined = await withRefs()
        .where({ 's.tenant_id': tenantId, 's.merchant_tx_ref': merchantTxRef })
        .first();
      return row ? toScheduled(row) : undefined;
    },

    /** The payout's row, locked until the caller's transaction ends: its start and its cancel take turns on it. */
    async lockByRef(tenantId: string, merchantTxRef: string): Promise<ScheduledPayoutRecord | undefined> {
      const locked: { id: string } | undefined = await db('scheduled_payouts')
        .where({ tenant_id: tenantId, merchant_tx_ref: merchantTxRef })
        .forUpdate()
        .first('id');
      if (!locked) return undefined;
      const row: ScheduledPayoutRow = await withRefs().where({ 's.id': locked.id }).first();
      return toScheduled(row);
    },

    /** Ends a payout still scheduled (its row locked by the caller): started, cancelled, or refused with why. */
    async end(id: string, end: { state: 'started' | 'cancelled' } | { state: 'refused'; refusal: string }): Promise<void> {
      await db('scheduled_payouts')
        .where({ id, state: 'scheduled' })
        .update({ state: end.state, refusal: end.state === 'refused' ? end.refusal : null, ended_at: db.fn.now() });
    },

    /** Of the payouts of these references (any tenant's), those still scheduled here. */
    async stillScheduled(merchantTxRefs: string[]): Promise<ScheduledPayoutRecord[]> {
      if (merchantTxRefs.length === 0) return [];
      const rows: ScheduledPayoutRow[] = await withRefs()
        .whereIn('s.merchant_tx_ref', merchantTxRefs)
        .where({ 's.state': 'scheduled' })
        // A payout whose tenant moved to another cluster is resumed there, never here.
        .whereNull('a.moved_out_at');
      return rows.map(toScheduled);
    },

    /** The tenant's payouts still scheduled, soonest first, after the payout whose id is the cursor; with `metadata`, those carrying it. */
    async listScheduled(tenantId: string, afterId: string | null, limit: number, metadata?: Metadata): Promise<ScheduledPayoutRecord[]> {
      const query = withRefs().where({ 's.tenant_id': tenantId, 's.state': 'scheduled' });
      if (metadata) query.whereRaw('s.metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      if (afterId !== null)
        query.whereRaw(
          '(s.scheduled_for, s.id) > (SELECT c.scheduled_for, c.id FROM scheduled_payouts c WHERE c.id = ? AND c.tenant_id = ?)',
          [afterId, tenantId],
        );
      const rows: ScheduledPayoutRow[] = await query.orderBy([{ column: 's.scheduled_for' }, { column: 's.id' }]).limit(limit);
      return rows.map(toScheduled);
    },
  };
}
