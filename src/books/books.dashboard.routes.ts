import { paginate, uuidCursor } from '../http/pagination';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { presentBooks, presentTransaction } from './books.presenter';
import { JOURNAL_PAGE_SIZE } from './books.routes';
import { booksBalancesResponseSchema, dashboardJournalQuerySchema, journalResponseSchema } from './books.schemas';
import type { BooksService } from './books.service';

/** The dashboard's Books page: the same reads as /v1/ledger, behind the session. */
export function booksDashboardRoutes(deps: { books: BooksService }): RouteDefinition[] {
  const { books } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/ledger/balances',
      summary: 'The books (as GET /v1/ledger/balances)',
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The balances and their total', schema: booksBalancesResponseSchema } },
      handle: async ({ ctx }) => ({ status: 200, body: presentBooks(await books.balances(userOf(ctx).tenantId)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/ledger/transactions',
      summary: 'The journal (as GET /v1/ledger/transactions), or with `transaction` only that transaction',
      tag: 'dashboard',
      auth: 'session',
      query: dashboardJournalQuerySchema,
      responses: { 200: { description: 'A page of transactions', schema: journalResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? JOURNAL_PAGE_SIZE;
        const transactions = await books.journal(userOf(ctx).tenantId, {
          beforeId: uuidCursor(query.after),
          limit: limit + 1,
          ...(query.transaction !== undefined ? { transactionId: query.transaction } : {}),
        });
        const page = paginate(transactions, limit, (transaction) => transaction.id);
        return { status: 200, body: { transactions: page.items.map(presentTransaction), pagination: page.pagination } };
      },
    }),
  ];
}
