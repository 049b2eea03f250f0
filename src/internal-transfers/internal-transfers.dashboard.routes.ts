import { accountRefParamsSchema } from '../accounts/accounts.schemas';
import { createAuditLog } from '../audit/audit-log';
import { defineRoute, idempotencyKeyOf, userOf, type RouteDefinition } from '../http/route';
import { requiredIdempotencyKey } from '../idempotency/request-hash';
import { presentInternalTransfer, transferAuditDetail } from './internal-transfer.presenter';
import { internalTransferSchema, transferBodySchema } from './internal-transfers.schemas';
import type { InternalTransfersService } from './internal-transfers.service';
import { isHeldTransfer } from './transfer-approvals.repo';

export function internalTransfersDashboardRoutes(deps: { transfers: InternalTransfersService }): RouteDefinition[] {
  const { transfers } = deps;
  return [
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
