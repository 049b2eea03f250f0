import { defineRoute, tenantOf, type RouteDefinition } from '../http/route';
import type { AppContext } from '../http/context';
import { presentEndpoint } from './endpoint.presenter';
import type { EndpointActor, EndpointsService } from './endpoints.service';
import {
  createEndpointBodySchema,
  endpointListSchema,
  endpointParamsSchema,
  endpointSchema,
  endpointWithSecretSchema,
  recoverBodySchema,
  recoverResponseSchema,
  updateEndpointBodySchema,
} from './endpoints.schemas';

/** Changes made with an API key are audited under the key's name. */
function apiKeyActor(ctx: AppContext): EndpointActor {
  return { tenantId: tenantOf(ctx).id, name: 'api_key' };
}

export function endpointsRoutes(deps: { endpoints: EndpointsService }): RouteDefinition[] {
  const { endpoints } = deps;
  const present = async (endpoint: Parameters<EndpointsService['health']>[0]) =>
    presentEndpoint(endpoint, await endpoints.health(endpoint));
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints',
      summary: 'Add a webhook endpoint: where events go, which types (or all); its signing secret is shown once',
      tag: 'webhook endpoints',
      auth: 'apiKey',
      scope: 'webhooks:write',
      body: createEndpointBodySchema,
      responses: { 201: { description: 'The endpoint, with its secret', schema: endpointWithSecretSchema } },
      errors: [400],
      handle: async ({ body, ctx }) => {
        const { endpoint, secret } = await endpoints.create(apiKeyActor(ctx), body);
        return { status: 201, body: { ...(await present(endpoint)), Secret: secret } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints',
      summary: "The tenant's webhook endpoints with their health",
      tag: 'webhook endpoints',
      auth: 'apiKey',
      responses: { 200: { description: 'Oldest first', schema: endpointListSchema } },
      handle: async ({ ctx }) => ({
        status: 200,
        body: { endpoints: await Promise.all((await endpoints.list(tenantOf(ctx).id)).map(present)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-endpoints/:id',
      summary: 'One webhook endpoint with its health',
      tag: 'webhook endpoints',
      auth: 'apiKey',
      params: endpointParamsSchema,
      responses: { 200: { description: 'The endpoint', schema: endpointSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => ({ status: 200, body: await present(await endpoints.find(tenantOf(ctx).id, params.id)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/webhook-endpoints/:id',
      summary: 'Change an endpoint: URL, description, event types, or enabled (re-enabling starts its health afresh)',
      tag: 'webhook endpoints',
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: endpointParamsSchema,
      body: updateEndpointBodySchema,
      responses: { 200: { description: 'The endpoint as changed', schema: endpointSchema } },
      errors: [404],
      handle: async ({ params, body, ctx }) => ({
        status: 200,
        body: await present(await endpoints.update(apiKeyActor(ctx), params.id, body)),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhook-endpoints/:id',
      summary: 'Delete an endpoint; its deliveries still to be attempted end as cancelled',
      tag: 'webhook endpoints',
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: endpointParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        await endpoints.remove(apiKeyActor(ctx), params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:id/rotate-secret',
      summary: 'A new signing secret, shown once; the previous one signs beside it for WEBHOOK_SECRET_ROTATION_OVERLAP',
      tag: 'webhook endpoints',
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: endpointParamsSchema,
      responses: { 200: { description: 'The endpoint, with its new secret', schema: endpointWithSecretSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const { endpoint, secret } = await endpoints.rotateSecret(apiKeyActor(ctx), params.id);
        return { status: 200, body: { ...(await present(endpoint)), Secret: secret } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhook-endpoints/:id/recover',
      summary: "Re-send, in order, every event of the endpoint's types since a time (bounded per call; Next continues)",
      tag: 'webhook endpoints',
      auth: 'apiKey',
      scope: 'webhooks:write',
      params: endpointParamsSchema,
      body: recoverBodySchema,
      responses: { 202: { description: 'The deliveries queued', schema: recoverResponseSchema } },
      errors: [404, 429],
      handle: async ({ params, body, ctx }) => {
        const { queued, next } = await endpoints.recover(apiKeyActor(ctx), params.id, new Date(body.since), body.after);
        return { status: 202, body: { Queued: queued, Next: next } };
      },
    }),
  ];
}
