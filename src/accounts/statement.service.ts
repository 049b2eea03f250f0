import { accountFromPrefixed, prefixedAccountColumns, type AccountRecord } from './accounts.repo';
import type { AccountsService } from './accounts.service';
import type { Db } from '../db';
import { BadRequestError, NotFoundError } from '../errors';
import { invalidCursor } from '../http/pagination';
import { isUuid } from '../ids';
import type { AccountFunds } from '../ledger/ledger-reads';
import type { Kobo } from '../money';
import { createStatementRepo, type RunningColumns, type StatementEntry } from '../ledger/statement.repo';

interface StatementQuery {
  after?: string;
  limit: number;
  from?: Date;
  to?: Date;
}

export interface Statement {
  account: AccountRecord;
  lines: StatementEntry[];
  openingBalance: Kobo;
  totalCredits: Kobo;
  totalDebits: Kobo;
  closingBalance: Kobo;
  /** The account's money now (its reserved money by kind), beside the page. */
  funds: AccountFunds;
  hasMore: boolean;
}

/** A statement before the account's money now is read beside it. */
type Page = Omit<Statement, 'funds'>;

interface Period {
  openingBalance: Kobo;
  totalCredits: Kobo;
  totalDebits: Kobo;
  closingBalance: Kobo;
  afterSeq: bigint;
  /** The last entry the aggregates count: the page never reads past it, so lines and totals agree. */
  throughSeq: bigint;
}

/**
 * Statements come from the to-date columns stored on each entry at posting time, so a page and its
 * aggregates cost the same whether the account has a hundred entries or ten million. The totals and
 * the `last_seq` they count up to are read together from the account row (one snapshot of a row the
 * posting engine moves atomically), and the page is bounded by that seq: entries posted meanwhile
 * wait for the next request, so the last running balance of the last page is the closing balance.
 */
export function createStatementService(deps: { db: Db; accounts: AccountsService }) {
  const repo = createStatementRepo(deps.db, { select: prefixedAccountColumns, read: accountFromPrefixed });

  /**
   * The account's running columns before `at`; a period starting or ending among the account's archived entries is
   * refused (400 period_archived): their running balances are no longer read (see docs/scaling.md#archived-months).
   */
  async function runningBefore(account: AccountRecord, at: Date): Promise<RunningColumns | undefined> {
    const running = await repo.runningBefore(account.id, at);
    if (running && 'archived' in running) {
      throw new BadRequestError(
        'period_archived',
        `the account's entries up to ${running.archived.toISOString()} are archived: a period must start and end after that`,
        { archivedThrough: running.archived.toISOString() },
      );
    }
    return running;
  }

  /** The period of the whole history: from where the account's entries still attached begin, to now. */
  function wholePeriod(account: AccountRecord, archived: RunningColumns | undefined): Period {
    return {
      openingBalance: archived?.balanceAfter ?? 0n,
      totalCredits: account.totalCredits - (archived?.creditsToDate ?? 0n),
      totalDebits: account.totalDebits - (archived?.debitsToDate ?? 0n),
      closingBalance: account.ledgerBalance,
      afterSeq: archived?.seq ?? 0n,
      throughSeq: account.lastSeq,
    };
  }

  async function periodOf(account: AccountRecord, from: Date | undefined, to: Date | undefined): Promise<Period> {
    // A period without a start begins where the account's entries still attached begin.
    const before = from ? await runningBefore(account, from) : await repo.archived(account.id);
    const end = to ? await runningBefore(account, to) : undefined;
    const opening = {
      balance: before?.balanceAfter ?? 0n,
      credits: before?.creditsToDate ?? 0n,
      debits: before?.debitsToDate ?? 0n,
      seq: before?.seq ?? 0n,
    };
    const closing = to
      ? end && end.seq > opening.seq
        ? { balance: end.balanceAfter, credits: end.creditsToDate, debits: end.debitsToDate, seq: end.seq }
        : opening
      : { balance: account.ledgerBalance, credits: account.totalCredits, debits: account.totalDebits, seq: account.lastSeq };
    return {
      openingBalance: opening.balance,
      totalCredits: closing.credits - opening.credits,
      totalDebits: closing.debits - opening.debits,
      closingBalance: closing.balance,
      afterSeq: opening.seq,
      throughSeq: closing.seq,
    };
  }

  /** A statement from up to `limit + 1` rows read: the extra one only says there is more. */
  function paged(account: AccountRecord, period: Period, rows: StatementEntry[], limit: number): Page {
    const hasMore = rows.length > limit;
    return {
      account,
      lines: hasMore ? rows.slice(0, limit) : rows,
      openingBalance: period.openingBalance,
      totalCredits: period.totalCredits,
      totalDebits: period.totalDebits,
      closingBalance: period.closingBalance,
      hasMore,
    };
  }

  /** The common case, a page of the whole history: account, cursor and page in one statement. */
  async function wholeHistory(tenantId: string, accountRef: string, query: StatementQuery): Promise<Page> {
    if (query.after !== undefined && !isUuid(query.after)) throw invalidCursor();
    const page = await repo.accountPage(tenantId, accountRef, query.after?.toLowerCase(), query.limit + 1);
    if (!page) throw new NotFoundError('account not found');
    if (page.cursorSeq === null) throw invalidCursor();
    return paged(page.account, wholePeriod(page.account, page.archived), page.rows, query.limit);
  }

  /** A page of the account's statement, the whole history or a period. */
  async function statementPage(tenantId: string, accountRef: string, query: StatementQuery): Promise<Page> {
    if (query.from && query.to && query.from > query.to) throw new BadRequestError('invalid_period', 'from must not be after to');
    if (!query.from && !query.to) return wholeHistory(tenantId, accountRef, query);
    const account = await deps.accounts.find(tenantId, accountRef);
    const period = await periodOf(account, query.from, query.to);
    let afterSeq = period.afterSeq;
    if (query.after !== undefined) {
      const cursorSeq = isUuid(query.after) ? await repo.entrySeqInAccount(account.id, query.after.toLowerCase()) : undefined;
      if (cursorSeq === undefined) throw invalidCursor();
      if (cursorSeq > afterSeq) afterSeq = cursorSeq;
    }
    return paged(
      account,
      period,
      await repo.page(account.id, afterSeq, period.throughSeq, query.limit + 1, { from: query.from, to: query.to }),
      query.limit,
    );
  }

  return {
    /** A statement page with the account's reserved money as it is now. */
    async statement(tenantId: string, accountRef: string, query: StatementQuery): Promise<Statement> {
      const page = await statementPage(tenantId, accountRef, query);
      const funds = (await deps.accounts.fundsOf([page.account.id])).get(page.account.id)!;
      return { ...page, funds };
    },
  };
}

export type StatementService = ReturnType<typeof createStatementService>;
