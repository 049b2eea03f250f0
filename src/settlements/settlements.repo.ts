import type { Knex } from 'knex';
import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
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
  beneficiaryId: string | null;
  narration: string;
  /** The tenant's own data, fixed when the settlement was made. */
  metadata: Metadata;
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
  beneficiary_id: string | null;
  narration: string;
  metadata: Metadata;
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
    beneficiaryId: row.beneficiary_id,
    narration: row.narration,
    metadata: row.metadata,
    status: row.status,
    attemptCount: row.attempt_count,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * submitting: a submission in flight; ambiguous: answered by an outage, an unknown code or an
 * unexplained refusal (it may exist); accepted: the provider acknowledged it; failed:
 * failed by lookup, or refused at its first submission with a documented "not created" answer;
 * success: paid; refunded: the provider reported REFUND for it.
 */
export type AttemptOutcome = 'submitting' | 'accepted' | 'ambiguous' | 'failed' | 'success' | 'refunded';

export interface SettlementAttempt {
  attemptNo: number;
  providerRef: string;
  outcome: AttemptOutcome;
  providerTransferId: string | null;
  detail: string | null;
  lastSubmittedAt: Date | null;
  /** When the provider's own lookup first showed the reference; a submission's answer never sets it. */
  acknowledgedAt: Date | null;
}

interface AttemptRow {
  attempt_no: number;
  provider_ref: string;
  outcome: AttemptOutcome;
  provider_transfer_id: string | null;
  detail: string | null;
  last_submitted_at: Date | null;
  acknowledged_at: Date | null;
}

function toAttempt(row: AttemptRow): SettlementAttempt {
  return {
    attemptNo: row.attempt_no,
    providerRef: row.provider_ref,
    outcome: row.outcome,
    providerTransferId: row.provider_transfer_id,
    detail: row.detail,
    lastSubmittedAt: row.last_submitted_at,
    acknowledgedAt: row.acknowledged_at,
  };
}

