import { presentAccount } from './account.presenter';
import { accountRefParamsSchema } from './accounts.schemas';
import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import { presentEntry } from './entry.presenter';
import { statementQuerySchema, statementResponseSchema } from './statement.schemas';
import type { StatementService } from './statement.service';

const DEFAULT_PAGE_SIZE = 50;

export function statementRoutes(deps: { statements: StatementService }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/accounts/:accountRef/statement',
      summary: 'Ledger statement, oldest first, with running balances and whole-history (or period) aggregates',
      tag: 'ledger',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      query: statementQuerySchema,
      responses: { 200: { description: 'A statement page', schema: statementResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const limit = query.limit ?? DEFAULT_PAGE_SIZE;
        const statement = await deps.statements.statement(tenantOf(ctx).id, params.accountRef, {
          limit,
          ...(query.after !== undefined ? { after: query.after } : {}),
          ...(query.from ? { from: new Date(query.from) } : {}),
          ...(query.to ? { to: new Date(query.to) } : {}),
        });
        const last = statement.lines[statement.lines.length - 1];
        return {
          status: 200,
          body: {
            virtualAccount: presentAccount(statement.account),
            lines: statement.lines.map((entry) => ({ entry: presentEntry(entry), runningBalance: formatKobo(entry.balanceAfter) })),
            openingBalance: formatKobo(statement.openingBalance),
            totalCredits: formatKobo(statement.totalCredits),
            totalDebits: formatKobo(statement.totalDebits),
            closingBalance: formatKobo(statement.closingBalance),
            pagination: { limit, nextCursor: statement.hasMore && last ? last.id : null, hasMore: statement.hasMore },
          },
        };
      },
    }),
  ];
}
