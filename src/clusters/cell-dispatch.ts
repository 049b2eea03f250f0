import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors';
import type { AuthenticatedApiKey, AuthenticatedUser } from '../http/context';
import { SESSION_COOKIE } from '../http/middleware/auth';
import { httpStatusOf } from '../http/middleware/errors';
import type { Logger } from '../logger';
import type { RequestTenants } from './request-tenants';
import type { TenantDirectory } from './tenant-directory';

/** One cell as the front of the API sees it: its whole app, and how to ask it whose a request is. */
export interface DispatchCell {
  name: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
  auth: {
    apiKeyFor(secret: string): Promise<AuthenticatedApiKey | null>;
    userForSession(token: string): Promise<AuthenticatedUser | null>;
    tenantsSignedInBy(email: string, password: string): Promise<Array<{ id: string; name: string }>>;
  };
  tenants: RequestTenants;
  /** A sign-in the front answers itself (an email with users on several clusters) counts against the address too. */
  signInAttempt(address: string): Promise<void>;
}

/** The largest provider event (the webhook route's own limit) and sign-in or reset body the front reads to route. */
const PROVIDER_EVENT_MAX_BYTES = 64 * 1024;
const AUTH_BODY_MAX_BYTES = 16 * 1024;
/** Tenants of keys, sessions and account prefixes the front remembers (it forgets them all past this many). */
const REMEMBERED_MAX = 50_000;
/** How long a client waits for a tenant being moved: a move pauses its writes for seconds. */
const MOVING_RETRY_AFTER_SECONDS = 5;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Answer = (res: ServerResponse) => void;

/** More than one tenant, on different cells, claims what a request names. */
class AmbiguousTenantError extends Error {
  constructor(
    readonly what: string,
    readonly claims: Array<{ cluster: string; tenantId: string }>,
  ) {
    super(`more than one cluster claims the ${what} of a request`);
  }
}

const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

function answer(status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
    res.end(JSON.stringify(body));
  };
}

/**
 * Reads the body the request declares (Content-Length, at most `limit` bytes) and puts it back on the stream
 * before anyone else reads it, so the cell's route reads the very same bytes (a provider signature is checked over
 * them). No declared length, or more than `limit`: nothing is read (null).
 */
function peekBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const length = Number(req.headers['content-length']);
  if (!Number.isInteger(length) || length <= 0 || length > limit) return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (body: Buffer | null): void => {
      req.off('readable', onReadable);
      req.off('aborted', onLost);
      req.off('error', onLost);
      if (chunks.length > 0 && !req.readableEnded) req.unshift(Buffer.concat(chunks));
      resolve(body);
    };
    const onReadable = (): void => {
      for (let chunk: Buffer | null; size < length && (chunk = req.read() as Buffer | null) !== null; size += chunk.length)
        chunks.push(chunk);
      if (size >= length) finish(Buffer.concat(chunks));
    };
    const onLost = (): void => finish(null);
    req.on('readable', onReadable);
    req.once('aborted', onLost);
    req.once('error', onLost);
  });
}

function jsonOf(body: Buffer | null): Record<string, unknown> | null {
  if (!body) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const textAt = (value: unknown, ...path: string[]): string | undefined => {
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : undefined;
};

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return decodeURIComponent(part.slice(separator + 1).trim());
  }
  return undefined;
}

/**
 * The front of the API when there are several clusters: finds the tenant of each request, asks the directory which
 * cluster it lives on and hands the request, untouched, to that cell's app. The tenant comes from the API key, the
 * dashboard session, a provider webhook's account reference (or payout reference), a sign-in's email or tenant, or a
 * reset token; each is remembered once found, and found by asking every cell at once. Cells naming different tenants
 * for one request are a clash answered 503 and logged as an error, never settled by routing to one. A request naming no tenant
 * (health, OpenAPI, the dashboard's files, an unknown key) goes to the first cell, which answers it as it always did.
 * A tenant being moved is answered 503 with Retry-After, the provider's webhooks for it too, so the provider retries.
 */
