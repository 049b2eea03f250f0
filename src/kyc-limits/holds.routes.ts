import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import {
  holdParamsSchema,
  holdReleaseBodySchema,
  holdReleaseResponseSchema,
  holdReturnBodySchema,
  holdReturnLookupBodySchema,
  holdReturnLookupResponseSchema,
  holdReturnResponseSchema,
  holdsQueueResponseSchema,
} from './holds.schemas';
import type { ReturnDestination } from './holds.service';
import type { HoldsService } from './holds.service';

const QUEUE_SIZE = 100;

const presentDestination = (destination: ReturnDestination) => ({
  entryId: destination.held.entryId,
  accountRef: destination.held.accountRef,
  payerName: destination.payerName,
  bankCode: destination.bankCode,
  accountNumber: destination.accountNumber,
  accountName: destination.accountName,
});

/** The operators' queue of money held over KYC limits, and the release decision. */
export function holdsRoutes(deps: { holds: HoldsService }): RouteDefinition[] {
  const { holds } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/auth/holds',
      summary: 'Credits with money held over the customer’s KYC limits, oldest first: who, how much, since when, which limit',
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'The queue', schema: holdsQueueResponseSchema } },
      handle: async ({ ctx }) => {
        const { tenantId } = userOf(ctx);
        const [rows, total] = await Promise.all([holds.queue(tenantId, QUEUE_SIZE + 1), holds.totalHeld(tenantId)]);
        return {
          status: 200,
          body: {
            holds: rows.slice(0, QUEUE_SIZE).map((row) => ({
              entryId: row.entryId,
              accountRef: row.accountRef,
              customerId: row.customerId,
              customerName: row.customerName,
              tier: row.tier,
              held: formatKobo(row.held),
              creditAmount: formatKobo(row.creditAmount),
              senderName: row.senderName,
              limit: row.limitKind,
              limitAmount: formatKobo(row.limitAmount),
              reason: row.note,
              since: row.since.toISOString(),
            })),
            totalHeld: formatKobo(total),
            hasMore: rows.length > QUEUE_SIZE,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/holds/:entryId/release',
      summary: 'Release what is held of a credit, with the reason (audited): the customer may then spend it',
      tag: 'dashboard',
      auth: 'session',
      permission: 'operate',
      params: holdParamsSchema,
      body: holdReleaseBodySchema,
      responses: { 200: { description: 'What was released', schema: holdReleaseResponseSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const { held, released } = await holds.release(userOf(ctx), params.entryId, body.note);
        return { status: 200, body: { entryId: held.entryId, accountRef: held.accountRef, released: formatKobo(released) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/holds/:entryId/return/lookup',
      summary:
        'Where a return to sender would go: the payer’s account, the provider’s name for it now, and whether that is the payer’s name',
      tag: 'dashboard',
      auth: 'session',
      permission: 'operate',
      params: holdParamsSchema,
      body: holdReturnLookupBodySchema,
      responses: { 200: { description: 'The payer’s account as the provider names it', schema: holdReturnLookupResponseSchema } },
      errors: [400, 403, 404, 409, 422, 429],
      handle: async ({ params, body, ctx }) => {
        const destination = await holds.returnDestination(userOf(ctx).tenantId, params.entryId, body.bankCode);
        return { status: 200, body: { ...presentDestination(destination), namesMatch: destination.namesMatch } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/holds/:entryId/return',
      summary:
        'Pay what is held of a confirmed credit back to its payer, as a settlement of the account (audited), once the provider’s name for the payer’s account is the payer’s or the operator confirms it',
      tag: 'dashboard',
      auth: 'session',
      permission: 'operate',
      params: holdParamsSchema,
      body: holdReturnBodySchema,
      responses: { 202: { description: 'The return’s settlement, accepted', schema: holdReturnResponseSchema } },
      errors: [400, 403, 404, 409, 422, 429],
      handle: async ({ params, body, ctx }) => {
        const returned = await holds.returnToSender(userOf(ctx), params.entryId, body);
        return {
          status: 202,
          body: {
            ...presentDestination(returned),
            returned: formatKobo(returned.held.held),
            merchantTxRef: returned.merchantTxRef,
            nameCheck: returned.nameCheck,
          },
        };
      },
    }),
  ];
}
