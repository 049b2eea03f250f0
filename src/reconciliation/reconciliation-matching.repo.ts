import type { DbOrTrx, Trx } from '../db';
import { confirmedPaymentCreditsOfAccountSql, paymentCreditAnswersJoins, paymentEntryExistsSql } from '../ledger/ledger-reads';
import { FINDINGS, NOT_CONFIRMED_IN_TIME, ROW_FINDINGS } from './findings';
import type { ProviderRow } from '../provider/provider.types';

/** What matching decided a provider row needs: a repair, nothing, or a finding (its kind). */
type RowAction = 'credit' | 'restore' | 'refund';

export interface PendingAction {
  providerTxnId: string;
  action: RowAction;
  tenantId: string;
  accountId: string;
  entryId: string | null;
  settlementId: string | null;
  /** A payout's attempt reference (the provider's merchantTxRef); null for a payment. */
  merchantTxRef: string | null;
  amount: bigint;
  fee: bigint;
  senderName: string;
  narration: string;
  rawStatus: string | null;
  timeCreated: Date | null;
}

/** How a cluster's platform run shares the wallet's rows with the other clusters (see CELL_PAGE_STATEMENT). */
export interface CellShare {
  reportsUnowned: boolean;
  ownedElsewhere: string[];
}

interface PageTally {
  staged: number;
  actions: number;
}

/** Kobo to a two-decimal naira string in SQL (amounts here are never negative). */
const naira = (expr: string): string =>
  `CASE WHEN ${expr} IS NULL THEN NULL ELSE CAST(div(${expr}, 100) AS text) || '.' || lpad(CAST(mod(${expr}, 100) AS text), 2, '0') END`;

const SEVERITIES = `(VALUES ${Object.entries(FINDINGS)
  .map(([kind, finding]) => `('${kind}', '${finding.severity}')`)
  .join(', ')}) AS severity(kind, level)`;

const FINDING_LIST = ROW_FINDINGS.map((kind) => `'${kind}'`).join(', ');

/**
 * A UUIDv7 made in SQL for each new finding (Postgres 15 has no uuidv7()): a random v4 UUID whose first
 * six bytes become the clock's millisecond and whose version becomes 7 (bits 52 and 53 turn 0100 into
 * 0111), as src/ids.ts makes them, so findings still list in order. Made here, only for the rows that
 * are findings, rather than ahead of time for every row of every page.
 */
const NEW_UUIDV7 = `CAST(encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    placing substring(int8send(CAST(floor(extract(epoch FROM clock_timestamp()) * 1000) AS bigint)) from 3) from 1 for 6), 52, 1), 53, 1), 'hex') AS uuid)`;

/**
 * Keeps a NOT EXISTS on the staged rows a per-row index probe (a subplan on (run_id, ...)) instead of
 * an anti join. The staging table swings between empty and a whole window, so its statistics rarely
 * know the current run: believing the run has one staged row, the planner chose an anti join that scans
 * all of the run's staged rows for every ledger record (100,000 x 100,000 on a second run over a
 * 100,000-transaction window: the lookup step never finished and its retries piled up on Postgres).
 */
const ONE_PROBE_PER_ROW = 'OFFSET 0';

/**
 * With several clusters, the pieces the statement adds: a row of a tenant moved out of this cluster (its account,
 * settlement or tenants row marked by a move's fence) is the target's; a row this cluster cannot place (no account by
 * number or alias, no payment entry; no settlement attempt by reference) is another cluster's when one places it
 * (`:owned_elsewhere`, the ids the other cells placed), and no cluster's otherwise, which only the first cluster
 * reports (`:reports_unowned`). Such rows are 'elsewhere': not staged, counted or reported here.
 */
const OWNED_ELSEWHERE_CTE = `owned_elsewhere AS (
    SELECT jsonb_array_elements_text(CAST(:owned_elsewhere AS jsonb)) AS provider_txn_id
  ), `;

const CELL_PLACEMENT_COLUMNS = `,
           (an.moved_out_at IS NOT NULL OR ar.moved_out_at IS NOT NULL OR s.moved_out_at IS NOT NULL OR t.moved_out_at IS NOT NULL) AS moved_out,
           CASE WHEN p.direction = 'credit' THEN an.id IS NULL AND ar.id IS NULL AND e.id IS NULL ELSE s.id IS NULL END AS unplaced,
           p.provider_txn_id IN (SELECT provider_txn_id FROM owned_elsewhere) AS owned_elsewhere`;

