import type { AuthenticatedUser } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentCustomer } from './customer.presenter';
import type { CustomerRecord } from './customers.repo';
import {
  customerListQuerySchema,
  customerListResponseSchema,
  customerParamsSchema,
  customerSchema,
  kycReviewsResponseSchema,
  kycSubmissionBodySchema,
  kycSubmissionResponseSchema,
  renameCustomerBodySchema,
  tier3BodySchema,
} from './customers.schemas';
import type { CustomersService } from './customers.service';
import type { KycService } from './kyc.service';

const PAGE_SIZE = 20;
const REVIEW_QUEUE_SIZE = 100;

export function customersRoutes(deps: { customers: CustomersService; kyc: KycService }): RouteDefinition[] {
  const { customers, kyc } = deps;
  const operatorRoute = (
    path: string,
    summary: string,
    errors: number[],
    act: (user: AuthenticatedUser, id: string) => Promise<CustomerRecord>,
  ) =>
    defineRoute({
      method: 'post',
      path,
      summary,
      tag: 'customers',
      auth: 'session',
      permission: 'operate',
      params: customerParamsSchema,
      responses: { 200: { description: 'The updated customer', schema: customerSchema } },
      errors: [403, ...errors],
      handle: async ({ params, ctx }) => ({ status: 200, body: presentCustomer(await act(userOf(ctx), params.id)) }),
    });

  return [
    defineRoute({
      method: 'get',
      path: '/v1/customers',
      summary: "List the tenant's customers",
      tag: 'customers',
      auth: 'apiKey',
      query: customerListQuerySchema,
      responses: { 200: { description: 'A page of customers, oldest first', schema: customerListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const page = paginate(
          await customers.list(tenantOf(ctx).id, uuidCursor(query.after), PAGE_SIZE),
          PAGE_SIZE,
          (customer) => customer.id,
        );
        return { status: 200, body: { customers: page.items.map(presentCustomer), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/customers/:id',
      summary: 'One customer',
      tag: 'customers',
      auth: 'apiKey',
      params: customerParamsSchema,
      responses: { 200: { description: 'The customer', schema: customerSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: presentCustomer(await customers.find(tenantOf(ctx).id, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/customers/:id',
      summary:
        "Change a customer's display name; refused (409) once KYC verified the name (tier 2 or above) or while a submission awaits review; audited",
      tag: 'customers',
      auth: 'apiKey',
      scope: 'customers:write',
      params: customerParamsSchema,
      body: renameCustomerBodySchema,
      responses: { 200: { description: 'The updated customer', schema: customerSchema } },
      errors: [400, 404, 409],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentCustomer(await customers.rename(tenantOf(ctx).id, params.id, body.name)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/customers/:id/kyc',
      summary: 'Submit a NIN for tier 2: approved at once when verified, otherwise pending an operator review',
      tag: 'customers',
      auth: 'apiKey',
      scope: 'customers:write',
      params: customerParamsSchema,
      body: kycSubmissionBodySchema,
      responses: { 200: { description: 'The KYC state after the submission', schema: kycSubmissionResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => {
        const customer = await kyc.submit(tenantOf(ctx).id, params.id, body.nin);
        return {
          status: 200,
          body: { ID: customer.id, KYCTier: customer.kyc_tier, KYCStatus: customer.kyc_status, NINLast4: customer.nin_last4 },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/kyc-reviews',
      summary: 'KYC submissions awaiting an operator decision, oldest first, with the reason',
      tag: 'customers',
      auth: 'session',
      responses: { 200: { description: 'The review queue', schema: kycReviewsResponseSchema } },
      errors: [403],
      handle: async ({ ctx }) => {
        const rows = await kyc.reviews(userOf(ctx).tenantId, REVIEW_QUEUE_SIZE);
        const reviews = rows
          .slice(0, REVIEW_QUEUE_SIZE)
          .map((customer) => ({ ...presentCustomer(customer), KYCReviewReason: customer.kyc_review_reason }));
        return { status: 200, body: { reviews, hasMore: rows.length > REVIEW_QUEUE_SIZE } };
      },
    }),
    operatorRoute('/auth/customers/:id/kyc/approve', 'Approve a pending KYC submission (tier 2)', [404, 409], kyc.approve),
    defineRoute({
      method: 'post',
      path: '/auth/customers/:id/kyc/tier3',
      summary: 'Record tier 3 with its evidence (an operator decision, never self-service); releases held money the tier-3 limits allow',
      tag: 'customers',
      auth: 'session',
      permission: 'operate',
      params: customerParamsSchema,
      body: tier3BodySchema,
      responses: { 200: { description: 'The updated customer', schema: customerSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: presentCustomer(await kyc.recordTier3(userOf(ctx), params.id, body)),
      }),
    }),
    operatorRoute('/auth/customers/:id/kyc/reject', 'Reject a pending KYC submission (the customer may resubmit)', [404, 409], kyc.reject),
    operatorRoute(
      '/auth/customers/:id/suspend',
      'Suspend a customer: its accounts cannot settle; payments are still recorded',
      [404],
      customers.suspend,
    ),
    operatorRoute('/auth/customers/:id/reactivate', 'Reactivate a suspended customer', [404], customers.reactivate),
  ];
}
