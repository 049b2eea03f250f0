import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCellDispatcher, type DispatchCell } from '../../src/clusters/cell-dispatch';
import type { TenantPlacement } from '../../src/clusters/tenant-directory';
import { createLogger } from '../../src/logger';

const TENANT_A = '01890000-0000-7000-8000-00000000000a';
const TENANT_B = '01890000-0000-7000-8000-00000000000b';
const TENANT_B2 = '01890000-0000-7000-8000-0000000000b2';

/** What one cell knows: its keys, sessions, account prefixes, users (email → tenants whose password is `right`) and reset tokens. */
interface CellFacts {
  keys?: Record<string, string>;
  sessions?: Record<string, string>;
  prefixes?: Record<string, string>;
  users?: Record<string, string[]>;
  resets?: Record<string, string>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A cell whose app answers with its name and the body it read; `asked` counts the lookups it was asked. */
function fakeCell(name: string, facts: CellFacts) {
  const asked = { keys: 0, signIns: 0 };
  const cell: DispatchCell = {
    name,
    handle: (req, res) => {
      void readAll(req).then((body) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ cell: name, body: body.toString('base64') }));
      });
    },
    auth: {
      apiKeyFor: async (secret) => {
        asked.keys += 1;
        const tenant = facts.keys?.[secret];
        return tenant
          ? {
              id: 'key',
              tenant: { id: tenant, name: tenant },
              scopes: [],
              allowedSources: null,
              expiresAt: null,
              replacedSecretValidUntil: null,
            }
          : null;
      },
      userForSession: async (token) => {
        const tenantId = facts.sessions?.[token];
        return tenantId ? ({ tenantId } as never) : null;
      },
      tenantsSignedInBy: async (email, password) => {
        asked.signIns += 1;
        return password === 'right' ? (facts.users?.[email] ?? []).map((id) => ({ id, name: id })) : [];
      },
    },
    tenants: {
      ofAccountRef: async (ref) => facts.prefixes?.[ref.slice(3, 9)],
      ofProviderRef: async () => undefined,
      ofEmail: async (email) => facts.users?.[email] ?? [],
      ofPasswordResetToken: async (token) => facts.resets?.[token],
    },
    signInAttempt: async () => undefined,
  };
  return { cell, asked };
}