const CELL_TENANT_JOIN = 'LEFT JOIN tenants t ON t.id = coalesce(e.tenant_id, an.tenant_id, ar.tenant_id, s.tenant_id)';

/** Opens the outcome's CASE (closed after it): 'elsewhere', or else what the row's matches make it. */
const ELSEWHERE_OR = `CASE WHEN j.moved_out OR (j.unplaced AND (NOT CAST(:reports_unowned AS boolean) OR j.owned_elsewhere)) THEN 'elsewhere' ELSE
           `;

/**
 * One page of provider rows in ONE statement: each row is matched against the ledger by provider
 * transaction id (payments) or attempt reference (payouts) through unique indexes, classified, and
 * staged for the run; a row the run already staged (a retried page) is skipped whole, so nothing is
 * counted or reported twice. Findings open once per subject (a later run counts an occurrence) and
 * are linked to the run and to the tenant's child run. Repairs are only marked here; they are made
 * afterwards, row by row, through the same paths as the events that were missed.
 */
function pageStatement(cells: boolean): string {
  return `
  WITH page AS (
    SELECT DISTINCT ON (p.provider_txn_id) p.*
      FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS p(
             provider_txn_id text, direction text, status text, raw_status text, amount bigint, fee bigint,
             currency text, time_created timestamptz, recipient_account_number text, alias_account_ref text, merchant_tx_ref text,
             sender_name text, narration text)
     ORDER BY p.provider_txn_id
  ), ${cells ? OWNED_ELSEWHERE_CTE : ''}joined AS (
    SELECT p.*,
           coalesce(an.id, ar.id) AS acct_id, coalesce(an.tenant_id, ar.tenant_id) AS acct_tenant,
           e.id AS e_id, e.tenant_id AS e_tenant, e.account_id AS e_account, e.status AS e_status, e.amount AS e_amount, e.fee AS e_fee,
           rev.id AS rev_id, rev.narration AS rev_narration, adj.id AS adj_id, comp.id AS comp_id,
           sa.outcome AS attempt_outcome, sa.updated_at AS attempt_changed_at, e.status_changed_at AS e_changed_at, s.id AS s_id, s.tenant_id AS s_tenant, s.account_id AS s_account, s.status AS s_status, s.amount AS s_amount,
           paid.provider_ref AS settled_ref,
           (p.direction = 'credit' AND p.status = 'success' AND an.id IS NULL AND ar.id IS NULL AND e.id IS NULL
             AND EXISTS (SELECT 1 FROM inbound_events m WHERE m.category = 'misdirected' AND m.transaction_id = p.provider_txn_id)) AS known_misdirected
           ${cells ? CELL_PLACEMENT_COLUMNS : ''}
      FROM page p
      LEFT JOIN virtual_accounts an ON p.direction = 'credit' AND an.bank_account_number = p.recipient_account_number
      LEFT JOIN virtual_accounts ar ON p.direction = 'credit' AND ar.account_ref = p.alias_account_ref
      ${paymentCreditAnswersJoins('p.provider_txn_id', "p.direction = 'credit'")}
      LEFT JOIN settlement_attempts sa ON p.direction = 'debit' AND sa.provider_ref = p.merchant_tx_ref
      LEFT JOIN settlements s ON s.id = sa.settlement_id
      LEFT JOIN LATERAL (SELECT provider_ref FROM settlement_attempts WHERE settlement_id = s.id AND outcome = 'success' ORDER BY attempt_no LIMIT 1) paid ON true
      ${cells ? CELL_TENANT_JOIN : ''}
  ), classified AS (
    SELECT j.*,
           coalesce(j.e_tenant, j.acct_tenant, j.s_tenant) AS tenant_id,
           coalesce(j.e_account, j.acct_id, j.s_account) AS account_id,
           ${cells ? ELSEWHERE_OR : ''}CASE WHEN j.direction = 'credit' THEN
             CASE
               WHEN j.status = 'success' THEN
                 CASE
                   WHEN j.e_id IS NULL THEN
                     CASE
                       WHEN j.acct_id IS NULL THEN CASE WHEN j.known_misdirected THEN 'matched' ELSE 'unknown_account' END
                       WHEN j.time_created > now() - make_interval(secs => CAST(:grace_seconds AS double precision)) THEN 'in_flight'
                       WHEN coalesce(j.currency, 'NGN') <> 'NGN' OR j.fee < 0 OR j.fee >= j.amount THEN 'payment_not_creditable'
                       ELSE 'credit'
                     END
                   WHEN j.e_amount + j.e_fee <> j.amount OR j.e_fee <> j.fee OR coalesce(j.currency, 'NGN') <> 'NGN'
                        OR (j.acct_id IS NOT NULL AND j.acct_id <> j.e_account) THEN 'payment_mismatch'
                   WHEN j.e_status = 'reversed' AND j.adj_id IS NULL THEN
                     CASE WHEN j.rev_narration LIKE :not_known_in_window OR j.rev_narration LIKE :not_confirmed_in_time THEN 'restore' ELSE 'reversed_credit_provider_success' END
                   ELSE 'matched'
                 END
               WHEN j.status IN ('failed', 'refund') THEN
                 CASE
                   WHEN j.e_id IS NULL OR j.comp_id IS NOT NULL THEN 'matched'
                   WHEN j.e_status = 'provisional' THEN 'in_flight'
                   WHEN j.e_status = 'confirmed' OR j.adj_id IS NOT NULL THEN 'credit_failed_at_provider'
                   ELSE 'matched'
                 END
               WHEN j.status = 'not_found' THEN
                 CASE
                   WHEN j.e_id IS NULL OR j.comp_id IS NOT NULL THEN 'matched'
                   WHEN j.e_status = 'provisional' THEN 'in_flight'
                   -- Confirmed after the lookup was asked: the answer predates what confirmed it; the next run asks again.
                   WHEN j.e_status = 'confirmed' AND j.adj_id IS NULL AND j.e_changed_at >= CAST(:asked_from AS timestamptz) THEN 'in_flight'
                   WHEN j.e_status = 'confirmed' OR j.adj_id IS NOT NULL THEN 'credit_unknown_to_provider'
                   ELSE 'matched'
                 END
               ELSE 'in_flight'
             END
           ELSE
             CASE
               WHEN j.s_id IS NULL THEN CASE WHEN j.status = 'success' THEN 'unknown_transfer' ELSE 'matched' END
               -- A payout is matched to its own attempt: SUCCESS on a reference the ledger failed or refunded,
               -- or on any reference but the one the settlement was paid by, is money out with no debit for it.
               WHEN j.status = 'success' AND j.s_status = 'success' AND j.attempt_outcome <> 'success' THEN 'settlement_paid_twice'
               WHEN j.status = 'success' AND j.attempt_outcome IN ('failed', 'refunded') THEN 'settlement_paid_not_debited'
               WHEN j.s_status IN ('pending', 'processing') THEN 'in_flight'
               WHEN j.status = 'success' THEN
                 CASE
                   WHEN j.s_status IN ('failed', 'refunded') THEN 'settlement_paid_not_debited'
                   WHEN j.s_amount <> j.amount THEN 'settlement_mismatch'
                   ELSE 'matched'
                 END
               WHEN j.status = 'refund' THEN CASE WHEN j.s_status = 'success' AND j.attempt_outcome = 'success' THEN 'refund' ELSE 'matched' END
               WHEN j.status = 'failed' THEN CASE WHEN j.s_status = 'success' AND j.attempt_outcome = 'success' THEN 'settlement_debited_not_paid' ELSE 'matched' END
               WHEN j.status = 'not_found' THEN
                 CASE
                   WHEN j.s_status <> 'success' OR j.attempt_outcome <> 'success' THEN 'matched'
                   -- Paid after the lookup was asked (a lagging lookup, a run that waited on the provider): the next run asks again.
                   WHEN j.attempt_changed_at >= CAST(:asked_from AS timestamptz) THEN 'in_flight'
                   ELSE 'settlement_not_at_provider'
                 END
               ELSE 'in_flight'
             END
           END${cells ? ' END' : ''} AS outcome
      FROM joined j
  ), scoped AS (
    -- A finding an operator has already resolved is acknowledged, not reported again.
    SELECT c.provider_txn_id, c.direction, c.status, c.raw_status, c.amount, c.fee, c.currency, c.time_created,
           c.recipient_account_number, c.merchant_tx_ref, c.sender_name, c.narration, c.tenant_id, c.account_id,
           c.e_id, c.e_status, c.e_amount, c.e_fee, c.rev_narration, c.adj_id, c.attempt_outcome, c.s_id, c.s_status, c.s_amount, c.settled_ref,
           CASE WHEN c.outcome IN (${FINDING_LIST})
                 AND EXISTS (SELECT 1 FROM reconciliation_exceptions r WHERE r.subject = c.provider_txn_id AND r.kind = c.outcome AND r.status = 'resolved')
                THEN 'acknowledged' ELSE c.outcome END AS outcome
      FROM classified c
     WHERE (CAST(:scope_tenant AS uuid) IS NULL OR c.tenant_id = CAST(:scope_tenant AS uuid))${cells ? ` AND c.outcome <> 'elsewhere'` : ''}
  ), staged AS (
    INSERT INTO reconciliation_provider_rows (run_id, provider_txn_id, direction, status, raw_status, amount, fee, currency, time_created,
                                              merchant_tx_ref, sender_name, narration, tenant_id, account_id, entry_id, settlement_id, looked_up,
                                              outcome, action)
    SELECT CAST(:run_id AS uuid), c.provider_txn_id, c.direction, c.status, c.raw_status, c.amount, c.fee, c.currency, c.time_created,
           c.merchant_tx_ref, c.sender_name, c.narration, c.tenant_id, c.account_id, c.e_id, c.s_id, CAST(:looked_up AS boolean), c.outcome,
           CASE WHEN c.outcome IN ('credit', 'restore', 'refund') THEN c.outcome END
      FROM scoped c
    ON CONFLICT (run_id, provider_txn_id) DO NOTHING
    RETURNING provider_txn_id, tenant_id, outcome, action
  ), findings AS (
    INSERT INTO reconciliation_exceptions (id, tenant_id, kind, severity, status, subject, account_id, entry_id, settlement_id, provider_txn_id,
                                           details, first_run_id, last_run_id)
    SELECT ${NEW_UUIDV7}, c.tenant_id, c.outcome, severity.level, 'open', c.provider_txn_id, c.account_id, coalesce(c.adj_id, c.e_id), c.s_id,
           c.provider_txn_id,
           jsonb_strip_nulls(jsonb_build_object(
             'providerStatus', c.raw_status, 'providerAmount', ${naira('c.amount')}, 'providerFee', ${naira('c.fee')},
             'providerCurrency', c.currency, 'providerTime', c.time_created, 'providerAccountNumber', c.recipient_account_number,
             'ledgerAmount', ${naira('c.e_amount + c.e_fee')}, 'ledgerFee', ${naira('c.e_fee')}, 'ledgerStatus', c.e_status,
             'ledgerReversal', c.rev_narration, 'merchantTxRef', c.merchant_tx_ref, 'attemptOutcome', c.attempt_outcome,
             'settlementStatus', c.s_status, 'settlementAmount', ${naira('c.s_amount')}, 'settledReference', c.settled_ref)),
           CAST(:run_id AS uuid), CAST(:run_id AS uuid)
      FROM staged s
      JOIN scoped c ON c.provider_txn_id = s.provider_txn_id
      JOIN ${SEVERITIES} ON severity.kind = c.outcome
     WHERE c.outcome IN (${FINDING_LIST})
    ON CONFLICT (kind, subject) WHERE status = 'open'
    DO UPDATE SET last_run_id = EXCLUDED.last_run_id, occurrences = reconciliation_exceptions.occurrences + 1,
                  details = EXCLUDED.details, updated_at = now()
    RETURNING id, tenant_id, severity
  ), linked AS (
    INSERT INTO reconciliation_run_exceptions (run_id, exception_id)
    SELECT CAST(:run_id AS uuid), f.id FROM findings f
    UNION ALL
    SELECT child.id, f.id FROM findings f JOIN reconciliation_runs child ON child.parent_run_id = CAST(:run_id AS uuid) AND child.tenant_id = f.tenant_id
    ON CONFLICT DO NOTHING
  ), tally AS (
    SELECT s.tenant_id,
           count(*) AS seen,
           count(*) FILTER (WHERE s.outcome IN ('matched', 'acknowledged')) AS matched,
           count(*) FILTER (WHERE s.outcome = 'in_flight') AS in_flight,
           count(*) FILTER (WHERE s.outcome IN (${FINDING_LIST})) AS reported,
           count(*) FILTER (WHERE severity.level = 'alert') AS alerts
      FROM staged s LEFT JOIN ${SEVERITIES} ON severity.kind = s.outcome
     GROUP BY s.tenant_id
  ), bump_run AS (
    UPDATE reconciliation_runs r
       SET provider_transactions = r.provider_transactions + t.seen, matched = r.matched + t.matched, in_flight = r.in_flight + t.in_flight,
           reported = r.reported + t.reported, alerts = r.alerts + t.alerts
      FROM (SELECT coalesce(sum(seen), 0) AS seen, coalesce(sum(matched), 0) AS matched, coalesce(sum(in_flight), 0) AS in_flight,
                   coalesce(sum(reported), 0) AS reported, coalesce(sum(alerts), 0) AS alerts FROM tally) t
     WHERE r.id = CAST(:run_id AS uuid)
  ), bump_children AS (
    UPDATE reconciliation_runs r
       SET provider_transactions = r.provider_transactions + t.seen, matched = r.matched + t.matched, in_flight = r.in_flight + t.in_flight,
           reported = r.reported + t.reported, alerts = r.alerts + t.alerts
      FROM tally t
     WHERE r.parent_run_id = CAST(:run_id AS uuid) AND r.tenant_id = t.tenant_id
  )
  SELECT (SELECT count(*) FROM staged) AS staged, (SELECT count(*) FROM staged WHERE action IS NOT NULL) AS actions`;
}

