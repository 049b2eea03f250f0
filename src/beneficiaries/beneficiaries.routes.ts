import type { AppContext } from '../http/context';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentBeneficiary } from './beneficiary.presenter';
import {
  beneficiaryListQuerySchema,
  beneficiaryListSchema,
  beneficiaryMetadataBodySchema,
  beneficiaryParamsSchema,
  beneficiarySchema,
  createBeneficiaryBodySchema,
} from './beneficiaries.schemas';
import type { BeneficiariesService, BeneficiaryActor } from './beneficiaries.service';

const BENEFICIARIES_PAGE_SIZE = 50;

/**
 * The beneficiary routes for an API key (`/v1`) and for a dashboard session (`/auth`): the same rules, each save
 * and delete audited under the caller (a dashboard user by name). On the dashboard, saving and deleting are an
 * operator's (roles are a session's).
 */
function routesAt(
  prefix: '/v1' | '/auth',
  auth: 'apiKey' | 'session',
  actorOf: (ctx: AppContext) => BeneficiaryActor,
  beneficiaries: BeneficiariesService,
): RouteDefinition[] {
  const onApi = auth === 'apiKey';
  const tag = onApi ? 'beneficiaries' : 'dashboard';
  const save = defineRoute({
    method: 'post',
    path: `${prefix}/beneficiaries`,
    summary: onApi
      ? "Save a payout destination under the provider's name for it (looked up now); a destination already saved answers 200 with its beneficiary, the name refreshed"
      : 'Save a payout destination under the name the provider gives it (as POST /v1/beneficiaries); audited',
    tag,
    auth,
    scope: 'beneficiaries:write',
    permission: onApi ? undefined : 'move_money',
    body: createBeneficiaryBodySchema,
    responses: {
      201: { description: 'Saved', schema: beneficiarySchema },
      200: { description: 'Already saved: the beneficiary, its name looked up again', schema: beneficiarySchema },
    },
    errors: [400, 404, 429],
    handle: async ({ body, ctx }) => {
      const { beneficiary, created } = await beneficiaries.save(actorOf(ctx), body);
      return { status: created ? 201 : 200, body: presentBeneficiary(beneficiary) };
    },
  });
  const list = defineRoute({
    method: 'get',
    path: `${prefix}/beneficiaries`,
    summary: onApi
      ? "The tenant's beneficiaries, oldest first (50 a page, limit 1-200, after cursor); with metadata[key]=value, only those carrying every pair given"
      : "The tenant's beneficiaries (as GET /v1/beneficiaries)",
    tag,
    auth,
    query: beneficiaryListQuerySchema,
    responses: { 200: { description: 'A page of beneficiaries', schema: beneficiaryListSchema } },
    errors: [400],
    handle: async ({ query, ctx }) => {
      const limit = query.limit ?? BENEFICIARIES_PAGE_SIZE;
      const rows = await beneficiaries.list(actorOf(ctx).tenantId, uuidCursor(query.after), limit + 1, query.metadata);
      const page = paginate(rows, limit, (row) => row.id);
      return { status: 200, body: { beneficiaries: page.items.map(presentBeneficiary), pagination: page.pagination } };
    },
  });
  // The dashboard lists its beneficiaries and never opens one alone.
  const find = defineRoute({
    method: 'get',
    path: `${prefix}/beneficiaries/:id`,
    summary: 'One beneficiary',
    tag,
    auth,
    params: beneficiaryParamsSchema,
    responses: { 200: { description: 'The beneficiary', schema: beneficiarySchema } },
    errors: [404],
    handle: async ({ params, ctx }) => ({
      status: 200,
      body: presentBeneficiary(await beneficiaries.find(actorOf(ctx).tenantId, params.id)),
    }),
  });
  // Metadata is changed over the API; the dashboard shows it.
  const change = defineRoute({
    method: 'patch',
    path: `${prefix}/beneficiaries/:id`,
    summary: "Change the beneficiary's metadata: each key given is set, a key given null deleted, others kept; audited",
    tag,
    auth,
    scope: 'beneficiaries:write',
    params: beneficiaryParamsSchema,
    body: beneficiaryMetadataBodySchema,
    responses: { 200: { description: 'The beneficiary', schema: beneficiarySchema } },
    errors: [400, 404],
    handle: async ({ params, body, ctx }) => ({
      status: 200,
      body: presentBeneficiary(await beneficiaries.changeMetadata(actorOf(ctx), params.id, body.metadata)),
    }),
  });
  const remove = defineRoute({
    method: 'delete',
    path: `${prefix}/beneficiaries/:id`,
    summary: onApi
      ? 'Delete a beneficiary: no new payout can name it; settlements made to it still show it'
      : 'Delete a beneficiary (as DELETE /v1/beneficiaries/{id}); audited',
    tag,
    auth,
    scope: 'beneficiaries:write',
    permission: onApi ? undefined : 'move_money',
    params: beneficiaryParamsSchema,
    responses: { 204: { description: 'Deleted' } },
    errors: [404, 409],
    handle: async ({ params, ctx }) => {
      await beneficiaries.remove(actorOf(ctx), params.id);
      return { status: 204 };
    },
  });
  return onApi ? [save, list, find, change, remove] : [save, list, remove];
}

export function beneficiariesRoutes(deps: { beneficiaries: BeneficiariesService }): RouteDefinition[] {
  return routesAt('/v1', 'apiKey', (ctx) => ({ tenantId: tenantOf(ctx).id }), deps.beneficiaries);
}

export function beneficiariesDashboardRoutes(deps: { beneficiaries: BeneficiariesService }): RouteDefinition[] {
  return routesAt('/auth', 'session', userOf, deps.beneficiaries);
}
