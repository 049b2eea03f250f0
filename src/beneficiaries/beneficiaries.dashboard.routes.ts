import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentBeneficiary } from './beneficiary.presenter';
import { BENEFICIARIES_PAGE_SIZE } from './beneficiaries.routes';
import {
  beneficiaryListQuerySchema,
  beneficiaryListSchema,
  beneficiaryParamsSchema,
  beneficiarySchema,
  createBeneficiaryBodySchema,
} from './beneficiaries.schemas';
import type { BeneficiariesService } from './beneficiaries.service';

/** The dashboard's beneficiaries: the same rules as /v1/beneficiaries, each save and delete audited under the user. */
export function beneficiariesDashboardRoutes(deps: { beneficiaries: BeneficiariesService }): RouteDefinition[] {
  const { beneficiaries } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/beneficiaries',
      summary: "The tenant's beneficiaries (as GET /v1/beneficiaries)",
      tag: 'dashboard',
      auth: 'session',
      query: beneficiaryListQuerySchema,
      responses: { 200: { description: 'A page of beneficiaries', schema: beneficiaryListSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? BENEFICIARIES_PAGE_SIZE;
        const page = paginate(await beneficiaries.list(userOf(ctx).tenantId, uuidCursor(query.after), limit + 1), limit, (row) => row.id);
        return { status: 200, body: { beneficiaries: page.items.map(presentBeneficiary), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/beneficiaries',
      summary: 'Save a payout destination under the name the provider gives it (as POST /v1/beneficiaries); audited',
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      body: createBeneficiaryBodySchema,
      responses: {
        201: { description: 'Saved', schema: beneficiarySchema },
        200: { description: 'Already saved: the beneficiary, its name looked up again', schema: beneficiarySchema },
      },
      errors: [400, 404, 429, 502],
      handle: async ({ body, ctx }) => {
        const { beneficiary, created } = await beneficiaries.save(userOf(ctx), body);
        return { status: created ? 201 : 200, body: presentBeneficiary(beneficiary) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/beneficiaries/:id',
      summary: 'Delete a beneficiary (as DELETE /v1/beneficiaries/{id}); audited',
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      params: beneficiaryParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => {
        await beneficiaries.remove(userOf(ctx), params.id);
        return { status: 204 };
      },
    }),
  ];
}