/** With one cluster: every row is this cluster's, and nothing asks where else it might be placed. */
const PAGE_STATEMENT = pageStatement(false);
/** With several: a row placed on another cluster, or of a tenant moved away from this one, is left to that cluster. */
const CELL_PAGE_STATEMENT = pageStatement(true);

interface ActionRow {
  provider_txn_id: string;
  action: RowAction;
  tenant_id: string;
  account_id: string;
  entry_id: string | null;
  settlement_id: string | null;
  merchant_tx_ref: string | null;
  amount: string;
  fee: string;
  sender_name: string | null;
  narration: string | null;
  raw_status: string | null;
  time_created: Date | null;
}

/**
 * A step's provider rows as the staging statement reads them: one JSON text and its row count. A step
 * turns its rows into this before it waits on anything, so no row object outlives the step. Row
 * objects still alive when V8 collects the young generation (it does so while the worker waits on
 * Postgres) are copied and promoted, and teach V8 to allocate later rows straight into the old
 * generation (allocation-site pretenuring): garbage there stays until a full collection.
 */
export interface RowsPage {
  json: string;
  size: number;
}

export function pageOfRows(rows: ProviderRow[]): RowsPage {
  return { json: JSON.stringify(rows.map(toRowJson)), size: rows.length };
}

function toRowJson(row: ProviderRow): Record<string, unknown> {
  return {
    provider_txn_id: row.providerTxnId,
    direction: row.direction,
    status: row.status,
    raw_status: row.rawStatus,
    amount: row.amount,
    fee: row.fee,
    currency: row.currency,
    time_created: row.timeCreated,
    recipient_account_number: row.recipientAccountNumber,
    alias_account_ref: row.aliasAccountRef,
    merchant_tx_ref: row.merchantTxRef,
    sender_name: row.senderName,
    narration: row.narration,
  };
}

