import type { DbOrTrx, Trx } from '../db';
import { koboFromDb, type Kobo } from '../money';
import type { EntryStatus } from '../ledger/ledger.types';
import type { EventedLedger } from '../events/ledger-events';
import { paymentCreditsAmongSql } from '../ledger/ledger-reads';
import { looseIndexScan } from '../loose-index-scan';
import { cutBatches, type QueuedConfirmation } from './batch-cutting';
import type { PaymentMemory } from '../contracts/confirmation-rules';

/** A provisional credit queued for batched confirmation. */
export interface ConfirmationRequest {
  entryId: string;
  tenantId: string;
  accountRef: string;
  providerTxnRef: string;
  postedAt: Date;
}

interface ClaimedPayment extends QueuedConfirmation {
  postedAt: Date;
}

export interface ClaimedBatch {
  batchId: string;
  tenantId: string;
  payments: ClaimedPayment[];
}

/** A credit as a batch round checks it: the ledger's record, who holds its claim, and what the provider said before. */
export interface RoundCredit {
  entryId: string;
  accountId: string;
  status: EntryStatus;
  providerTxnRef: string;
  gross: Kobo;
  currency: string;
  /** The account credited. */
  accountRef: string;
  /** The account's tenant moved to another cluster: its copy here is read-only, and that cluster confirms the credit. */
  movedOut: boolean;
  /** The reference the payer used (for an operator-assigned misdirected payment, the one it arrived under). */
  paidIntoRef: string;
  /** Null when no claim row exists any more. */
  claimedBy: string | null;
  hasClaim: boolean;
  memory: PaymentMemory;
  /** The database's clock as the round read the credit (epoch ms). */
  nowMs: number;
  /** When this payment's window (from its posting) ends, by the database's clock (epoch ms). */
  windowEndsAtMs: number;
}

/** A credit a round confirmed: its net amount and the provider's fee. */
export interface ConfirmedInRound {
  entryId: string;
  accountId: string;
  amount: Kobo;
  fee: Kobo;
}

interface RoundRow {
  id: string;
  account_id: string;
  status: EntryStatus;
  provider_txn_ref: string;
  amount: string;
  fee: string;
  currency: string;
  account_ref: string;
  moved_out: boolean;
  arrived_under: string | null;
  has_claim: boolean;
  batch_id: string | null;
  first_seen_at: Date | null;
  not_found_answers: number;
  last_not_found_counted_at: Date | null;
  now_ms: number;
  window_ends_at_ms: number;
}

const CLAIM_COLUMNS = ['entry_id', 'tenant_id', 'account_ref', 'provider_txn_ref', 'posted_at', 'queued_at'];

interface ClaimRow {
  entry_id: string;
  tenant_id: string;
  account_ref: string;
  provider_txn_ref: string;
  posted_at: Date;
  queued_at: Date;
}

const byQueuedAt = (a: ClaimRow, b: ClaimRow): number => a.queued_at.getTime() - b.queued_at.getTime();

const claimedPayment = (row: ClaimRow): ClaimedPayment => ({
  entryId: row.entry_id,
  tenantId: row.tenant_id,
  accountRef: row.account_ref,
  providerTxnRef: row.provider_txn_ref,
  postedAt: row.posted_at,
});

/**
 * The tenants with queued credits, at most `limit`: those with no batch the claiming process keeps busy before
 * those with one, and among each the tenant whose oldest credit has waited longest first. A loose index scan,
 * so the cost follows the number of tenants, not the backlog. A tenant moved to another cluster is left out:
 * its copy here is read-only, and the cluster it moved to confirms its credits.
 */
const WAITING_TENANTS_SQL = `
  WITH RECURSIVE ${looseIndexScan('waiting', 'confirmation_claims', 'tenant_id', 'batch_id IS NULL')}
  SELECT w.tenant_id, (SELECT min(c.queued_at) FROM confirmation_claims c WHERE c.batch_id IS NULL AND c.tenant_id = w.tenant_id) AS oldest
    FROM waiting w
   WHERE w.tenant_id IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM tenants moved WHERE moved.id = w.tenant_id AND moved.moved_out_at IS NOT NULL)
   ORDER BY w.tenant_id = ANY(CAST(? AS uuid[])), oldest
   LIMIT ?`;

