import type { AuditLog } from '../audit/audit-log';
import { presentAuditEntry } from '../audit/audit.presenter';
import { customerParamsSchema } from '../customers/customers.schemas';
import { presentCustomer } from '../customers/customer.presenter';
import type { CustomersService } from '../customers/customers.service';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { presentAccount } from './account.presenter';
import { customerDetailSchema } from './accounts.dashboard.schemas';
import { virtualAccountSchema } from './accounts.schemas';
import type { AccountsService } from './accounts.service';

const HISTORY_SIZE = 50;

/** A customer's accounts, for the API and the dashboard's customer page: accounts know their customers, not the other way round. */
export function customerAccountsRoutes(deps: {
  customers: CustomersService;
  accounts: AccountsService;
  audit: AuditLog;
}): RouteDefinition[] {
  const { customers, accounts, audit } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/customers/:id/account',
      summary: "The customer's (first) virtual account; use its AccountRef for statement and balance calls",
      tag: 'customers',
      auth: 'apiKey',
      params: customerParamsSchema,
      responses: { 200: { description: 'The account', schema: virtualAccountSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const tenantId = tenantOf(ctx).id;
        const customer = await customers.find(tenantId, params.id);
        return { status: 200, body: presentAccount(await accounts.firstForCustomer(tenantId, customer.id)) };
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
        const [customerAccounts, history] = await Promise.all([
          accounts.forCustomer(tenantId, customer.id),
          audit.list(tenantId, { beforeId: null, limit: HISTORY_SIZE, target: { type: 'customer', id: customer.id } }),
        ]);
        return {
          status: 200,
          body: {
            customer: { ...presentCustomer(customer), KYCReviewReason: customer.kyc_review_reason },
            accounts: customerAccounts.map(presentAccount),
            history: history.map(presentAuditEntry),
          },
        };
      },
    }),
  ];
}
