import type { AuditLog } from '../audit/audit-log';
import { defineRoute, tenantOf, userOf, type RouteDefinition } from '../http/route';
import { paginate, uuidCursor } from '../http/pagination';
import { presentDeadLetter, presentDelivery, presentProcessingError, presentReplay } from './delivery.presenter';
import type { WebhooksService } from './webhooks.service';
import {
  deadLettersQuerySchema,
  deadLettersResponseSchema,
  deliveryParamsSchema,
  deliverySchema,
  replayResponseSchema,
  webhookSecretBodySchema,
  webhookSecretResponseSchema,
} from './webhooks.schemas';

/**
 * SPEC.md's response has no paging, so a client built from it reads one response: every dead letter
 * and processing error is in it, up to this bound; `after` / `processingErrorsAfter` page past it.
 */
const DEAD_LETTERS_MAX = 1000;

export function webhooksRoutes(deps: { webhooks: WebhooksService; audit: AuditLog }): RouteDefinition[] {
  const { webhooks, audit } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/auth/webhook-secret',
      summary: 'Set (or generate) the secret that signs outbound deliveries; shown once',
      tag: 'webhooks',
      auth: 'session',
      permission: 'manage_access',
      body: webhookSecretBodySchema,
      responses: { 200: { description: 'The secret now in use', schema: webhookSecretResponseSchema } },
      errors: [400, 403],
      handle: async ({ body, ctx }) => {
        const user = userOf(ctx);
        const secret = await webhooks.setSigningSecret(user.tenantId, body.secret);
        await audit.record(user, 'webhook_secret.set', { type: 'tenant', id: user.tenantId }, { generated: body.secret === undefined });
        return { status: 200, body: { secret } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/webhook-secret',
      summary: 'Stop signing outbound deliveries',
      tag: 'webhooks',
      auth: 'session',
      permission: 'manage_access',
      responses: { 204: { description: 'Signing is off' } },
      errors: [403],
      handle: async ({ ctx }) => {
        const user = userOf(ctx);
        await webhooks.clearSigningSecret(user.tenantId);
        await audit.record(user, 'webhook_secret.removed', { type: 'tenant', id: user.tenantId });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/dead-letters',
      summary: 'Deliveries that exhausted their attempts, and payment events whose posting failed',
      tag: 'webhooks',
      auth: 'apiKey',
      query: deadLettersQuerySchema,
      responses: {
        200: { description: `Newest first, all of them up to ${DEAD_LETTERS_MAX} of each list`, schema: deadLettersResponseSchema },
      },
      errors: [400],
      handle: async ({ query, ctx }) => {
        const tenantId = tenantOf(ctx).id;
        const letters = paginate(
          await webhooks.deadLetters(tenantId, uuidCursor(query.after), DEAD_LETTERS_MAX),
          DEAD_LETTERS_MAX,
          (row) => row.id,
        );
        const errors = paginate(
          await webhooks.processingErrors(tenantId, uuidCursor(query.processingErrorsAfter), DEAD_LETTERS_MAX),
          DEAD_LETTERS_MAX,
          (row) => row.id,
        );
        return {
          status: 200,
          body: {
            deadLetters: letters.items.map(presentDeadLetter),
            processingErrors: errors.items.map(presentProcessingError),
            pagination: letters.pagination,
            processingErrorsPagination: errors.pagination,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/dead-letters/:id/replay',
      summary: "Deliver a dead letter's event again (same X-Event-Id) to the account's current callbackUrl",
      tag: 'webhooks',
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: deliveryParamsSchema,
      responses: { 202: { description: 'The new delivery', schema: replayResponseSchema } },
      errors: [404, 409, 429],
      handle: async ({ params, ctx }) => {
        const replay = await webhooks.replay(tenantOf(ctx).id, params.id);
        return { status: 202, body: presentReplay(replay) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/deliveries/:id',
      summary: 'One outbound delivery with its attempt log',
      tag: 'webhooks',
      auth: 'apiKey',
      params: deliveryParamsSchema,
      responses: { 200: { description: 'The delivery', schema: deliverySchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const { delivery, attempts } = await webhooks.delivery(tenantOf(ctx).id, params.id);
        return { status: 200, body: presentDelivery(delivery, attempts) };
      },
    }),
  ];
}