/** Each tenant's oldest queued credits, as many as it was given, locked (rows another claimer holds skipped). */
const LOCK_QUEUED_SQL = `
  SELECT q.* FROM unnest(CAST(? AS uuid[]), CAST(? AS int[])) AS t(tenant_id, take)
   CROSS JOIN LATERAL (
     SELECT ${CLAIM_COLUMNS.map((column) => `c.${column}`).join(', ')} FROM confirmation_claims c
      WHERE c.batch_id IS NULL AND c.tenant_id = t.tenant_id
      ORDER BY c.queued_at
      LIMIT t.take
        FOR UPDATE SKIP LOCKED
   ) q`;

/** Queued credits for `batches` batches, shared out by tenant in turns (see claimQueued). */
async function lockQueuedFairly(trx: Trx, batches: number, maxSize: number, busyTenants: string[]): Promise<ClaimRow[]> {
  const { rows: tenants } = (await trx.raw(WAITING_TENANTS_SQL, [busyTenants, batches])) as { rows: Array<{ tenant_id: string }> };
  if (tenants.length === 0) return [];
  const share = (index: number): number => (Math.floor(batches / tenants.length) + (index < batches % tenants.length ? 1 : 0)) * maxSize;
  const { rows } = (await trx.raw(LOCK_QUEUED_SQL, [
    tenants.map((tenant) => tenant.tenant_id),
    tenants.map((_tenant, index) => share(index)),
  ])) as { rows: ClaimRow[] };
  return rows;
}

