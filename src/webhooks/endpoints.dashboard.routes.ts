import { EVENT_CATALOGUE, EVENT_TYPES } from '../events/event-catalogue';
import { defineRoute, userOf, type RouteDefinition } from '../http/route';
import { presentEndpoint } from './endpoint.presenter';
import type { EndpointRecord } from './endpoints.repo';
import type { EndpointsService } from './endpoints.service';
import {
  createEndpointBodySchema,
  endpointListSchema,
  endpointParamsSchema,
  endpointSchema,
  endpointWithSecretSchema,
  eventTypeListSchema,
  updateEndpointBodySchema,
} from './endpoints.schemas';

/**
 * The dashboard's webhook endpoints page: the /v1/webhook-endpoints operations with the signed-in user
 * as the actor (audited by name). Every role reads; changing endpoints and their secrets is an admin's,
 * as the tenant's signing secret is.
 */
export function endpointsDashboardRoutes(deps: { endpoints: EndpointsService }): RouteDefinition[] {
  const { endpoints } = deps;
  const present = async (endpoint: EndpointRecord) => presentEndpoint(endpoint, await endpoints.health(endpoint));
  return [
    defineRoute({
      method: 'get',
      path: '/auth/webhook-event-types',
      summary: 'The event types an endpoint can subscribe to, with what each means',
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'In catalogue order', schema: eventTypeListSchema } },
      handle: async () => ({
        status: 200,
        body: { eventTypes: EVENT_TYPES.map((type) => ({ type, description: EVENT_CATALOGUE[type].description })) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/webhook-endpoints',
      summary: "The tenant's webhook endpoints with their health (as GET /v1/webhook-endpoints)",
      tag: 'dashboard',
      auth: 'session',
      responses: { 200: { description: 'Oldest first', schema: endpointListSchema } },
      handle: async ({ ctx }) => ({
        status: 200,
        body: { endpoints: await Promise.all((await endpoints.list(userOf(ctx).tenantId)).map(present)) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/webhook-endpoints',
      summary: 'Add a webhook endpoint (as POST /v1/webhook-endpoints); its signing secret is shown once; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      body: createEndpointBodySchema,
      responses: { 201: { description: 'The endpoint, with its secret', schema: endpointWithSecretSchema } },
      errors: [400],
      handle: async ({ body, ctx }) => {
        const { endpoint, secret } = await endpoints.create(userOf(ctx), body);
        return { status: 201, body: { ...(await present(endpoint)), Secret: secret } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/auth/webhook-endpoints/:id',
      summary: 'Change an endpoint: URL, description, event types, or enabled (as PATCH /v1/webhook-endpoints/{id}); audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: endpointParamsSchema,
      body: updateEndpointBodySchema,
      responses: { 200: { description: 'The endpoint as changed', schema: endpointSchema } },
      errors: [400, 404],
      handle: async ({ params, body, ctx }) => ({ status: 200, body: await present(await endpoints.update(userOf(ctx), params.id, body)) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/auth/webhook-endpoints/:id',
      summary: 'Delete an endpoint; its deliveries still to be attempted end as cancelled; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: endpointParamsSchema,
      responses: { 204: { description: 'Deleted' } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        await endpoints.remove(userOf(ctx), params.id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/webhook-endpoints/:id/rotate-secret',
      summary: 'A new signing secret, shown once; the previous one signs beside it for WEBHOOK_SECRET_ROTATION_OVERLAP; audited',
      tag: 'dashboard',
      auth: 'session',
      permission: 'manage_access',
      params: endpointParamsSchema,
      responses: { 200: { description: 'The endpoint, with its new secret', schema: endpointWithSecretSchema } },
      errors: [404],
      handle: async ({ params, ctx }) => {
        const { endpoint, secret } = await endpoints.rotateSecret(userOf(ctx), params.id);
        return { status: 200, body: { ...(await present(endpoint)), Secret: secret } };
      },
    }),
  ];
}
