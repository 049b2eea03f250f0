import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { formatKobo } from '../money';
import { holdParamsSchema, holdReleaseBodySchema, holdReleaseResponseSchema, holdReturnBodySchema, holdReturnResponseSchema, holdsQueueResponseSchema } from './holds.schemas';
import type { HoldsService } from './holds.service';

const QUEUE_SIZE = 100;

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
      role: 'operator',
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
      path: '/auth/holds/:entryId/return',
      summary: 'Pay what is held of a confirmed credit back to its payer, as a settlement of the account (audited)',
      tag: 'dashboard',
      auth: 'session',
      role: 'operator',
      params: holdParamsSchema,
      body: holdReturnBodySchema,
      responses: { 202: { description: 'The return’s settlement, accepted', schema: holdReturnResponseSchema } },
      errors: [400, 403, 404, 409],
      handle: async ({ params, body, ctx }) => {
        const returned = await holds.returnToSender(userOf(ctx), params.entryId, body);
        return {
          status: 202,
          body: {
            entryId: returned.held.entryId,
            accountRef: returned.held.accountRef,
            returned: formatKobo(returned.held.held),
            merchantTxRef: returned.merchantTxRef,
            bankCode: returned.bankCode,
            accountNumber: returned.accountNumber,
          },
        };
      },
    }),
  ];
}
