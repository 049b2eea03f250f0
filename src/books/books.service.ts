import { BadRequestError } from '../errors';
import type { Db } from '../db';
import { createLedgerArchiveRepo } from '../ledger/ledger-archive.repo';
import { createLedgerBooksRepo, type BooksLine, type CustomerBalance, type JournalTransaction } from '../ledger/ledger-books.repo';
import type { Kobo } from '../money';

type LineType = 'system' | 'customers';

/** The chart of accounts as people read it: what each line of the books holds. */
const ACCOUNTS: Record<BooksLine['code'], { name: string; type: LineType }> = {
  clearing: { name: 'Clearing (money at the provider)', type: 'system' },
  provider_fees: { name: 'Provider fees (kept from payments)', type: 'system' },
  payouts_in_transit: { name: 'Payouts in transit', type: 'system' },
  costs: { name: 'Costs (payout fees)', type: 'system' },
  customers: { name: 'Customer accounts', type: 'customers' },
};

export interface Books {
  accounts: Array<BooksLine & { name: string; type: LineType }>;
  /** Zero whenever every transaction is balanced: shown, not assumed. */
  total: Kobo;
}

interface JournalQuery {
  /** The page's transactions come before this one (exclusive), newest first. */
  beforeId: string | null;
  limit: number;
  /** Only this transaction (none when it is not the tenant's). */
  transactionId?: string;
}

function booksOf(lines: BooksLine[]): Books {
  return {
    accounts: lines.map((line) => ({ ...line, ...ACCOUNTS[line.code] })),
    total: lines.reduce((sum, line) => sum + line.balance, 0n),
  };
}

/** The tenant's books, read-only: balances by account and the journal of balanced transactions. */
export function createBooksService(deps: { db: Db }) {
  const repo = createLedgerBooksRepo(deps.db);
  const archive = createLedgerArchiveRepo(deps.db);

  /** Refuses an instant within the tenant's archive (400 period_archived): its balances then are no longer read. */
  async function refuseArchived(tenantId: string, at: Date): Promise<void> {
    const end = await archive.archiveEnd(tenantId);
    if (end && at < end) {
      const through = new Date(end.getTime() - 1);
      throw new BadRequestError('period_archived', `the books up to ${through.toISOString()} are archived: ask for a time after that`, {
        archivedThrough: through.toISOString(),
      });
    }
  }

  return {
    async balances(tenantId: string): Promise<Books> {
      return booksOf(await repo.balances(tenantId));
    },

    /** The books as they stood at a past instant. */
    async balancesAt(tenantId: string, at: Date): Promise<Books> {
      await refuseArchived(tenantId, at);
      return booksOf(await repo.balancesAt(tenantId, at));
    },

    /** A page of the customer accounts' balances (now, or at a past instant `at`): `limit` of them after `afterId`. */
    async customerBalances(tenantId: string, at: Date | undefined, afterId: string | null, limit: number): Promise<CustomerBalance[]> {
      if (at !== undefined) await refuseArchived(tenantId, at);
      return repo.customerBalances(tenantId, at, afterId, limit);
    },

    async journal(tenantId: string, query: JournalQuery): Promise<JournalTransaction[]> {
      if (query.transactionId === undefined) return repo.journal(tenantId, query.beforeId, query.limit);
      const transaction = await repo.transaction(tenantId, query.transactionId.toLowerCase());
      return transaction ? [transaction] : [];
    },
  };
}

export type BooksService = ReturnType<typeof createBooksService>;