export function createSettlementsRepo(db: DbOrTrx) {
  const withAccountRef = () =>
    db('settlements')
      .join('virtual_accounts', 'virtual_accounts.id', 'settlements.account_id')
      .select('settlements.*', 'virtual_accounts.account_ref');

  return {
    async findById(id: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await withAccountRef().where('settlements.id', id).first();
      return row ? toSettlement(row) : undefined;
    },

    async findByRef(tenantId: string, merchantTxRef: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await withAccountRef()
        .where({ 'settlements.tenant_id': tenantId, 'settlements.merchant_tx_ref': merchantTxRef })
        .first();
      return row ? toSettlement(row) : undefined;
    },

    /**
     * The tenant's settlements, newest first, `beforeId` the previous page's last; with `metadata`, only those carrying every
     * pair of it (`@>`, served by the GIN index).
     */
    async list(tenantId: string, beforeId: string | null, limit: number, metadata?: Metadata): Promise<SettlementRecord[]> {
      const query = withAccountRef().where('settlements.tenant_id', tenantId).orderBy('settlements.id', 'desc').limit(limit);
      if (beforeId) query.where('settlements.id', '<', beforeId);
      if (metadata) query.whereRaw('settlements.metadata @> CAST(? AS jsonb)', [JSON.stringify(metadata)]);
      const rows: SettlementRow[] = await query;
      return rows.map(toSettlement);
    },

    /** For provider events, which carry a reference but no tenant. */
    async findByRefAnyTenant(merchantTxRef: string): Promise<SettlementRecord | undefined> {
      const row: SettlementRow | undefined = await withAccountRef().where('settlements.merchant_tx_ref', merchantTxRef).first();
      return row ? toSettlement(row) : undefined;
    },

    /** Of these merchantTxRefs, the settlements still pending or processing. */
    async listOpenByRefs(merchantTxRefs: string[]): Promise<SettlementRecord[]> {
      if (merchantTxRefs.length === 0) return [];
      const rows: SettlementRow[] = await withAccountRef()
        .whereIn('settlements.merchant_tx_ref', merchantTxRefs)
        .whereIn('settlements.status', ['pending', 'processing'])
        // A settlement whose tenant moved to another cluster is resumed there, never here.
        .whereNull('settlements.moved_out_at');
      return rows.map(toSettlement);
    },

    /** The tenant's settlements among `merchantTxRefs`: each one's status and failure reason, by reference. */
    async outcomesByRefs(
      tenantId: string,
      merchantTxRefs: string[],
    ): Promise<Array<{ merchantTxRef: string; status: SettlementStatus; failureReason: string | null }>> {
      if (merchantTxRefs.length === 0) return [];
      const rows: Array<{ merchant_tx_ref: string; status: SettlementStatus; failure_reason: string | null }> = await db('settlements')
        .where({ tenant_id: tenantId })
        .whereIn('merchant_tx_ref', merchantTxRefs)
        .select('merchant_tx_ref', 'status', 'failure_reason');
      return rows.map((row) => ({ merchantTxRef: row.merchant_tx_ref, status: row.status, failureReason: row.failure_reason }));
    },

    /** How many of the tenant's settlements named by `merchantTxRefs` (a one-column subquery) are in each status. */
    async statusCountsByRefs(tenantId: string, merchantTxRefs: Knex.QueryBuilder): Promise<Partial<Record<SettlementStatus, number>>> {
      const rows: Array<{ status: SettlementStatus; count: string }> = await db('settlements')
        .where({ tenant_id: tenantId })
        .whereIn('merchant_tx_ref', merchantTxRefs)
        .groupBy('status')
        .select('status', db.raw('count(*) AS count'));
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
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

    async listAttempts(settlementId: string): Promise<SettlementAttempt[]> {
      const rows: AttemptRow[] = await db('settlement_attempts').where({ settlement_id: settlementId }).orderBy('attempt_no');
      return rows.map(toAttempt);
    },

    async findAttempt(settlementId: string, attemptNo: number): Promise<SettlementAttempt | undefined> {
      const row: AttemptRow | undefined = await db('settlement_attempts')
        .where({ settlement_id: settlementId, attempt_no: attemptNo })
        .first();
      return row ? toAttempt(row) : undefined;
    },

    /** The provider's lookup found the reference: it is acknowledged for good, and no longer undecided. */
    async acknowledgeAttempt(settlementId: string, attemptNo: number, providerTransferId: string): Promise<void> {
      await db('settlement_attempts')
        .where({ settlement_id: settlementId, attempt_no: attemptNo })
        .update({
          outcome: db.raw(`CASE WHEN outcome IN ('submitting', 'ambiguous') THEN 'accepted' ELSE outcome END`),
          acknowledged_at: db.raw('coalesce(acknowledged_at, now())'),
          provider_transfer_id: db.raw('coalesce(provider_transfer_id, ?)', [providerTransferId]),
          updated_at: db.fn.now(),
        });
    },

    /**
     * Records a "not found" answer for a reference no lookup has shown yet, whatever its submission was
     * answered (accepted, duplicate, ambiguous: a provider can say any of them about a reference it never
     * stored); true when an earlier answer since its last submission already said "not found" at least
     * `graceMs` ago (by the database's clock): "not found" throughout the grace, never one answer. The
     * caller probes such a reference; nothing here fails it. One statement, so the answer being recorded
     * never counts as the earlier one. False when a lookup has shown it, it is decided, or still within the grace.
     */
    async noteNotFound(settlementId: string, attemptNo: number, graceMs: number): Promise<boolean> {
      const rows: Array<{ lasted: boolean }> = await db('settlement_attempts')
        .where({ settlement_id: settlementId, attempt_no: attemptNo })
        .whereNull('acknowledged_at')
        .whereIn('outcome', ['submitting', 'ambiguous', 'accepted'])
        .update({ not_found_since: db.raw('coalesce(not_found_since, now())'), updated_at: db.fn.now() })
        .returning(db.raw('not_found_since <= now() - make_interval(secs => ?) AS lasted', [graceMs / 1000]));
      return rows[0]?.lasted === true;
    },

    /**
     * The provider's answer to a submission, recorded only while the attempt is still `submitting`: a
     * lookup that decided it meanwhile (paid, failed, seen) is never overwritten by an answer that comes
     * later. False when the attempt had moved on.
     */
    async recordSubmissionAnswer(
      settlementId: string,
      attemptNo: number,
      outcome: AttemptOutcome,
      detail: { text?: string; providerTransferId?: string },
    ): Promise<boolean> {
      const updated = await db('settlement_attempts')
        .where({ settlement_id: settlementId, attempt_no: attemptNo, outcome: 'submitting' })
        .update({
          outcome,
          ...(detail.text ? { detail: detail.text } : {}),
          ...(detail.providerTransferId ? { provider_transfer_id: detail.providerTransferId } : {}),
          updated_at: db.fn.now(),
        });
      return updated > 0;
    },

    /**
     * `submitted` stamps a submission (the "not found" grace counts from the latest); `acknowledged`
     * records that the provider's own lookup has shown the reference, once and for good.
     */
    async upsertAttempt(
      settlementId: string,
      attemptNo: number,
      providerRef: string,
      outcome: AttemptOutcome,
      detail?: { providerTransferId?: string | null; text?: string; submitted?: boolean; acknowledged?: boolean },
    ): Promise<void> {
      const now = db.fn.now();
      await db('settlement_attempts')
        .insert({
          settlement_id: settlementId,
          attempt_no: attemptNo,
          provider_ref: providerRef,
          outcome,
          provider_transfer_id: detail?.providerTransferId ?? null,
          detail: detail?.text ?? null,
          last_submitted_at: detail?.submitted ? now : null,
          acknowledged_at: detail?.acknowledged ? now : null,
        })
        .onConflict(['settlement_id', 'attempt_no'])
        .merge({
          outcome,
          ...(detail?.providerTransferId ? { provider_transfer_id: detail.providerTransferId } : {}),
          ...(detail?.text ? { detail: detail.text } : {}),
          // A new submission may arrive where an earlier one did not: "not found" counts again from scratch.
          ...(detail?.submitted ? { last_submitted_at: now, not_found_since: null } : {}),
          ...(detail?.acknowledged ? { acknowledged_at: db.raw('coalesce(settlement_attempts.acknowledged_at, now())') } : {}),
          updated_at: now,
        });
    },
  };
}
