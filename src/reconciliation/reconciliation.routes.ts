import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentDay, presentException, presentRun } from './reconciliation.presenter';
import {
  dashboardRunDetailResponseSchema,
  decisionBodySchema,
  exceptionDetailResponseSchema,
  exceptionListQuerySchema,
  exceptionListResponseSchema,
  exceptionParamsSchema,
  exceptionResponseSchema,
  runAcceptedResponseSchema,
  runDetailQuerySchema,
  runDetailResponseSchema,
  runListQuerySchema,
  runListResponseSchema,
  runParamsSchema,
  runRequestBodySchema,
} from './reconciliation.schemas';
import type { ReconciliationService } from './reconciliation.service';

const PAGE_SIZE = 50;
/** The runs shown with one finding: the latest that met it (a finding open for weeks is met every hour). */
const RUNS_OF_A_FINDING = 20;

export function reconciliationRoutes(deps: { reconciliation: ReconciliationService }): RouteDefinition[] {
  const { reconciliation } = deps;

  const listRuns = async (tenantId: string, after: string | undefined) => {
    const page = paginate(await reconciliation.listRuns(tenantId, uuidCursor(after), PAGE_SIZE + 1), PAGE_SIZE, (run) => run.id);
    return { status: 200, body: { runs: page.items.map(presentRun), pagination: page.pagination } };
  };

  const runDetail = async (tenantId: string, id: string, after: string | undefined) => {
    const detail = await reconciliation.runDetail(tenantId, id, uuidCursor(after), PAGE_SIZE);
    const page = paginate(detail.exceptions, PAGE_SIZE, (finding) => finding.id);
    return {
      run: detail.run,
      body: {
        run: presentRun(detail.run),
        exceptions: page.items.map(presentException),
        pagination: page.pagination,
        dayTotalDifferences: detail.days.map(presentDay),
      },
    };
  };

  const accepted = { 202: { description: 'The run, pending until the worker takes it', schema: runAcceptedResponseSchema } };

  return [
    defineRoute({
      method: 'get',
      path: '/v1/reconciliation/runs',
      summary: "Reconciliation runs over the tenant's accounts (its own and its share of the scheduled ones), newest first",
      tag: 'reconciliation',
      auth: 'apiKey',
      query: runListQuerySchema,
      responses: { 200: { description: 'Newest first', schema: runListResponseSchema } },
      errors: [400],
      handle: ({ query, ctx }) => listRuns(tenantOf(ctx).id, query.after),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reconciliation/runs',
      summary:
        "Reconcile the tenant's accounts against the provider now, over {from, to} (default: the look-back window); one at a time, rate-limited",
      tag: 'reconciliation',
      auth: 'apiKey',
      scope: 'reconciliation:write',
      body: runRequestBodySchema,
      responses: accepted,
      errors: [400, 409, 429],
      handle: async ({ body, ctx }) => ({
        status: 202,
        body: { run: presentRun(await reconciliation.requestTenantRun(tenantOf(ctx).id, body ?? {})) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/reconciliation/runs/:id',
      summary: 'A run: its window and counts, what it found (50 a page, `after` cursor) and the days whose totals differ',
      tag: 'reconciliation',
      auth: 'apiKey',
      params: runParamsSchema,
      query: runDetailQuerySchema,
      responses: { 200: { description: 'The run', schema: runDetailResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => ({ status: 200, body: (await runDetail(tenantOf(ctx).id, params.id, query.after)).body }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/reconciliation/runs',
      summary: "The operator's tenant's reconciliation runs, newest first",
      tag: 'reconciliation',
      auth: 'session',
      query: runListQuerySchema,
      responses: { 200: { description: 'Newest first', schema: runListResponseSchema } },
      errors: [400, 403],
      handle: ({ query, ctx }) => listRuns(userOf(ctx).tenantId, query.after),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/reconciliation/runs',
      summary: "Reconcile the tenant's accounts now (same rules as the API's runs; audited)",
      tag: 'reconciliation',
      auth: 'session',
      permission: 'operate',
      body: runRequestBodySchema,
      responses: accepted,
      errors: [400, 403, 409, 429],
      handle: async ({ body, ctx }) => ({
        status: 202,
        body: { run: presentRun(await reconciliation.requestTenantRun(userOf(ctx).tenantId, body ?? {}, userOf(ctx))) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/reconciliation/runs/:id',
      summary: "A run with its findings and differing days, and a link to the run's workflow in the Temporal UI",
      tag: 'reconciliation',
      auth: 'session',
      params: runParamsSchema,
      query: runDetailQuerySchema,
      responses: { 200: { description: 'The run', schema: dashboardRunDetailResponseSchema } },
      errors: [400, 403, 404],
      handle: async ({ params, query, ctx }) => {
        const { run, body } = await runDetail(userOf(ctx).tenantId, params.id, query.after);
        return { status: 200, body: { ...body, workflow: run.workflowId ? { workflowId: run.workflowId } : null } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/reconciliation/exceptions',
      summary: "The tenant's reconciliation findings, newest first; `status` (open, repaired, resolved) and `kind` filter",
      tag: 'reconciliation',
      auth: 'session',
      query: exceptionListQuerySchema,
      responses: { 200: { description: 'Newest first', schema: exceptionListResponseSchema } },
      errors: [400, 403],
      handle: async ({ query, ctx }) => {
        const filter = { status: query.status, kind: query.kind };
        const page = paginate(
          await reconciliation.listExceptions(userOf(ctx).tenantId, filter, uuidCursor(query.after), PAGE_SIZE + 1),
          PAGE_SIZE,
          (finding) => finding.id,
        );
        return { status: 200, body: { exceptions: page.items.map(presentException), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/reconciliation/exceptions/:id',
      summary: "One finding, with the tenant's latest runs that met it",
      tag: 'reconciliation',
      auth: 'session',
      params: exceptionParamsSchema,
      responses: { 200: { description: 'The finding', schema: exceptionDetailResponseSchema } },
      errors: [403, 404],
      handle: async ({ params, ctx }) => {
        const { finding, runs } = await reconciliation.exceptionDetail(userOf(ctx).tenantId, params.id, RUNS_OF_A_FINDING);
        return { status: 200, body: { exception: presentException(finding), runs: runs.map(presentRun) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/reconciliation/exceptions/:id/resolve',
      summary:
        "Close an open finding with a note (audited: who and when are kept); a finding where money left the platform's float without a debit is the platform operator's (403)",
      tag: 'reconciliation',
      auth: 'session',
      permission: 'operate',
      params: exceptionParamsSchema,
      body: decisionBodySchema,
      responses: { 200: { description: 'The finding, resolved', schema: exceptionResponseSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const user = userOf(ctx);
        const finding = await reconciliation.resolve({ via: 'dashboard', user }, params.id, body.note);
        return { status: 200, body: { exception: presentException(finding) } };
      },
    }),
  ];
}
