import { paginate, uuidCursor } from '../http/pagination';
import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { presentBooks, presentTransaction } from './books.presenter';
import { journalQuerySchema, journalResponseSchema, ledgerBalancesQuerySchema, ledgerBalancesResponseSchema } from './books.schemas';
import type { BooksService } from './books.service';
import { formatKobo } from '../money';

export const JOURNAL_PAGE_SIZE = 50;
const CUSTOMER_BALANCES_PAGE_SIZE = 50;

export function booksRoutes(deps: { books: BooksService }): RouteDefinition[] {
  const { books } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/ledger/balances',
      summary:
        "The tenant's books: each system account's balance and the customer accounts' together, summing to zero; with `at`, as they stood at that past instant",
      tag: 'ledger',
      auth: 'apiKey',
      query: ledgerBalancesQuerySchema,
      responses: {
        200: { description: 'The balances and their total, and a page of the customer accounts', schema: ledgerBalancesResponseSchema },
      },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const tenantId = tenantOf(ctx).id;
        const at = query.at === undefined ? undefined : new Date(query.at);
        const limit = query.limit ?? CUSTOMER_BALANCES_PAGE_SIZE;
        const afterId = uuidCursor(query.after);
        const [lines, customers] = await Promise.all([
          at === undefined ? books.balances(tenantId) : books.balancesAt(tenantId, at),
          books.customerBalances(tenantId, at, afterId, limit + 1),
        ]);
        const page = paginate(customers, limit, (account) => account.id);
        return {
          status: 200,
          body: {
            ...presentBooks(lines),
            ...(at === undefined ? {} : { asOf: at.toISOString() }),
            customerAccounts: page.items.map((account) => ({ accountRef: account.accountRef, ledgerBalance: formatKobo(account.balance) })),
            pagination: page.pagination,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/ledger/transactions',
      summary: "The tenant's ledger transactions, newest first, each with its postings",
      tag: 'ledger',
      auth: 'apiKey',
      query: journalQuerySchema,
      responses: { 200: { description: 'A page of transactions', schema: journalResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? JOURNAL_PAGE_SIZE;
        const page = paginate(
          await books.journal(tenantOf(ctx).id, { beforeId: uuidCursor(query.after), limit: limit + 1 }),
          limit,
          (transaction) => transaction.id,
        );
        return { status: 200, body: { transactions: page.items.map(presentTransaction), pagination: page.pagination } };
      },
    }),
  ];
}