describe('the front of the API over several clusters (cell dispatch)', () => {
  let server: Server;
  let url: string;
  const placements = new Map<string, TenantPlacement>();
  const a = fakeCell('a', {
    keys: { 'key-a': TENANT_A, 'key-twice': TENANT_A },
    prefixes: { aaaaaa: TENANT_A, cccccc: TENANT_A },
    resets: { 'reset-twice': TENANT_A },
    users: { 'both@example.com': [TENANT_A] },
  });
  const b = fakeCell('b', {
    keys: { 'key-b': TENANT_B, 'key-twice': TENANT_B },
    sessions: { 'session-b': TENANT_B },
    prefixes: { bbbbbb: TENANT_B, cccccc: TENANT_B },
    users: { 'b@example.com': [TENANT_B], 'both@example.com': [TENANT_B, TENANT_B2] },
    resets: { 'reset-b': TENANT_B, 'reset-twice': TENANT_B },
  });

  const loggedErrors: string[] = [];
  const logger = createLogger('silent', 'test');
  logger.error = ((...args: unknown[]) => void loggedErrors.push(String(args.at(-1)))) as typeof logger.error;

  before(async () => {
    placements.set(TENANT_B, { cluster: 'b', moving: false });
    placements.set(TENANT_B2, { cluster: 'b', moving: false });
    server = createServer(
      createCellDispatcher({
        cells: [a.cell, b.cell],
        directory: { placementOf: async (tenantId) => placements.get(tenantId) ?? { cluster: 'a', moving: false } },
        logger,
        trustProxy: false,
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const response = await fetch(`${url}${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: init.headers,
      body: init.body,
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  }

  it("hands a key's request to its tenant's cell, asking every cell once and remembering the answer", async () => {
    assert.equal((await send('/v1/me', { headers: { 'x-api-key': 'key-b' } })).body.cell, 'b');
    const askedBefore = a.asked.keys + b.asked.keys;
    assert.equal((await send('/v1/me', { headers: { 'x-api-key': 'key-b' } })).body.cell, 'b');
    assert.equal(a.asked.keys + b.asked.keys, askedBefore, 'the second request asks no cell');
    assert.equal((await send('/v1/me', { headers: { 'x-api-key': 'key-a' } })).body.cell, 'a');
    assert.equal((await send('/v1/me', { headers: { 'x-api-key': 'nobody' } })).body.cell, 'a', "an unknown key: the first cell's 401");
    assert.equal((await send('/healthz')).body.cell, 'a');
    assert.equal((await send('/auth/session', { headers: { cookie: 'other=1; session=session-b' } })).body.cell, 'b');
  });

  it("passes a provider webhook to its account's cell with the very bytes sent", async () => {
    const event = `{"event_type":"payment_success","data":{"transaction":{"aliasAccountReference":"va_bbbbbb_000000000001","note":"é \\u00e9  "}}}`;
    const response = await send('/webhooks/provider', { body: event, headers: { 'content-type': 'application/json' } });
    assert.equal(response.body.cell, 'b');
    assert.equal(Buffer.from(response.body.body as string, 'base64').toString('utf8'), event);
    const unknown = await send('/webhooks/provider', { body: '{"data":{"transaction":{"aliasAccountReference":"va_zzzzzz_1"}}}' });
    assert.equal(unknown.body.cell, 'a', 'an unknown account: the first cell records it misdirected');
  });

  it('routes sign-ins by tenant or email and password reset by token; an email on several clusters is offered as a choice', async () => {
    const login = (body: Record<string, unknown>) =>
      send('/auth/login', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    assert.equal((await login({ email: 'b@example.com', password: 'x' })).body.cell, 'b');
    assert.equal((await login({ email: 'both@example.com', password: 'x', tenantId: TENANT_B2 })).body.cell, 'b');
    const choice = await login({ email: 'both@example.com', password: 'right' });
    assert.deepEqual(
      (choice.body.chooseTenant as Array<{ id: string }>).map((tenant) => tenant.id),
      [TENANT_A, TENANT_B, TENANT_B2],
    );
    assert.equal((await login({ email: 'both@example.com', password: 'wrong' })).body.cell, 'a', "no match: a cluster's own 401");
    assert.equal((await send('/auth/password-reset', { body: JSON.stringify({ token: 'reset-b', newPassword: 'p' }) })).body.cell, 'b');
  });

  it('never guesses: an account prefix, key or reset token two tenants on two cells claim is answered 503 and logged, every time', async () => {
    const errors = loggedErrors.length;
    const webhook = '{"data":{"transaction":{"aliasAccountReference":"va_cccccc_000000000001"}}}';
    for (const attempt of [1, 2]) {
      const refused = await send('/webhooks/provider', { body: webhook });
      assert.equal(refused.status, 503, `attempt ${attempt}`);
      assert.equal(refused.body.code, 'tenant_ambiguous');
      assert.equal(refused.body.cell, undefined, 'handed to no cell');
    }
    assert.equal((await send('/v1/me', { headers: { 'x-api-key': 'key-twice' } })).status, 503);
    assert.equal((await send('/auth/password-reset', { body: JSON.stringify({ token: 'reset-twice', newPassword: 'p' }) })).status, 503);
    assert.equal(loggedErrors.length - errors, 4, 'each refusal logged as an error');
  });

  it('answers 503 with Retry-After for a tenant being moved, its webhooks too', async () => {
    placements.set(TENANT_B, { cluster: 'b', moving: true });
    try {
      const refused = await send('/v1/me', { headers: { 'x-api-key': 'key-b' } });
      assert.equal(refused.status, 503);
      assert.equal(refused.body.code, 'tenant_moving');
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      const webhook = await send('/webhooks/provider', {
        body: '{"data":{"transaction":{"aliasAccountReference":"va_bbbbbb_000000000001"}}}',
      });
      assert.equal(webhook.status, 503);
    } finally {
      placements.set(TENANT_B, { cluster: 'b', moving: false });
    }
    assert.equal((await send('/v1/me', { headers: { 'x-api-key': 'key-b' } })).status, 200);
  });
});
