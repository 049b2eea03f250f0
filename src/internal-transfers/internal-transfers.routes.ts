import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { defineRoute, idempotencyKeyOf, tenantOf, type RouteDefinition } from '../http/route';
import { paginate } from '../http/pagination';
import { requiredIdempotencyKey } from '../idempotency/request-hash';
import { API_KEY_ACTOR, createAuditLog } from '../audit/audit-log';
import { presentInternalTransfer, transferAuditDetail } from './internal-transfer.presenter';
import {
  internalTransferParamsSchema,
  internalTransferSchema,
  transferBodySchema,
  transferListQuerySchema,
  transferListResponseSchema,
} from './internal-transfers.schemas';
import type { InternalTransfersService } from './internal-transfers.service';
import { isHeldTransfer } from './transfer-approvals.repo';

const DEFAULT_PAGE_SIZE = 50;

/** Registered before the settlements' GET /v1/transfers/:merchantTxRef, so "internal" is never read as a reference. */
export function internalTransfersRoutes(deps: { transfers: InternalTransfersService }): RouteDefinition[] {
  const { transfers } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/accounts/:accountRef/transfers',
      summary:
        "Move money from the account to another of the tenant's accounts, at once (one ledger transaction), or held for approval above the approval policy's transferAbove (202 awaiting_approval, its amount reserved); audited as the API key, once",
      tag: 'transfers',
      auth: 'apiKey',
      scope: 'transfers:write',
      params: accountRefParamsSchema,
      body: transferBodySchema,
      idempotencyKey: 'required',
      responses: {
        201: { description: 'The transfer, completed (a retry under the same key answers the first)', schema: internalTransferSchema },
        202: { description: 'The transfer, held for approval (awaiting_approval): nothing moved yet', schema: internalTransferSchema },
      },
      errors: [400, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const key = requiredIdempotencyKey(idempotencyKeyOf(ctx));
        const tenantId = tenantOf(ctx).id;
        const transfer = await transfers.transfer(tenantId, params.accountRef, body, key, { source: 'api' }, (trx, made) =>
          createAuditLog(trx).recordAs(
            tenantId,
            API_KEY_ACTOR,
            isHeldTransfer(made) ? 'transfer.initiated' : 'transfer.made',
            { type: 'transfer', id: made.id },
            transferAuditDetail(made, key),
          ),
        );
        return { status: isHeldTransfer(transfer) ? 202 : 201, body: presentInternalTransfer(transfer) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/accounts/:accountRef/transfers',
      summary:
        "The account's transfers to and from the tenant's other accounts, newest first; with metadata[key]=value, only those carrying every pair given",
      tag: 'transfers',
      auth: 'apiKey',
      params: accountRefParamsSchema,
      query: transferListQuerySchema,
      responses: { 200: { description: 'A page of transfers', schema: transferListResponseSchema } },
      errors: [400, 404],
      handle: async ({ params, query, ctx }) => {
        const limit = query.limit ?? DEFAULT_PAGE_SIZE;
        const rows = await transfers.listOfAccount(tenantOf(ctx).id, params.accountRef, query.after, limit + 1, query.metadata);
        const page = paginate(rows, limit, (row) => row.id);
        return { status: 200, body: { transfers: page.items.map(presentInternalTransfer), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/transfers/internal',
      summary:
        "The tenant's transfers between its accounts, newest first; with metadata[key]=value, only those carrying every pair given (held ones not included)",
      tag: 'transfers',
      auth: 'apiKey',
      query: transferListQuerySchema,
      responses: { 200: { description: 'A page of transfers', schema: transferListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? DEFAULT_PAGE_SIZE;
        const rows = await transfers.list(tenantOf(ctx).id, query.after, limit + 1, query.metadata);
        const page = paginate(rows, limit, (row) => row.id);
        return { status: 200, body: { transfers: page.items.map(presentInternalTransfer), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/transfers/internal/:id',
      summary: "One transfer between the tenant's accounts",
      tag: 'transfers',
      auth: 'apiKey',
      params: internalTransferParamsSchema,
      responses: { 200: { description: 'The transfer', schema: internalTransferSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({
        status: 200,
        body: presentInternalTransfer(await transfers.find(tenantOf(ctx).id, params.id)),
      }),
    }),
  ];
}
