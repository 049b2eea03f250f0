import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { ProviderRejectedError, ProviderUnavailableError } from '../provider/errors';
import type { PaymentProvider } from '../provider/payment-provider';
import type { ProviderRow, TransactionListingScope } from '../provider/provider.types';
import type { ReconciliationPosition, UnansweredCall } from '../contracts/reconciliation.contract';
import { createReconciliationMatchingRepo, pageOfRows, type RowsPage } from './reconciliation-matching.repo';
import { fromLookup, type LookupRequest } from './provider-rows';

/** Single lookups per step of the lookup phase. */
const LOOKUP_BATCH = 50;

interface RunScope {
  id: string;
  tenantId: string | null;
  windowFrom: Date;
  windowTo: Date;
}

interface RecordsStep {
  /** The step's rows, already serialized: no row object outlives the step (see RowsPage). */
  page: RowsPage;
  next: ReconciliationPosition;
  /** The rows came from single lookups, not a listing. */
  lookedUp: boolean;
  /** Single lookups: when the first of them was asked. */
  askedFrom?: Date;
  /** Records remain that RECONCILIATION_MAX_LOOKUPS leaves unasked. */
  lookupLimitReached: boolean;
  /** A tenant's run spent its RECONCILIATION_RUN_PROVIDER_CALLS: it reads nothing more. */
  runBudgetReached?: boolean;
  /** The tenant's hourly budget of provider calls is spent: ask again from `next` after this long. */
  waitMs?: number;
  /** The step's last call got no answer; it is counted in `next`, which asks it again. */
  unanswered?: UnansweredCall;
}

/** Whether a tenant's run may make its next provider call: yes, no more this run, or not for a while. */
type Spend = { granted: true } | { granted: false; runBudgetReached: true } | { granted: false; waitMs: number };

/**
 * Reads a run's window of the provider's records a step at a time: the wallet listing (a platform
 * run) or each of the tenant's accounts' listings (a tenant's run), then, one by one, the ledger
 * records of the window that no listing showed. A step is one page (or one batch of lookups): the
 * position after it is all a retry needs.
 */
