import { defineRoute, headerOf, type RouteDefinition } from '../http/route';
import { webhookAckSchema } from './provider-webhook.schemas';
import type { PaymentIngestService } from './payment-ingest.service';

/**
 * A real provider event is one or two kilobytes; 64 KB leaves room for any future field and refuses
 * the megabyte of junk an open endpoint would otherwise read, parse and record.
 */
const PROVIDER_EVENT_MAX_BYTES = 64 * 1024;

export function providerWebhookRoutes(deps: { ingest: PaymentIngestService }): RouteDefinition[] {
  const { ingest } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/webhooks/provider',
      summary:
        "The provider's signed payment webhook (always 200, except 503 on a retryable database error, 413 over 64 KB and 429 for too many failing verification from one address)",
      tag: 'webhooks',
      auth: 'public',
      rawBody: true,
      rawBodyLimit: PROVIDER_EVENT_MAX_BYTES,
      responses: { 200: { description: 'Received (also for duplicates, bad signatures and unknown accounts)', schema: webhookAckSchema } },
      errors: [413, 429, 503],
      handle: async ({ rawBody, ctx }) => {
        // An unreachable database escapes as a 503 (errorHandler), so the provider redelivers.
        const { outcome, creditedTenantId } = await ingest.ingest(rawBody ?? Buffer.alloc(0), (name) => headerOf(ctx, name), ctx.ip);
        // The credit is its tenant's latest write: its reads from a replica wait for it.
        if (creditedTenantId) ctx.state.writeTenantId = creditedTenantId;
        ctx.state.log.info({ outcome }, 'provider webhook');
        return { status: 200, body: { received: true } };
      },
    }),
  ];
}