export function createConfirmationClaimsRepo(db: DbOrTrx) {
  return {
    /** Queues credits for the next batch (in the caller's transaction); a credit already queued or claimed stays as it is. */
    async enqueue(requests: ConfirmationRequest[]): Promise<number> {
      if (requests.length === 0) return 0;
      const inserted = await db('confirmation_claims')
        .insert(
          requests.map((request) => ({
            entry_id: request.entryId,
            tenant_id: request.tenantId,
            account_ref: request.accountRef,
            provider_txn_ref: request.providerTxnRef,
            posted_at: request.postedAt,
          })),
        )
        .onConflict('entry_id')
        .ignore()
        .returning('entry_id');
      return inserted.length;
    },

    /**
     * Claims at most `maxBatches` batches of queued credits and names each batch's claims in one statement.
     * Claims whose batch was never started (`started_at` still empty `unstartedAfterMs` after the claim:
     * the claiming process died or could not reach Temporal) go first. The rest are shared out by tenant:
     * the tenants without a batch in `busyTenants` (those the claiming process keeps busy) before those with one,
     * then the tenants whose oldest credit waits longest, each a batch before any a second, each its oldest
     * credits, so one tenant's backlog never queues another's confirmations behind it, even when a pass has room
     * for one batch only. A tenant moved to another
     * cluster is passed by: that cluster confirms its credits. Rows another
     * claimer holds are skipped, so claimers in several worker processes never claim a credit twice; rows
     * locked here but past the batches taken stay queued.
     */
    async claimQueued(options: {
      maxBatches: number;
      maxSize: number;
      unstartedAfterMs: number;
      newBatchId: () => string;
      busyTenants?: string[];
    }): Promise<ClaimedBatch[]> {
      const { maxBatches, maxSize } = options;
      const run = async (trx: Trx): Promise<ClaimedBatch[]> => {
        const orphaned: ClaimRow[] = await trx('confirmation_claims')
          .whereNotNull('batch_id')
          .whereNull('started_at')
          .whereNotIn('tenant_id', trx('tenants').whereNotNull('moved_out_at').select('id'))
          .where('claimed_at', '<', trx.raw('now() - make_interval(secs => ?)', [options.unstartedAfterMs / 1000]))
          .orderBy('claimed_at')
          .limit(maxBatches * maxSize)
          .forUpdate()
          .skipLocked()
          .select(CLAIM_COLUMNS);
        const again = cutBatches(orphaned.sort(byQueuedAt).map(claimedPayment), maxSize).slice(0, maxBatches);
        const room = maxBatches - again.length;
        const queued = room > 0 ? await lockQueuedFairly(trx, room, maxSize, options.busyTenants ?? []) : [];
        const fresh = cutBatches(queued.sort(byQueuedAt).map(claimedPayment), maxSize).slice(0, room);
        const batches = [...again, ...fresh].map((payments) => ({
          batchId: options.newBatchId(),
          tenantId: payments[0]!.tenantId,
          payments,
        }));
        if (batches.length === 0) return [];
        const entryIds = batches.flatMap((batch) => batch.payments.map((payment) => payment.entryId));
        const batchIds = batches.flatMap((batch) => batch.payments.map(() => batch.batchId));
        await trx.raw(
          `UPDATE confirmation_claims c SET batch_id = b.batch_id, claimed_at = now(), started_at = NULL
             FROM unnest(CAST(? AS uuid[]), CAST(? AS text[])) AS b(entry_id, batch_id)
            WHERE c.entry_id = b.entry_id`,
          [entryIds, batchIds],
        );
        return batches;
      };
      return db.transaction(run);
    },

    /**
     * Which of these batches still hold a credit the provider has not answered for yet: batches in their
     * first round. The others settled every credit, were released, or only wait on back-off timers.
     */
    async awaitingFirstAnswers(batchIds: string[]): Promise<string[]> {
      if (batchIds.length === 0) return [];
      return db('confirmation_claims').whereIn('batch_id', batchIds).where('lookups', 0).distinct('batch_id').pluck('batch_id');
    },

    /** Records that a batch's workflow was started, so its claims are never taken for an unstarted batch's. */
    async markStarted(batchId: string): Promise<void> {
      await db('confirmation_claims').where({ batch_id: batchId }).update({ started_at: db.fn.now() });
    },

    /** Puts a batch's credits back in the queue (its start failed, or its workflow is no longer running). */
    async releaseBatch(batchId: string): Promise<number> {
      return db('confirmation_claims').where({ batch_id: batchId }).update({ batch_id: null, claimed_at: null, started_at: null });
    },

    /** Batches holding claims for longer than `olderThanMs`: the convergence check asks whether each still runs. */
    async batchesClaimedBefore(olderThanMs: number, limit: number): Promise<string[]> {
      const rows: Array<{ batch_id: string }> = await db('confirmation_claims')
        .whereNotNull('batch_id')
        .where('claimed_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanMs / 1000]))
        .distinct('batch_id')
        .limit(limit);
      return rows.map((row) => row.batch_id);
    },

    /**
     * The credits a round asked about, with their claims (present or not) and memory; payment credits only.
     * The clock (now and the window's end) is the database's alone, with no allowance: here it decides
     * (the workflow only times the lookups), and a window must never end early. A worker whose clock runs ahead asks a little early and is
     * told to wait.
     */
    async loadRound(entryIds: string[], windowMs: number): Promise<Map<string, RoundCredit>> {
      if (entryIds.length === 0) return new Map();
      const { rows } = (await db.raw(
        `SELECT e.id, e.account_id, e.status, e.provider_txn_ref, e.amount, e.fee, e.currency, a.account_ref,
                a.moved_out_at IS NOT NULL AS moved_out,
                (SELECT ie.alias_account_ref FROM inbound_events ie WHERE ie.assigned_entry_id = e.id LIMIT 1) AS arrived_under,
                c.entry_id IS NOT NULL AS has_claim, c.batch_id, c.first_seen_at, coalesce(c.not_found_answers, 0) AS not_found_answers,
                c.last_not_found_counted_at,
                CAST(extract(epoch FROM now()) * 1000 AS float8) AS now_ms,
                CAST(extract(epoch FROM e.created_at + make_interval(secs => ?)) * 1000 AS float8) AS window_ends_at_ms
           FROM ${paymentCreditsAmongSql('CAST(? AS uuid[])')} e
           JOIN virtual_accounts a ON a.id = e.account_id
           LEFT JOIN confirmation_claims c ON c.entry_id = e.id`,
        [windowMs / 1000, entryIds],
      )) as { rows: RoundRow[] };
      return new Map(
        rows.map((row) => [
          row.id,
          {
            entryId: row.id,
            accountId: row.account_id,
            status: row.status,
            providerTxnRef: row.provider_txn_ref,
            gross: koboFromDb(row.amount) + koboFromDb(row.fee),
            currency: row.currency,
            accountRef: row.account_ref,
            movedOut: row.moved_out,
            paidIntoRef: row.arrived_under ?? row.account_ref,
            claimedBy: row.batch_id,
            hasClaim: row.has_claim,
            memory: {
              seen: row.first_seen_at !== null,
              notFoundAnswers: row.not_found_answers,
              lastNotFoundCountedAtMs: row.last_not_found_counted_at?.getTime() ?? null,
            },
            nowMs: row.now_ms,
            windowEndsAtMs: row.window_ends_at_ms,
          },
        ]),
      );
    },

    /**
     * A round's confirmations in ONE statement (no transaction held open across round trips): takes this
     * batch's claims off the credits to confirm (a batch acts only on credits whose claim names it),
     * has the ledger's statement confirm those still provisional (the accounts locked first, in id
     * order), the ledger's events layer records a payment.confirmed event for each credit it confirmed (committed
     * with the confirmation or not at all), and records one more provider answer on the claims of the
     * credits the batch keeps waiting on (a "not found" that counted, `notFoundCounted`, at this
     * statement's time: never before the answer came). Returns the credits whose claims it took and those it
     * confirmed, with their net amounts and fees. `db` may be a transaction: a round whose accounts split runs in one.
     */
    async confirmRound(
      ledger: Pick<EventedLedger, 'confirmCreditsAmong'>,
      batchId: string,
      toConfirm: Array<{ entryId: string; accountId: string }>,
      kept: Array<{ entryId: string; memory: PaymentMemory; notFoundCounted: boolean }>,
    ): Promise<{ held: Set<string>; confirmed: Map<string, ConfirmedInRound> }> {
      if (toConfirm.length === 0 && kept.length === 0) return { held: new Set(), confirmed: new Map() };
      const { rows } = (await ledger.confirmCreditsAmong(
        db,
        'payment-confirmation-round',
        {
          before: `taken AS (
           DELETE FROM confirmation_claims WHERE entry_id = ANY(CAST(:confirm AS uuid[])) AND batch_id = :batch RETURNING entry_id
         )`,
          entryIdsSql: 'SELECT entry_id FROM taken',
          accountIdsSql: 'CAST(:accounts AS uuid[])',
          after: () => `remembered AS (
           UPDATE confirmation_claims c
              SET lookups = c.lookups + 1,
                  first_seen_at = CASE WHEN m.seen THEN coalesce(c.first_seen_at, now()) ELSE c.first_seen_at END,
                  not_found_answers = m.not_found,
                  last_not_found_counted_at = CASE WHEN m.counted THEN now() ELSE c.last_not_found_counted_at END
             FROM unnest(CAST(:kept AS uuid[]), CAST(:seen AS boolean[]), CAST(:not_found AS int[]), CAST(:counted AS boolean[])) AS m(entry_id, seen, not_found, counted)
            WHERE c.entry_id = m.entry_id AND c.batch_id = :batch
           RETURNING c.entry_id
         )`,
          select: (done) => `SELECT (SELECT coalesce(jsonb_agg(entry_id), '[]'::jsonb) FROM taken) AS held,
                (SELECT coalesce(jsonb_agg(jsonb_build_object('entryId', id, 'accountId', account_id, 'amount', amount::text, 'fee', fee::text)), '[]'::jsonb)
                   FROM ${done.confirmed}) AS confirmed`,
        },
        {
          batch: batchId,
          confirm: toConfirm.map((item) => item.entryId),
          accounts: [...new Set(toConfirm.map((item) => item.accountId))],
          kept: kept.map((item) => item.entryId),
          seen: kept.map((item) => item.memory.seen),
          not_found: kept.map((item) => item.memory.notFoundAnswers),
          counted: kept.map((item) => item.notFoundCounted),
        },
      )) as { rows: Array<{ held: string[]; confirmed: Array<{ entryId: string; accountId: string; amount: string; fee: string }> }> };
      return {
        held: new Set(rows[0]!.held),
        confirmed: new Map(
          rows[0]!.confirmed.map((credit) => [
            credit.entryId,
            { entryId: credit.entryId, accountId: credit.accountId, amount: koboFromDb(credit.amount), fee: koboFromDb(credit.fee) },
          ]),
        ),
      };
    },

    /** Takes the claim off a credit this batch holds (before it is reversed in the same transaction); false when it holds none. */
    async dropHeld(trx: Trx, batchId: string, entryId: string): Promise<boolean> {
      return (await trx('confirmation_claims').where({ entry_id: entryId, batch_id: batchId }).delete()) > 0;
    },

    /** Drops the claims of credits that are no longer provisional (settled by someone else). */
    async dropSettled(entryIds: string[]): Promise<void> {
      if (entryIds.length === 0) return;
      await db('confirmation_claims').whereIn('entry_id', entryIds).delete();
    },
  };
}
