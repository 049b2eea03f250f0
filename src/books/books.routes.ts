import { paginate, uuidCursor } from '../http/pagination';
import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { presentBooks, presentTransaction } from './books.presenter';
import { booksBalancesResponseSchema, journalQuerySchema, journalResponseSchema } from './books.schemas';
import type { BooksService } from './books.service';
import { atQuerySchema } from '../http/schemas';

export const JOURNAL_PAGE_SIZE = 50;

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
      query: atQuerySchema,
      responses: { 200: { description: 'The balances and their total', schema: booksBalancesResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        if (query.at === undefined) return { status: 200, body: presentBooks(await books.balances(tenantOf(ctx).id)) };
        const at = new Date(query.at);
        return { status: 200, body: { ...presentBooks(await books.balancesAt(tenantOf(ctx).id, at)), asOf: at.toISOString() } };
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
