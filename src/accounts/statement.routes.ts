import { accountRefParamsSchema } from './accounts.schemas';
import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { statementQuerySchema, statementResponseSchema } from './statement.schemas';
import { presentStatement } from './statement.presenter';
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
        return { status: 200, body: presentStatement(statement, limit) };
      },
    }),
  ];
}
