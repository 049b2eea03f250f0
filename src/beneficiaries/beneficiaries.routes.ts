import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentBeneficiary } from './beneficiary.presenter';
import {
  beneficiaryListQuerySchema,
  beneficiaryListSchema,
  beneficiaryParamsSchema,
  beneficiarySchema,
  createBeneficiaryBodySchema,
} from './beneficiaries.schemas';
import type { BeneficiariesService } from './beneficiaries.service';

export const BENEFICIARIES_PAGE_SIZE = 50;

export function beneficiariesRoutes(deps: { beneficiaries: BeneficiariesService }): RouteDefinition[] {
  const { beneficiaries } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/beneficiaries',
      summary:
        "Save a payout destination under the provider's name for it (looked up now); a destination already saved answers 200 with its beneficiary, the name refreshed",
      tag: 'beneficiaries',
      auth: 'apiKey',
      body: createBeneficiaryBodySchema,
      responses: {
        201: { description: 'Saved', schema: beneficiarySchema },
        200: { description: 'Already saved: the beneficiary, its name looked up again', schema: beneficiarySchema },
      },
      errors: [400, 404, 429, 502],
      handle: async ({ body, ctx }) => {
        const { beneficiary, created } = await beneficiaries.save({ tenantId: tenantOf(ctx).id }, body);
        return { status: created ? 201 : 200, body: presentBeneficiary(beneficiary) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/beneficiaries',
      summary: "The tenant's beneficiaries, oldest first (50 a page, limit 1-200, after cursor)",
      tag: 'beneficiaries',
      auth: 'apiKey',
      query: beneficiaryListQuerySchema,
      responses: { 200: { description: 'A page of beneficiaries', schema: beneficiaryListSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? BENEFICIARIES_PAGE_SIZE;
        const page = paginate(await beneficiaries.list(tenantOf(ctx).id, uuidCursor(query.after), limit + 1), limit, (row) => row.id);
        return { status: 200, body: { beneficiaries: page.items.map(presentBeneficiary), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/beneficiaries/:id',
      summary: 'One beneficiary',
      tag: 'beneficiaries',
      auth: 'apiKey',
      params: beneficiaryParamsSchema,
      responses: { 200: { description: 'The beneficiary', schema: beneficiarySchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentBeneficiary(await beneficiaries.find(tenantOf(ctx).id, params.id)),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/beneficiaries/:id',
      summary: 'Delete a beneficiary: no new payout can name it; settlements made to it still show it',
      tag: 'beneficiaries',
      auth: 'apiKey',
      params: beneficiaryParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404, 409],
      handle: async ({ params, ctx }) => {
        await beneficiaries.remove({ tenantId: tenantOf(ctx).id }, params.id);
        return { status: 204 };
      },
    }),
  ];
}
