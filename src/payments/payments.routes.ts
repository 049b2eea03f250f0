import { isDatabaseUnavailable } from '../db';
import { AppError } from '../errors';
import { defineRoute, headerOf, type RouteDefinition } from '../http/route';
import { webhookAckSchema } from './inbound-event.schemas';
import type { PaymentIngestService } from './payment-ingest.service';

export function paymentsRoutes(deps: { ingest: PaymentIngestService }): RouteDefinition[] {
  const { ingest } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/webhooks/provider',
      summary: "The provider's signed payment webhook (always 200, except 503 while the database is unreachable)",
      tag: 'webhooks',
      auth: 'public',
      rawBody: true,
      responses: { 200: { description: 'Received (also for duplicates, bad signatures and unknown accounts)', schema: webhookAckSchema } },
      errors: [413, 503],
      handle: async ({ rawBody, ctx }) => {
        const headers = {
          signature: headerOf(ctx, 'provider-signature') ?? headerOf(ctx, 'nomba-signature'),
          timestamp: headerOf(ctx, 'provider-timestamp') ?? headerOf(ctx, 'nomba-timestamp'),
        };
        try {
          const outcome = await ingest.ingest(rawBody ?? Buffer.alloc(0), headers);
          ctx.state.log.info({ outcome }, 'provider webhook');
        } catch (error) {
          if (isDatabaseUnavailable(error)) throw new AppError(503, 'unavailable', 'temporarily unavailable, retry later');
          throw error;
        }
        return { status: 200, body: { received: true } };
      },
    }),
  ];
}
