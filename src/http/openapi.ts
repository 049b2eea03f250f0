import { z } from 'zod';
import { ALL_SCOPES, API_KEY_SCOPES } from './api-key-scopes';
import { requiredPermission, requiredScope, type RouteDefinition } from './route';
import { errorBodySchema } from './schemas';

type JsonObject = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid credentials',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state or an earlier request',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  429: 'Rate limited; retry after the Retry-After header (seconds)',
  503: 'A dependency (the database, the provider) is unavailable; retry after the Retry-After header (seconds) when it is given',
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const converted = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonObject;
  delete converted.$schema;
  return converted;
}

function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

function parameters(route: RouteDefinition): JsonObject[] {
  const path = Object.entries(shapeOf(route.params)).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema: jsonSchema(schema, 'input'),
  }));
  const query = Object.entries(shapeOf(route.query)).map(([name, schema]) => {
    const converted = jsonSchema(schema, 'input');
    return {
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      schema: converted,
      // An object (a metadata filter) is written name[key]=value.
      ...(converted.type === 'object' ? { style: 'deepObject', explode: true } : {}),
    };
  });
  const headers = route.idempotencyKey
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: route.idempotencyKey === 'required',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
        },
      ]
    : [];
  return [...path, ...query, ...headers];
}

/** What the shared middleware answers for any route of this shape, before or around its handler. */
function implicitErrors(route: RouteDefinition): number[] {
  const parsesBody = route.body !== undefined && !route.rawBody;
  return [
    ...(route.auth === 'public' ? [] : [401]),
    // A session route refuses a foreign Origin and a role too low; an API key route a key without its scope or from an address it does not allow.
    ...(route.auth === 'public' ? [] : [403]),
    ...(route.params || route.query || parsesBody ? [400] : []),
    ...(parsesBody ? [413, 415] : []),
    // The database unreachable, or a transaction that lost a deadlock: retry later.
    503,
  ];
}

function operation(route: RouteDefinition): JsonObject {
  const responses: JsonObject = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = spec.schema
      ? { description: spec.description, content: { 'application/json': { schema: jsonSchema(spec.schema, 'output') } } }
      : { description: spec.description };
  }
  const errorStatuses = new Set([...(route.errors ?? []), ...implicitErrors(route)]);
  for (const status of errorStatuses) {
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  const security = route.auth === 'apiKey' ? [{ ApiKeyAuth: [] }] : route.auth === 'session' ? [{ SessionCookie: [] }] : [];
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method}${route.path.replace(/[/:]+(\w)/g, (_match, letter: string) => letter.toUpperCase()).replace(/[^A-Za-z0-9]/g, '')}`,
    parameters: parameters(route),
    ...(route.body && !route.rawBody
      ? {
          requestBody: {
            required: !route.body.safeParse(undefined).success,
            content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
          },
        }
      : {}),
    responses,
    security,
    // Session routes: the permission a dashboard role must hold.
    ...(route.auth === 'session' ? { 'x-required-permission': requiredPermission(route) } : {}),
    // Session routes that ask for a TOTP code given within the window (`403 fresh_code_required` otherwise).
    ...(route.auth === 'session' && route.freshCode
      ? { 'x-fresh-code': { withinSeconds: route.freshCode.withinMs / 1000, askedOf: route.freshCode.askedOf } }
      : {}),
    // API key routes: the one scope a key needs (or `*`).
    ...(route.auth === 'apiKey' ? { 'x-required-scope': requiredScope(route) } : {}),
  };
}

const API_KEY_SECURITY_DESCRIPTION = [
  "A tenant secret key. Each key holds scopes; each operation names the one it needs in `x-required-scope`. A key without it is refused with 403, code `missing_scope`, naming the scope in `requiredScope`. An expired key, or a rotated key's replaced secret after its overlap, is 401; a key used from an address outside its allowed sources is 403, code `address_not_allowed`.",
  '',
  '| Scope | Grants |',
  '| --- | --- |',
  `| \`${ALL_SCOPES}\` | Every scope |`,
  ...Object.entries(API_KEY_SCOPES).map(([scope, grants]) => `| \`${scope}\` | ${grants} |`),
].join('\n');

/** The requests the service makes to a tenant (OpenAPI's `webhooks`): each event type's body. */
export type OpenApiWebhooks = Record<string, { description: string; schema: z.ZodType }>;

function webhookOperations(webhooks: OpenApiWebhooks): JsonObject {
  return Object.fromEntries(
    Object.entries(webhooks).map(([name, { description, schema }]) => [
      name,
      {
        post: {
          summary: description,
          operationId: `event${name.replace(/[._](\w)/g, (_match, letter: string) => letter.toUpperCase()).replace(/^\w/, (letter) => letter.toUpperCase())}`,
          parameters: [
            { name: 'X-Event-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
            {
              name: 'X-Service-Signature',
              in: 'header',
              required: true,
              schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(schema, 'output') } } },
          responses: { '2XX': { description: 'Received; any other answer is retried on the delivery schedule' } },
        },
      },
    ]),
  );
}

/** The OpenAPI document, generated from the same zod schemas that validate requests. */
export function buildOpenApi(
  routes: RouteDefinition[],
  info: { title: string; version: string },
  webhooks: OpenApiWebhooks = {},
): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation(route) };
  }
  return {
    openapi: '3.0.3',
    info,
    paths,
    webhooks: webhookOperations(webhooks),
    components: {
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: API_KEY_SECURITY_DESCRIPTION },
        SessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
    },
  };
}