interface StuckSettlement {
  id: string;
  tenantId: string;
  accountId: string;
  merchantTxRef: string;
  status: string;
  amount: bigint;
  attemptCount: number;
  createdAt: Date;
  updatedAt: Date;
}

interface DayTotalsTally {
  compared: number;
  differing: number;
}

export function createReconciliationMatchingRepo(db: DbOrTrx) {
  return {
    /**
     * `graceSeconds`: a provider payment younger than this is in flight; `lookedUp`: the rows came from single lookups;
     * `askedFrom`: when the first of those lookups was asked (an answer is not held against what the ledger did after it);
     * `cells`, with several clusters: whether this cluster reports the rows no cluster places, and the rows another places.
     */
    async stagePage(
      run: { id: string; scopeTenantId: string | null },
      page: RowsPage,
      options: { graceSeconds: number; lookedUp: boolean; askedFrom?: Date | null; cells?: CellShare },
    ): Promise<PageTally> {
      if (page.size === 0) return { staged: 0, actions: 0 };
      const { cells } = options;
      const result = await db.raw(cells ? CELL_PAGE_STATEMENT : PAGE_STATEMENT, {
        ...(cells ? { reports_unowned: cells.reportsUnowned, owned_elsewhere: JSON.stringify(cells.ownedElsewhere) } : {}),
        rows: page.json,
        run_id: run.id,
        scope_tenant: run.scopeTenantId,
        grace_seconds: options.graceSeconds,
        looked_up: options.lookedUp,
        asked_from: options.askedFrom ?? null,
        not_known_in_window: NOT_CONFIRMED_IN_TIME[0],
        not_confirmed_in_time: NOT_CONFIRMED_IN_TIME[1],
      });
      const row = result.rows[0] as { staged: string; actions: string };
      return { staged: Number(row.staged), actions: Number(row.actions) };
    },

    /**
     * The rows of a page this cluster places, asked by another cluster's platform run of rows it cannot: an account
     * by number or alias, a payment entry by transaction id, a settlement attempt by reference, through the same
     * unique indexes the page statement matches by. A tenant's fenced copy (moved out) counts: the row is known to
     * the platform, and the cluster it moved to places it once the move's copy commits.
     */
    async placedRows(page: RowsPage): Promise<string[]> {
      if (page.size === 0) return [];
      const result = await db.raw(
        `SELECT p.provider_txn_id
           FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS p(provider_txn_id text, direction text, recipient_account_number text,
                                                                 alias_account_ref text, merchant_tx_ref text)
          WHERE CASE WHEN p.direction = 'credit' THEN
                  EXISTS (SELECT 1 FROM virtual_accounts a WHERE a.bank_account_number = p.recipient_account_number)
                  OR EXISTS (SELECT 1 FROM virtual_accounts a WHERE a.account_ref = p.alias_account_ref)
                  OR ${paymentEntryExistsSql('p.provider_txn_id')}
                ELSE EXISTS (SELECT 1 FROM settlement_attempts sa WHERE sa.provider_ref = p.merchant_tx_ref) END`,
        { rows: page.json },
      );
      return (result.rows as Array<{ provider_txn_id: string }>).map((row) => row.provider_txn_id);
    },

    async pendingActions(runId: string, limit: number): Promise<PendingAction[]> {
      const rows: ActionRow[] = await db('reconciliation_provider_rows')
        .where({ run_id: runId, action_done: false })
        .whereNotNull('action')
        .orderBy('provider_txn_id')
        .limit(limit)
        .select(
          'provider_txn_id',
          'action',
          'tenant_id',
          'account_id',
          'entry_id',
          'settlement_id',
          'merchant_tx_ref',
          'amount',
          'fee',
          'sender_name',
          'narration',
          'raw_status',
          'time_created',
        );
      return rows.map((row) => ({
        providerTxnId: row.provider_txn_id,
        action: row.action,
        tenantId: row.tenant_id,
        accountId: row.account_id,
        entryId: row.entry_id,
        settlementId: row.settlement_id,
        merchantTxRef: row.merchant_tx_ref,
        amount: BigInt(row.amount),
        fee: BigInt(row.fee),
        senderName: row.sender_name ?? '',
        narration: row.narration ?? '',
        rawStatus: row.raw_status,
        timeCreated: row.time_created,
      }));
    },

    /** The action is settled: `outcome` says whether this run repaired it or found it already repaired. */
    async markActionDone(trx: Trx, runId: string, providerTxnId: string, outcome: 'repaired' | 'matched' | 'in_flight'): Promise<void> {
      await trx('reconciliation_provider_rows')
        .where({ run_id: runId, provider_txn_id: providerTxnId })
        .update({ action_done: true, outcome });
    },

    /**
     * Confirmed payment credits in the window whose provider transaction no listing of this run showed,
     * for a single lookup each (per account through its (account_id, created_at) index).
     */
    async unlistedCredits(
      run: { id: string; scopeTenantId: string | null; windowFrom: Date; windowTo: Date },
      limit: number,
    ): Promise<string[]> {
      const result = await db.raw(
        `SELECT e.provider_txn_ref
           FROM virtual_accounts a
           JOIN LATERAL (
             ${confirmedPaymentCreditsOfAccountSql('a.id', ':from', ':to')}
           ) e ON true
          WHERE (CAST(:tenant AS uuid) IS NULL OR a.tenant_id = CAST(:tenant AS uuid))
            AND a.moved_out_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM reconciliation_provider_rows r WHERE r.run_id = :run AND r.provider_txn_id = e.provider_txn_ref ${ONE_PROBE_PER_ROW})
          ORDER BY e.id
          LIMIT :limit`,
        { from: run.windowFrom, to: run.windowTo, tenant: run.scopeTenantId, run: run.id, limit },
      );
      return (result.rows as Array<{ provider_txn_ref: string }>).map((row) => row.provider_txn_ref);
    },

    /**
     * Settlement attempts made in the window that no listing of this run showed: for a platform run
     * (which listed the wallet) the ones the ledger counts as paid; for a tenant's run (which listed only
     * its accounts' credits) all of them. Settlement ids are UUIDv7, so the window bounds them by key.
     */
    async unlistedAttempts(
      run: { id: string; scopeTenantId: string | null; windowFrom: Date; windowTo: Date },
      limit: number,
    ): Promise<string[]> {
      const result = await db.raw(
        `SELECT sa.provider_ref
           FROM settlements s
           JOIN settlement_attempts sa ON sa.settlement_id = s.id
          WHERE s.id >= CAST(:lowest_id AS uuid)
            AND sa.created_at >= :from AND sa.created_at <= :to
            AND (CAST(:tenant AS uuid) IS NULL OR s.tenant_id = CAST(:tenant AS uuid))
            AND (CAST(:tenant AS uuid) IS NOT NULL OR sa.outcome = 'success')
            AND s.moved_out_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM reconciliation_provider_rows r WHERE r.run_id = :run AND r.merchant_tx_ref = sa.provider_ref ${ONE_PROBE_PER_ROW})
          ORDER BY sa.provider_ref
          LIMIT :limit`,
        {
          lowest_id: lowestUuidv7Before(run.windowFrom),
          from: run.windowFrom,
          to: run.windowTo,
          tenant: run.scopeTenantId,
          run: run.id,
          limit,
        },
      );
      return (result.rows as Array<{ provider_ref: string }>).map((row) => row.provider_ref);
    },

    /**
     * Per account and Africa/Lagos day of the provider's time: its SUCCESS gross and fees against what
     * the ledger holds for the same transactions now (credits less reversals and compensations, restoring
     * credits added), plus confirmed credits the provider did not know. Replaces the run's earlier totals.
     */
    async computeDayTotals(trx: Trx, runId: string): Promise<void> {
      await trx('reconciliation_day_totals').where({ run_id: runId }).delete();
      await trx.raw(
        `WITH credits AS (
           SELECT r.tenant_id, r.account_id,
                  CAST(coalesce(r.time_created, e.created_at) AT TIME ZONE 'Africa/Lagos' AS date) AS day,
                  CASE WHEN r.status = 'success' THEN r.amount ELSE 0 END AS provider_gross,
                  CASE WHEN r.status = 'success' THEN r.fee ELSE 0 END AS provider_fee,
                  (r.status = 'success') AS provider_counted,
                  coalesce(e.amount, 0) - coalesce(rev.amount, 0) + coalesce(adj.amount, 0) - coalesce(comp.amount, 0) AS ledger_net,
                  CASE WHEN e.status <> 'reversed' THEN e.fee ELSE 0 END + coalesce(adj.fee, 0) - coalesce(comp.fee, 0) AS ledger_fee
             FROM reconciliation_provider_rows r
             ${paymentCreditAnswersJoins('r.provider_txn_id')}
            WHERE r.run_id = :run AND r.direction = 'credit' AND r.account_id IS NOT NULL AND r.tenant_id IS NOT NULL
         )
         INSERT INTO reconciliation_day_totals (run_id, tenant_id, account_id, day, provider_count, provider_gross, provider_fee, ledger_count, ledger_gross, ledger_fee)
         SELECT :run, tenant_id, account_id, day,
                count(*) FILTER (WHERE provider_counted), sum(provider_gross), sum(provider_fee),
                count(*) FILTER (WHERE ledger_net > 0),
                sum(CASE WHEN ledger_net > 0 THEN ledger_net + ledger_fee ELSE 0 END),
                sum(CASE WHEN ledger_net > 0 THEN ledger_fee ELSE 0 END)
           FROM credits
          GROUP BY tenant_id, account_id, day`,
        { run: runId },
      );
    },

    async dayTotalsTally(trx: Trx, runId: string, tenantId: string | null): Promise<DayTotalsTally> {
      const query = trx('reconciliation_day_totals').where({ run_id: runId });
      if (tenantId) query.where({ tenant_id: tenantId });
      const row = (await query
        .select(
          trx.raw('count(*) AS compared'),
          trx.raw('count(*) FILTER (WHERE provider_gross <> ledger_gross OR provider_fee <> ledger_fee) AS differing'),
        )
        .first()) as {
        compared: string;
        differing: string;
      };
      return { compared: Number(row.compared), differing: Number(row.differing) };
    },

    /** Counts from the run's staged rows (its own, or one tenant's for a child run). */
    async outcomeCounts(
      trx: Trx,
      runId: string,
      tenantId: string | null,
    ): Promise<{ seen: number; matched: number; inFlight: number; repaired: number; lookedUp: number }> {
      const query = trx('reconciliation_provider_rows').where({ run_id: runId });
      if (tenantId) query.where({ tenant_id: tenantId });
      const row = (await query
        .select(
          trx.raw('count(*) AS seen'),
          trx.raw(`count(*) FILTER (WHERE outcome IN ('matched', 'acknowledged')) AS matched`),
          trx.raw(`count(*) FILTER (WHERE outcome = 'in_flight') AS in_flight`),
          trx.raw(`count(*) FILTER (WHERE outcome = 'repaired') AS repaired`),
          trx.raw('count(*) FILTER (WHERE looked_up) AS looked_up'),
        )
        .first()) as { seen: string; matched: string; in_flight: string; repaired: string; looked_up: string };
      return {
        seen: Number(row.seen),
        matched: Number(row.matched),
        inFlight: Number(row.in_flight),
        repaired: Number(row.repaired),
        lookedUp: Number(row.looked_up),
      };
    },

    /**
     * Settlements in the scope still pending or processing longer than `olderThanMs` after they were requested (probes and lookups do not
     * make one look fresh).
     */
    async stuckSettlements(tenantId: string | null, olderThanMs: number, limit: number): Promise<StuckSettlement[]> {
      const query = db('settlements')
        .whereIn('status', ['pending', 'processing'])
        .whereNull('moved_out_at')
        .where('created_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanMs / 1000]))
        .orderBy('id')
        .limit(limit)
        .select('id', 'tenant_id', 'account_id', 'merchant_tx_ref', 'status', 'amount', 'attempt_count', 'created_at', 'updated_at');
      if (tenantId) query.where({ tenant_id: tenantId });
      const rows: Array<{
        id: string;
        tenant_id: string;
        account_id: string;
        merchant_tx_ref: string;
        status: string;
        amount: string;
        attempt_count: number;
        created_at: Date;
        updated_at: Date;
      }> = await query;
      return rows.map((row) => ({
        id: row.id,
        tenantId: row.tenant_id,
        accountId: row.account_id,
        merchantTxRef: row.merchant_tx_ref,
        status: row.status,
        amount: BigInt(row.amount),
        attemptCount: row.attempt_count,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
    },

    /**
     * What the provider's wallet should hold beside the ledger's balances: payouts still open (debited
     * here, perhaps not paid there), the provider's recorded transfer fees (taken from the wallet, not
     * from any account), and misdirected payments not yet assigned (in the wallet, in no account).
     */
    /** Misdirected payments not yet assigned to an account: at the provider, not in the books. */
    async unassignedMisdirected(): Promise<bigint> {
      const result = await db.raw(`
        SELECT coalesce(sum(gross_amount - fee), 0)::text AS total FROM inbound_events
         WHERE category = 'misdirected' AND assigned_at IS NULL AND fee >= 0 AND gross_amount > fee`);
      return BigInt((result.rows[0] as { total: string }).total);
    },

    /** The entry that reversed a settlement's debit, if it was reversed. */
    async settlementReversal(trx: Trx, settlementId: string): Promise<string | null> {
      const row: { reversal_entry_id: string | null } | undefined = await trx('settlements')
        .where({ id: settlementId })
        .first('reversal_entry_id');
      return row?.reversal_entry_id ?? null;
    },

    /** The inbound record of a payment reconciliation found names the credit it became. */
    async attachEntry(trx: Trx, eventId: string, entryId: string): Promise<void> {
      await trx('inbound_events').where({ id: eventId }).update({ entry_id: entryId });
    },

    async deleteStaged(runId: string): Promise<void> {
      await db('reconciliation_provider_rows').where({ run_id: runId }).delete();
    },
  };
}

/** The smallest UUIDv7 a row created at `moment` (less a minute of clock skew) can have. */
export function lowestUuidv7Before(moment: Date): string {
  const hex = Math.max(0, moment.getTime() - 60_000)
    .toString(16)
    .padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