export function createProviderRecords(deps: {
  db: Db;
  config: Pick<Config, 'RECONCILIATION_PAGE_SIZE' | 'RECONCILIATION_MAX_LOOKUPS' | 'RECONCILIATION_RUN_PROVIDER_CALLS'>;
  provider: PaymentProvider;
  /** The tenants' hourly budget of provider calls, keyed by tenant id. */
  callBudget: { take(tenantId: string): Promise<number> };
  logger: Logger;
}) {
  const { db, config, provider, callBudget, logger } = deps;
  const matching = createReconciliationMatchingRepo(db);

  const lookupsFrom = (position: ReconciliationPosition): ReconciliationPosition => ({
    source: 'lookups',
    accountId: null,
    cursor: null,
    lookups: position.lookups,
    ...(position.calls === undefined ? {} : { calls: position.calls }),
  });
  const listed = (page: RowsPage, next: ReconciliationPosition): RecordsStep => ({
    page,
    next,
    lookedUp: false,
    lookupLimitReached: false,
  });
  const NO_ROWS = pageOfRows([]);
  const callsOf = (position: ReconciliationPosition): number => position.calls ?? 0;

  /**
   * One provider call. A call the provider does not answer is returned, not thrown: the step ends with
   * the call counted, so a run's budget bounds the calls the provider sees whatever it answers, and the
   * workflow, not an activity retry that would forget the count, decides when to ask again.
   */
  async function ask<T>(call: () => Promise<T>): Promise<{ answer: T } | { unanswered: UnansweredCall }> {
    try {
      return { answer: await call() };
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      return { unanswered: { reason: error.message, retryAfterMs: error.retryAfterMs } };
    }
  }

  /**
   * One provider call of the run, asked before it is made. A platform run has no budget; a tenant's run
   * has RECONCILIATION_RUN_PROVIDER_CALLS of its own and shares the tenant's hourly budget.
   */
  async function spend(run: RunScope, calls: number): Promise<Spend> {
    if (run.tenantId === null) return { granted: true };
    if (calls >= config.RECONCILIATION_RUN_PROVIDER_CALLS) return { granted: false, runBudgetReached: true };
    const waitMs = await callBudget.take(run.tenantId);
    return waitMs === 0 ? { granted: true } : { granted: false, waitMs };
  }

  /** The step when a call was not granted: nothing read, the position unchanged (to wait) or done (the run's budget). */
  function refused(position: ReconciliationPosition, spent: Exclude<Spend, { granted: true }>): RecordsStep {
    if ('waitMs' in spent) return { ...listed(NO_ROWS, position), waitMs: spent.waitMs };
    return { ...listed(NO_ROWS, { ...position, source: 'done' }), runBudgetReached: true };
  }

  /** One page of a listing, its rows serialized before anything else is awaited (see RowsPage). */
  async function listingPage(
    run: RunScope,
    position: ReconciliationPosition,
    scope: TransactionListingScope,
  ): Promise<{ answer: { page: RowsPage; nextCursor: string | null } } | { unanswered: UnansweredCall }> {
    const query = {
      from: run.windowFrom,
      to: run.windowTo,
      limit: config.RECONCILIATION_PAGE_SIZE,
      ...(position.cursor ? { cursor: position.cursor } : {}),
    };
    const listing = await ask(() => provider.listTransactions({ ...query, scope }));
    if ('unanswered' in listing) return listing;
    return { answer: { page: pageOfRows(listing.answer.rows), nextCursor: listing.answer.nextCursor } };
  }

  async function tenantAccount(tenantId: string, after: { id: string } | { exactly: string } | null) {
    const query = db('virtual_accounts').where({ tenant_id: tenantId }).orderBy('id').first('id', 'bank_account_number');
    if (after && 'exactly' in after) query.where({ id: after.exactly });
    else if (after) query.where('id', '>', after.id);
    return (await query) as { id: string; bank_account_number: string } | undefined;
  }

  /**
   * The provider's answer for one record. A lookup it refuses outright (a reference it cannot read)
   * decides nothing: the record is left undecided rather than failing every run that meets it.
   */
  async function lookUp(asked: LookupRequest): Promise<{ answer: ProviderRow } | { unanswered: UnansweredCall }> {
    const reference = asked.kind === 'credit' ? asked.providerTxnRef : asked.providerRef;
    try {
      const found = await ask(() => provider.getTransaction(reference));
      return 'unanswered' in found ? found : { answer: fromLookup(asked, found.answer) };
    } catch (error) {
      if (!(error instanceof ProviderRejectedError)) throw error;
      logger.warn({ reference, reason: error.message }, 'provider refused a reconciliation lookup');
      return { answer: { ...fromLookup(asked, null), status: 'pending', rawStatus: `lookup refused: ${error.description}` } };
    }
  }

  /**
   * The ledger records of the window that no listing showed (confirmed credits; paid settlement
   * attempts, or every attempt for a tenant's run, which lists no payouts), asked one by one. Each
   * answer is staged, so the next step asks for the next ones.
   */
  async function lookups(run: RunScope, position: ReconciliationPosition, beat: () => void): Promise<RecordsStep> {
    const done: ReconciliationPosition = { ...position, source: 'done' };
    const allowed = Math.min(
      LOOKUP_BATCH,
      config.RECONCILIATION_MAX_LOOKUPS - position.lookups,
      run.tenantId === null ? LOOKUP_BATCH : config.RECONCILIATION_RUN_PROVIDER_CALLS - callsOf(position),
    );
    const wanted = Math.max(allowed, 1);
    const scope = { id: run.id, scopeTenantId: run.tenantId, windowFrom: run.windowFrom, windowTo: run.windowTo };
    const credits = await matching.unlistedCredits(scope, wanted);
    const attempts = credits.length < wanted ? await matching.unlistedAttempts(scope, wanted - credits.length) : [];
    if (credits.length + attempts.length === 0) return { page: NO_ROWS, next: done, lookedUp: true, lookupLimitReached: false };
    if (allowed <= 0) {
      if (config.RECONCILIATION_MAX_LOOKUPS - position.lookups <= 0)
        return { page: NO_ROWS, next: done, lookedUp: true, lookupLimitReached: true };
      return { ...refused(position, { granted: false, runBudgetReached: true }), lookedUp: true };
    }
    const rows: ProviderRow[] = [];
    const askedFrom = new Date();
    let waitMs: number | undefined;
    let unanswered: UnansweredCall | undefined;
    for (const asked of [
      ...credits.map((providerTxnRef) => ({ kind: 'credit' as const, providerTxnRef })),
      ...attempts.map((providerRef) => ({ kind: 'attempt' as const, providerRef })),
    ].slice(0, allowed)) {
      const spent = await spend(run, callsOf(position) + rows.length);
      if (!spent.granted) {
        waitMs = 'waitMs' in spent ? spent.waitMs : undefined;
        break;
      }
      const found = await lookUp(asked);
      if ('unanswered' in found) {
        unanswered = found.unanswered;
        break;
      }
      rows.push(found.answer);
      beat();
    }
    const calls = callsOf(position) + rows.length + (unanswered ? 1 : 0);
    const next = { ...position, lookups: position.lookups + rows.length, calls };
    return {
      page: pageOfRows(rows),
      askedFrom,
      next,
      lookedUp: true,
      lookupLimitReached: false,
      ...(waitMs === undefined ? {} : { waitMs }),
      ...(unanswered ? { unanswered } : {}),
    };
  }

  return {
    first(run: RunScope): ReconciliationPosition {
      return { source: run.tenantId === null ? 'wallet' : 'accounts', accountId: null, cursor: null, lookups: 0 };
    },

    /** The step at `position`; `beat` is called while a long step is still working. */
    async next(run: RunScope, position: ReconciliationPosition, beat: () => void): Promise<RecordsStep> {
      if (position.source === 'wallet') {
        const listing = await listingPage(run, position, { kind: 'wallet' });
        const calls = callsOf(position) + 1;
        if ('unanswered' in listing) return { ...listed(NO_ROWS, { ...position, calls }), unanswered: listing.unanswered };
        const { page, nextCursor } = listing.answer;
        return listed(page, nextCursor ? { ...position, cursor: nextCursor, calls } : lookupsFrom({ ...position, calls }));
      }
      if (position.source === 'accounts') {
        const account = await tenantAccount(run.tenantId!, position.accountId ? { exactly: position.accountId } : null);
        if (!account) return listed(NO_ROWS, lookupsFrom(position));
        const spent = await spend(run, callsOf(position));
        if (!spent.granted) return refused({ ...position, accountId: account.id }, spent);
        const listing = await listingPage(run, position, { kind: 'virtual_account', accountNumber: account.bank_account_number });
        const calls = callsOf(position) + 1;
        if ('unanswered' in listing)
          return { ...listed(NO_ROWS, { ...position, accountId: account.id, calls }), unanswered: listing.unanswered };
        const { page, nextCursor } = listing.answer;
        if (nextCursor) return listed(page, { ...position, accountId: account.id, cursor: nextCursor, calls });
        const following = await tenantAccount(run.tenantId!, { id: account.id });
        return listed(
          page,
          following ? { ...position, accountId: following.id, cursor: null, calls } : lookupsFrom({ ...position, calls }),
        );
      }
      if (position.source === 'lookups') return lookups(run, position, beat);
      return listed(NO_ROWS, position);
    },
  };
}
