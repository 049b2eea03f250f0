import type { DbOrTrx } from '../db';
import type { Metadata } from '../http/metadata';
import { outboxPriority, type OutboxEntry } from '../workflow-starts/outbox.repo';
import type { PostingPlan } from '../ledger/ledger.types';
import type { PostedDebit } from '../ledger/posting-engine';
import type { EventedLedger } from '../events/ledger-events';
import { koboFromDb, type Kobo } from '../money';

export interface SettlementDraft {
  id: string;
  merchantTxRef: string;
  tenantId: string;
  accountRef: string;
  amount: Kobo;
  bankCode: string;
  accountNumber: string;
  narration: string;
  /** The provider's name for the destination when the initiator looked it up; else the workflow looks it up. */
  accountName: string | null;
  /** The saved beneficiary the settlement pays, when the request named one. */
  beneficiaryId: string | null;
  metadata: Metadata;
  requestHash: string;
  idempotencyKey: string | null;
  debit: PostingPlan;
  job: OutboxEntry;
}

export type InitiationResult =
  | { kind: 'no_account' }
  | { kind: 'customer_suspended' }
  | { kind: 'key_taken' }
  | { kind: 'account_frozen'; frozenFor: string; reason: string }
  | { kind: 'insufficient_funds'; accountId: string }
  | { kind: 'daily_limit'; tier: number; limit: Kobo; usedToday: Kobo }
  | { kind: 'created' };

/**
 * A settlement in ONE statement: find the tenant's account (and its customer's status), claim the
 * Idempotency-Key when there is one, have the ledger post the provisional debit with its checks under the
 * customer's lock (the customer still active, the account's funds, the customer's daily payout limit), and add
 * the settlement row and the workflow to start (in its tenant's lane of the outbox, first in it: see outbox.repo);
 * the ledger's events layer adds its `settlement.created`.
 */
const STATEMENT_PARTS = {
  before: `target AS (
    SELECT a.id, c.status AS customer_status, a.frozen_for, a.frozen_reason
      FROM virtual_accounts a JOIN customers c ON c.id = a.customer_id
     WHERE a.tenant_id = :tenant_id AND a.account_ref = :account_ref
  ), claim AS (
    INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash, resource_ref, resource_id)
    SELECT :tenant_id, 'settlement', :idempotency_key, :request_hash, :merchant_tx_ref, :settlement_id
      FROM target
     WHERE CAST(:idempotency_key AS text) IS NOT NULL
    ON CONFLICT (tenant_id, scope, key) DO NOTHING
    RETURNING key
  ), cleared AS (
    SELECT t.id FROM target t
     WHERE t.customer_status = 'active' AND (CAST(:idempotency_key AS text) IS NULL OR EXISTS (SELECT 1 FROM claim))
  )`,
  accountIdSql: '(SELECT id FROM cleared)',
  metadataSql: 'CAST(:metadata AS jsonb)',
  after: (posted: PostedDebit) => `settlement AS (
    INSERT INTO settlements (id, merchant_tx_ref, tenant_id, account_id, debit_entry_id, amount, bank_code, account_number, narration, account_name, beneficiary_id, metadata)
    SELECT CAST(:settlement_id AS uuid), :merchant_tx_ref, CAST(:tenant_id AS uuid), i.account_id, i.id, i.amount, :bank_code, :account_number, :narration, CAST(:account_name AS text), CAST(:beneficiary_id AS uuid), CAST(:metadata AS jsonb)
      FROM ${posted.entries} i
    RETURNING id
  ), outbox AS (
    INSERT INTO workflow_outbox (workflow_id, workflow_type, args, search_attributes, tenant_id, priority)
    SELECT :workflow_id, :workflow_type, CAST(:workflow_args AS jsonb), CAST(:workflow_search_attributes AS jsonb), CAST(:tenant_id AS uuid), CAST(:workflow_priority AS smallint)
      FROM settlement
    RETURNING workflow_id
  )`,
  // When nothing was made, the locked rows tell why: the customer's status, the account's freeze, the account's funds, then the
  // customer's daily limit.
  select: (posted: PostedDebit) => `SELECT t.id AS account_id, t.customer_status, t.frozen_for, t.frozen_reason,
         EXISTS (SELECT 1 FROM claim) AS claimed,
         EXISTS (SELECT 1 FROM settlement) AS created,
         g.customer_active, g.debits_open, g.funds_covered, g.tier, g.daily_limit, g.used_today
    FROM (SELECT 1) AS one LEFT JOIN target t ON true LEFT JOIN ${posted.gate} g ON true`,
};

export function createSettlementInitiationRepo(db: DbOrTrx, ledger: Pick<EventedLedger, 'debitSettlementAmong'>) {
  return {
    async initiate(draft: SettlementDraft): Promise<InitiationResult> {
      const result = await ledger.debitSettlementAmong(db, 'settlement-initiation', STATEMENT_PARTS, draft.debit, {
        tenant_id: draft.tenantId,
        account_ref: draft.accountRef,
        idempotency_key: draft.idempotencyKey,
        request_hash: draft.requestHash,
        merchant_tx_ref: draft.merchantTxRef,
        settlement_id: draft.id,
        bank_code: draft.bankCode,
        account_number: draft.accountNumber,
        narration: draft.narration,
        account_name: draft.accountName,
        beneficiary_id: draft.beneficiaryId,
        metadata: JSON.stringify(draft.metadata),
        workflow_id: draft.job.workflowId,
        workflow_type: draft.job.workflowType,
        workflow_args: JSON.stringify(draft.job.args),
        workflow_search_attributes: JSON.stringify(draft.job.searchAttributes),
        workflow_priority: outboxPriority(draft.job.workflowType),
      });
      const row = result.rows[0] as {
        account_id: string | null;
        customer_status: string | null;
        claimed: boolean;
        created: boolean;
        customer_active: boolean | null;
        frozen_for: string | null;
        frozen_reason: string | null;
        debits_open: boolean | null;
        funds_covered: boolean | null;
        tier: number | null;
        daily_limit: string | null;
        used_today: string | null;
      };
      if (row.account_id === null) return { kind: 'no_account' };
      // The status as the statement began, or as the customer's row was when its lock was granted.
      if (row.customer_status !== 'active' || row.customer_active === false) return { kind: 'customer_suspended' };
      if (draft.idempotencyKey !== null && !row.claimed) return { kind: 'key_taken' };
      if (row.created) return { kind: 'created' };
      // Frozen as the account's row was locked; the freeze named as it was read first (a freeze made meanwhile says "frozen").
      if (row.debits_open === false)
        return { kind: 'account_frozen', frozenFor: row.frozen_for ?? 'debits', reason: row.frozen_reason ?? 'frozen' };
      // Limits are judged only on amounts the account could pay: SPEC.md's insufficient funds comes first.
      if (row.funds_covered !== true || row.daily_limit === null) return { kind: 'insufficient_funds', accountId: row.account_id };
      return { kind: 'daily_limit', tier: row.tier ?? 1, limit: koboFromDb(row.daily_limit), usedToday: koboFromDb(row.used_today ?? 0) };
    },
  };
}