export function createCellDispatcher(deps: {
  cells: DispatchCell[];
  directory: Pick<TenantDirectory, 'placementOf'>;
  logger: Logger;
  trustProxy: boolean;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const { cells, directory, logger, trustProxy } = deps;
  const first = cells[0]!;
  const byName = new Map(cells.map((cell) => [cell.name, cell]));
  const remembered = new Map<string, string>();

  async function remember(key: string, find: () => Promise<string | undefined>): Promise<string | undefined> {
    const known = remembered.get(key);
    if (known) return known;
    const found = await find();
    if (found) {
      if (remembered.size >= REMEMBERED_MAX) remembered.clear();
      remembered.set(key, found);
    }
    return found;
  }

  /**
   * The tenant the cells name for a request, asking them all at once. Two cells naming different tenants is a clash
   * the front must not settle by guessing (a payment routed to the wrong cluster credits the wrong tenant): it is
   * refused (AmbiguousTenantError). The same tenant on two cells (a copy mid-move) is no clash: the directory decides.
   */
  async function askEveryCell(what: string, ask: (cell: DispatchCell) => Promise<string | null | undefined>): Promise<string | undefined> {
    const answers = await Promise.all(cells.map(async (cell) => ({ cluster: cell.name, tenantId: await ask(cell) })));
    const claims = answers.filter((claim): claim is { cluster: string; tenantId: string } => typeof claim.tenantId === 'string');
    if (new Set(claims.map((claim) => claim.tenantId)).size > 1) throw new AmbiguousTenantError(what, claims);
    return claims[0]?.tenantId;
  }

  /** The client's address as the cells' Koa sees it (one trusted proxy hop with TRUST_PROXY). */
  function clientAddress(req: IncomingMessage): string {
    const forwarded = trustProxy
      ? String(req.headers['x-forwarded-for'] ?? '')
          .split(',')
          .at(-1)
          ?.trim()
      : undefined;
    return forwarded || req.socket.remoteAddress || '';
  }

  async function signInTenant(req: IncomingMessage): Promise<string | Answer | undefined> {
    const body = jsonOf(await peekBody(req, AUTH_BODY_MAX_BYTES));
    const named = textAt(body, 'tenantId');
    if (named) return UUID_RE.test(named) ? named.toLowerCase() : undefined;
    const email = textAt(body, 'email');
    const password = textAt(body, 'password');
    if (!email || !password) return undefined;
    const holding = (await Promise.all(cells.map(async (cell) => ({ cell, tenants: await cell.tenants.ofEmail(email) })))).filter(
      (found) => found.tenants.length > 0,
    );
    if (holding.length <= 1) return holding[0]?.tenants[0];
    // Users of this email on several clusters: the tenants whose password it is, gathered here (the sign-in of each
    // cluster would offer only its own). One of them: signed in on its cluster; several: the client chooses.
    await first.signInAttempt(clientAddress(req));
    const matches = (await Promise.all(holding.map(({ cell }) => cell.auth.tenantsSignedInBy(email, password)))).flat();
    if (matches.length === 1) return matches[0]!.id;
    if (matches.length === 0) return holding[0]!.tenants[0];
    return answer(200, { chooseTenant: matches });
  }

  async function tenantOf(req: IncomingMessage): Promise<string | Answer | undefined> {
    const path = (req.url ?? '/').split('?')[0];
    const secret = req.headers['x-api-key'];
    if (typeof secret === 'string' && secret !== '')
      return remember(`key:${digest(secret)}`, async () =>
        askEveryCell('api key', async (cell) => (await cell.auth.apiKeyFor(secret))?.tenant.id),
      );
    const session = cookieOf(req, SESSION_COOKIE);
    if (session)
      return remember(`session:${digest(session)}`, () =>
        askEveryCell('session', async (cell) => (await cell.auth.userForSession(session))?.tenantId),
      );
    if (req.method !== 'POST') return undefined;
    if (path === '/webhooks/provider') {
      const event = jsonOf(await peekBody(req, PROVIDER_EVENT_MAX_BYTES));
      const accountRef = textAt(event, 'data', 'transaction', 'aliasAccountReference');
      if (accountRef)
        return remember(`account:${accountRef.slice(0, 9)}`, () =>
          askEveryCell('webhook account', (cell) => cell.tenants.ofAccountRef(accountRef)),
        );
      const providerRef = textAt(event, 'data', 'transaction', 'merchantTxRef');
      return providerRef ? askEveryCell('payout reference', (cell) => cell.tenants.ofProviderRef(providerRef)) : undefined;
    }
    if (path === '/auth/login') return signInTenant(req);
    if (path === '/auth/password-reset') {
      const token = textAt(jsonOf(await peekBody(req, AUTH_BODY_MAX_BYTES)), 'token');
      return token ? askEveryCell('reset token', (cell) => cell.tenants.ofPasswordResetToken(token)) : undefined;
    }
    return undefined;
  }

  async function route(req: IncomingMessage): Promise<DispatchCell | Answer> {
    const tenant = await tenantOf(req);
    if (tenant === undefined) return first;
    if (typeof tenant === 'function') return tenant;
    const placement = await directory.placementOf(tenant);
    if (placement.moving)
      return answer(
        503,
        { error: 'this tenant is being moved to another cluster; try again in a few seconds', code: 'tenant_moving' },
        { 'Retry-After': String(MOVING_RETRY_AFTER_SECONDS) },
      );
    const cell = byName.get(placement.cluster);
    if (cell) return cell;
    logger.error({ tenantId: tenant, cluster: placement.cluster }, 'the directory places a tenant on a cluster this process does not know');
    return answer(503, { error: 'this tenant is not reachable right now', code: 'cluster_unavailable' });
  }

  return (req, res) => {
    route(req).then(
      (target) => (typeof target === 'function' ? target(res) : target.handle(req, res)),
      (error: unknown) => {
        if (error instanceof AppError) return answer(httpStatusOf(error), { error: error.message, code: error.code })(res);
        if (error instanceof AmbiguousTenantError) {
          // Never routed to one of them: the provider retries the 503, and an operator resolves the clash.
          logger.error(
            { what: error.what, claims: error.claims, path: req.url },
            'tenants on several clusters claim one request; answered 503',
          );
          return answer(503, { error: 'this request cannot be routed right now', code: 'tenant_ambiguous' }, { 'Retry-After': '60' })(res);
        }
        // The control database or a cluster unreachable: an outage the client (and the provider) retries.
        logger.warn({ err: error, path: req.url }, 'could not find the cluster of a request; answered 503');
        answer(503, { error: 'service temporarily unavailable', code: 'unavailable' }, { 'Retry-After': '1' })(res);
      },
    );
  };
}
