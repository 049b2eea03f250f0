import { presentAccount } from '../accounts/account.presenter';
import type { AuditLog } from '../audit/audit-log';
import { presentAuditEntry } from '../audit/audit.presenter';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentCustomer } from './customer.presenter';
import { customerDetailSchema, customerSearchQuerySchema, customerSearchResponseSchema } from './customers.dashboard.schemas';
import { customerParamsSchema } from './customers.schemas';
import type { CustomersService } from './customers.service';

const PAGE_SIZE = 20;
const HISTORY_SIZE = 50;

/** The dashboard's customer pages (the operator actions themselves are the /auth routes in customers.routes). */
export function customersDashboardRoutes(deps: { customers: CustomersService; audit: AuditLog }): RouteDefinition[] {
  const { customers, audit } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/customers',
      summary: 'Search the tenant\'s customers by externalRef or id (exact) or name (any part), by KYC status and status',
      tag: 'dashboard',
      auth: 'session',
      query: customerSearchQuerySchema,
      responses: { 200: { description: 'A page of customers, oldest first', schema: customerSearchResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const search = { text: query.q ? query.q : null, kycStatus: query.kycStatus ?? null, status: query.status ?? null };
        const page = paginate(await customers.search(userOf(ctx).tenantId, search, uuidCursor(query.after), PAGE_SIZE), PAGE_SIZE, (customer) => customer.id);
        return { status: 200, body: { customers: page.items.map(presentCustomer), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/customers/:id',
      summary: 'One customer with its accounts and the operator actions taken on it',
      tag: 'dashboard',
      auth: 'session',
      params: customerParamsSchema,
      responses: { 200: { description: 'The customer', schema: customerDetailSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const tenantId = userOf(ctx).tenantId;
        const customer = await customers.find(tenantId, params.id);
        const [accounts, history] = await Promise.all([
          customers.accounts(tenantId, customer.id),
          audit.list(tenantId, { beforeId: null, limit: HISTORY_SIZE, target: { type: 'customer', id: customer.id } }),
        ]);
        return {
          status: 200,
          body: {
            customer: { ...presentCustomer(customer), KYCReviewReason: customer.kyc_review_reason },
            accounts: accounts.map(presentAccount),
            history: history.map(presentAuditEntry),
          },
        };
      },
    }),
  ];
}
