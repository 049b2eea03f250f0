import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { createAuditLog } from '../audit/audit-log';
import { defineRoute, idempotencyKeyOf, userOf, type RouteDefinition } from '../http/route';
import { requiredIdempotencyKey } from '../idempotency/request-hash';
import { presentInternalTransfer, transferAuditDetail } from './internal-transfer.presenter';
import { paginate } from '../http/pagination';
import {
  internalTransferSchema,
  transferBodySchema,
  transferListQuerySchema,
  transferListResponseSchema,
} from './internal-transfers.schemas';
import type { InternalTransfersService } from './internal-transfers.service';
import { isHeldTransfer } from './transfer-approvals.repo';

const DEFAULT_PAGE_SIZE = 50;

export function internalTransfersDashboardRoutes(deps: { transfers: InternalTransfersService }): RouteDefinition[] {
  const { transfers } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/transfers/internal',
      summary:
        "The tenant's transfers between its accounts, newest first (as GET /v1/transfers/internal, with its metadata[key]=value filter)",
      tag: 'dashboard',
      auth: 'session',
      query: transferListQuerySchema,
      responses: { 200: { description: 'A page of transfers', schema: transferListResponseSchema } },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const limit = query.limit ?? DEFAULT_PAGE_SIZE;
        const rows = await transfers.list(userOf(ctx).tenantId, query.after, limit + 1, query.metadata);
        const page = paginate(rows, limit, (row) => row.id);
        return { status: 200, body: { transfers: page.items.map(presentInternalTransfer), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/accounts/:accountRef/transfers',
      summary:
        "Move money to another of the tenant's accounts (as POST /v1/accounts/{accountRef}/transfers, held for approval above the approval policy's transferAbove); audited with the transfer, once",
      tag: 'dashboard',
      auth: 'session',
      permission: 'move_money',
      params: accountRefParamsSchema,
      body: transferBodySchema,
      idempotencyKey: 'required',
      responses: {
        201: { description: 'The transfer, completed', schema: internalTransferSchema },
        202: { description: 'The transfer, held for approval (awaiting_approval): nothing moved yet', schema: internalTransferSchema },
      },
      errors: [400, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const user = userOf(ctx);
        const key = requiredIdempotencyKey(idempotencyKeyOf(ctx));
        const transfer = await transfers.transfer(
          user.tenantId,
          params.accountRef,
          body,
          key,
          { source: 'dashboard', userId: user.id },
          (trx, made) =>
            createAuditLog(trx).record(
              user,
              isHeldTransfer(made) ? 'transfer.initiated' : 'transfer.made',
              { type: 'transfer', id: made.id },
              transferAuditDetail(made, key),
            ),
        );
        return { status: isHeldTransfer(transfer) ? 202 : 201, body: presentInternalTransfer(transfer) };
      },
    }),
  ];
}
