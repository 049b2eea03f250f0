import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentCustomer } from './customer.presenter';
import { customerSearchQuerySchema, customerSearchResponseSchema } from './customers.dashboard.schemas';
import type { CustomersService } from './customers.service';

const PAGE_SIZE = 20;

/** The dashboard's customer pages (the operator actions themselves are the /auth routes in customers.routes). */
export function customersDashboardRoutes(deps: { customers: CustomersService }): RouteDefinition[] {
  const { customers } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/customers',
      summary: "Search the tenant's customers by externalRef or id (exact) or name (any part), by KYC status and status",
      tag: 'dashboard',
      auth: 'session',
      query: customerSearchQuerySchema,
      responses: { 200: { description: 'A page of customers, oldest first', schema: customerSearchResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const search = { text: query.q ? query.q : null, kycStatus: query.kycStatus ?? null, status: query.status ?? null };
        const page = paginate(
          await customers.search(userOf(ctx).tenantId, search, uuidCursor(query.after), PAGE_SIZE),
          PAGE_SIZE,
          (customer) => customer.id,
        );
        return { status: 200, body: { customers: page.items.map(presentCustomer), pagination: page.pagination } };
      },
    }),
  ];
}
