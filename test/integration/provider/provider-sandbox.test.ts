import assert from 'node:assert/strict';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig, type Config } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { verifyProviderSignature } from '../../../src/provider/spec-provider/webhook-signature';
import { ProviderRejectedError, ProviderUnavailableError } from '../../../src/provider/errors';
import { createProviderClient } from '../../../src/provider/spec-provider/provider-client';
import type { ProviderClient } from '../../../src/provider/spec-provider/spec-provider.types';
import { createSandbox, type Sandbox } from '../../../src/sandbox/app';
import { runnableDeadline } from '../../helpers/deadline';
import { magicAccountNumber, unavailableNin, unverifiedNin } from '../../helpers/sandbox-values';

const SIGNING_SECRET = 'sk_test_sandbox_signing_secret_0001';
/** The timeout of the client the timeout cases use (and the sandbox holds a response past). */
const PROVIDER_TIMEOUT_MS = 400;
/**
 * Every other call's timeout: a loaded machine may answer a call more slowly than the short one, and no test but
 * the timeout cases is about that.
 */
const PATIENT = { PROVIDER_TIMEOUT: '30s' };
const PROCESSING_TIME_MS = 600;
const REFUND_DELAY_MS = 300;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_SECONDS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const ISO_MS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// ---- helpers -------------------------------------------------------------------------------

interface ReceivedWebhook {
  body: string;
  headers: IncomingHttpHeaders;
  payload: WebhookPayload;
}

interface WebhookPayload {
  event_type: string;
  requestId: string;
  data: {
    merchant: { userId: string; walletId: string; walletBalance: number };
    transaction: Record<string, unknown> & { transactionId: string; merchantTxRef?: string };
    customer: { senderName: string; accountNumber: string; bankName: string };
  };
}

interface ErrorBody {
  code: string;
  description: string;
}

interface PaymentAnswer {
  requestId: string;
  transactionId: string;
  payload: WebhookPayload;
  headers: Record<string, string>;
  delivery: { status: number | null; error?: string };
}

interface TransfersView {
  merchantTxRef: string;
  submissions: Array<{ reference: string; id: string; status: string; amount: number; fee: number; paidOut: boolean; refunded: boolean }>;
  payouts: number;
  standingPayouts: number;
  calls: Array<{ at: string; route: 'submit' | 'lookup' }>;
}

interface WebhooksView {
  events: Array<{
    requestId: string;
    eventType: string;
    body: string;
    headers: Record<string, string>;
    deliveries: Array<{ status: number | null }>;
  }>;
}

interface TokenStats {
  issued: number;
  rejected: number;
  active: number;
  ttlMs: number;
}

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Stands in for the service's /webhooks/provider: records the exact bytes and headers. */
class WebhookReceiver {
  received: ReceivedWebhook[] = [];
  answerStatus = 200;
  url = '';
  private server: Server | null = null;

  async start(): Promise<void> {
    const { server, url } = await listen(async (req, res) => {
      const body = await readBody(req);
      this.received.push({ body, headers: req.headers, payload: JSON.parse(body) as WebhookPayload });
      res.writeHead(this.answerStatus).end();
    });
    this.server = server;
    this.url = `${url}/webhooks/provider`;
  }

  async stop(): Promise<void> {
    if (this.server) await stop(this.server);
  }

  /** The first webhook received that matches, waiting for it until the test's time runs out. */
  async waitFor(predicate: (webhook: ReceivedWebhook) => boolean): Promise<ReceivedWebhook> {
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > runnableDeadline())
        throw new Error(
          `no matching webhook before the test's time ran out; got ${this.received.map((w) => w.payload.event_type).join(', ')}`,
        );
      await sleep(20);
    }
  }
}

async function http<T>(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T }> {
  const hasBody = options.body !== undefined || options.rawBody !== undefined;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

function isUnavailable(error: unknown): boolean {
  assert.ok(error instanceof ProviderUnavailableError, `expected ProviderUnavailableError, got ${String(error)}`);
  return true;
}

function isRejected(httpStatus: number, code: string, description?: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ProviderRejectedError, `expected ProviderRejectedError, got ${String(error)}`);
    assert.equal(error.httpStatus, httpStatus);
    assert.equal(error.code, code);
    if (description !== undefined) assert.equal(error.description, description);
    return true;
  };
}

function verifies(webhook: { body: string; headers: IncomingHttpHeaders | Record<string, string> }, secret = SIGNING_SECRET): boolean {
  const timestamp = webhook.headers['provider-timestamp'];
  const signature = webhook.headers['provider-signature'];
  assert.equal(typeof timestamp, 'string');
  assert.equal(typeof signature, 'string');
  return verifyProviderSignature(secret, JSON.parse(webhook.body), timestamp as string, signature as string);
}

let referenceCounter = 0;
function uniqueRef(prefix: string): string {
  referenceCounter += 1;
  return `${prefix}_${Date.now().toString(36)}_${referenceCounter}`;
}

// ---- suite ---------------------------------------------------------------------------------

describe('provider client against the sandbox (real HTTP)', () => {
  const receiver = new WebhookReceiver();
  let env: Record<string, string>;
  let sandbox: Sandbox;
  let sandboxServer: Server;
  let sandboxUrl: string;
  let clientConfig: Config;
  let client: ProviderClient;
  const silent = createLogger('silent', 'test');

  const control = <T>(method: string, path: string, body?: unknown) => http<T>(sandboxUrl, method, path, { body });
  const newClient = (overrides: Record<string, string> = {}): ProviderClient =>
    createProviderClient(loadConfig({ ...env, PROVIDER_BASE_URL: sandboxUrl, ...PATIENT, ...overrides }), silent);
  /** A client with the short timeout, for the cases about timing out. */
  const hastyClient = (): ProviderClient => newClient({ PROVIDER_TIMEOUT: `${PROVIDER_TIMEOUT_MS}ms` });
  const tokenStats = async (): Promise<TokenStats> => (await control<TokenStats>('GET', '/sandbox/tokens')).body;
  const transfersOf = async (merchantTxRef: string): Promise<TransfersView> =>
    (await control<TransfersView>('GET', `/sandbox/transfers/${encodeURIComponent(merchantTxRef)}`)).body;
  const pay = async (body: Record<string, unknown>): Promise<PaymentAnswer> => {
    const { status, body: answer } = await control<PaymentAnswer>('POST', '/sandbox/payments', body);
    assert.equal(status, 200, JSON.stringify(answer));
    return answer;
  };
  const transfer = (accountNumber: string, merchantTxRef: string, amountKobo = 150_050n, via: ProviderClient = client) =>
    via.submitTransfer({
      amountKobo,
      accountNumber,
      accountName: 'ADA OBI',
      bankCode: '058',
      merchantTxRef,
      senderName: 'Acme Ltd',
      narration: 'settlement',
    });

  before(async () => {
    await receiver.start();
    env = {
      NODE_ENV: 'test',
      ALLOW_DEVELOPMENT_SETTINGS: 'true',
      LOG_LEVEL: 'silent',
      PROVIDER_TIMEOUT: `${PROVIDER_TIMEOUT_MS}ms`,
      PROVIDER_WEBHOOKS_SIGNING_SECRET: SIGNING_SECRET,
      SANDBOX_WEBHOOK_URL: receiver.url,
      SANDBOX_PROCESSING_TIME: `${PROCESSING_TIME_MS}ms`,
      SANDBOX_REFUND_DELAY: `${REFUND_DELAY_MS}ms`,
    };
    sandbox = createSandbox({ config: loadConfig(env), logger: silent });
    ({ server: sandboxServer, url: sandboxUrl } = await listen(sandbox.app.callback()));
    clientConfig = loadConfig({ ...env, PROVIDER_BASE_URL: sandboxUrl, ...PATIENT });
    client = createProviderClient(clientConfig, silent);
  });

  after(async () => {
    await sandbox.close();
    await stop(sandboxServer);
    await receiver.stop();
  });

  beforeEach(async () => {
    await control('POST', '/sandbox/reset');
    receiver.received = [];
    receiver.answerStatus = 200;
  });

  describe('authentication', () => {
    const providerRoutes: Array<[string, string, unknown?]> = [
      ['POST', '/v1/accounts/virtual', { accountRef: 'x', accountName: 'X', currency: 'NGN' }],
      ['GET', '/v1/transactions/accounts/single?transactionRef=x'],
      ['POST', '/v2/transfers/bank', {}],
      ['GET', '/v1/transfers/banks'],
      ['POST', '/v1/transfers/bank/lookup', {}],
    ];

    async function issueToken(): Promise<string> {
      const { status, body } = await http<{ code: string; data: { access_token: string; refresh_token: string; expiresAt: string } }>(
        sandboxUrl,
        'POST',
        '/v1/auth/token/issue',
        {
          body: { grant_type: 'client_credentials', client_id: 'anyone', client_secret: 'anything' },
        },
      );
      assert.equal(status, 200);
      assert.equal(body.code, '00');
      assert.ok(body.data.access_token.length >= 32);
      assert.ok(body.data.refresh_token.length >= 32);
      const lifetimeMs = Date.parse(body.data.expiresAt) - Date.now();
      assert.ok(lifetimeMs > 59 * 60_000 && lifetimeMs <= 60 * 60_000, `token lifetime ${lifetimeMs} ms is not one hour`);
      return body.data.access_token;
    }

    it('issues a one-hour token for any client id and secret', async () => {
      await issueToken();
      assert.equal((await tokenStats()).issued, 1);
    });

    it('refuses a token request that is not client_credentials', async () => {
      const { status, body } = await http<ErrorBody>(sandboxUrl, 'POST', '/v1/auth/token/issue', {
        body: { grant_type: 'password', client_id: 'a', client_secret: 'b' },
      });
      assert.equal(status, 400);
      assert.match(body.description, /grant_type/);
    });

    it('answers 401 on every provider route without a bearer token', async () => {
      for (const [method, path, body] of providerRoutes) {
        const response = await http<ErrorBody>(sandboxUrl, method, path, { body, headers: { accountId: 'acct' } });
        assert.equal(response.status, 401, `${method} ${path}`);
        assert.equal(response.body.code, '401');
        assert.ok(response.body.description);
      }
    });

    it('answers 401 without an accountId header, or with an unknown token', async () => {
      const token = await issueToken();
      for (const [method, path, body] of providerRoutes) {
        const noAccount = await http<ErrorBody>(sandboxUrl, method, path, { body, headers: { authorization: `Bearer ${token}` } });
        assert.equal(noAccount.status, 401, `${method} ${path} without accountId`);
        assert.equal(noAccount.body.description, 'missing accountId header');
        const badToken = await http<ErrorBody>(sandboxUrl, method, path, {
          body,
          headers: { authorization: 'Bearer not-a-token', accountId: 'acct' },
        });
        assert.equal(badToken.status, 401, `${method} ${path} with a bad token`);
      }
      const ok = await http(sandboxUrl, 'GET', '/v1/transfers/banks', { headers: { authorization: `Bearer ${token}`, accountId: 'acct' } });
      assert.equal(ok.status, 200);
    });

    it('serves /identity/nin and the /sandbox control routes without any token', async () => {
      assert.equal((await http(sandboxUrl, 'POST', '/identity/nin', { body: { nin: '12345678901', name: 'Ada Obi' } })).status, 200);
      assert.equal((await control('GET', '/sandbox/faults')).status, 200);
      assert.equal((await control('GET', '/sandbox/webhooks')).status, 200);
    });
  });

  describe('token caching', () => {
    it('issues one token for many calls', async () => {
      const fresh = newClient();
      await fresh.listBanks();
      await fresh.listBanks();
      await fresh.lookupAccount({ accountNumber: '0123456789', bankCode: '058' });
      assert.deepEqual(await tokenStats(), { issued: 1, rejected: 0, active: 1, ttlMs: 3_600_000 });
    });

    it('shares one token request among concurrent callers', async () => {
      const fresh = newClient();
      await Promise.all(Array.from({ length: 10 }, () => fresh.listBanks()));
      assert.equal((await tokenStats()).issued, 1);
    });

    it('refreshes 5 minutes before expiresAt, before the provider would refuse it', async () => {
      await control('POST', '/sandbox/tokens/ttl', { ttlMs: 5 * 60_000 + 300 });
      const fresh = newClient();
      await fresh.listBanks();
      await fresh.listBanks();
      assert.equal((await tokenStats()).issued, 1);
      await sleep(400);
      await fresh.listBanks();
      const stats = await tokenStats();
      assert.equal(stats.issued, 2);
      assert.equal(stats.rejected, 0, 'the old token was replaced before it expired, not after a 401');
    });

    it('drops a token the provider refuses and retries the call once', async () => {
      const fresh = newClient();
      await fresh.listBanks();
      await control('POST', '/sandbox/tokens/expire');
      const banks = await fresh.listBanks();
      assert.ok(banks.length > 0);
      assert.deepEqual({ ...(await tokenStats()), ttlMs: undefined }, { issued: 2, rejected: 1, active: 1, ttlMs: undefined });
    });
  });

  describe('virtual accounts', () => {
    it('creates an account with a unique 10-digit NUBAN at Sandbox MFB', async () => {
      const accountRef = uniqueRef('acct');
      const account = await client.createVirtualAccount({
        accountRef,
        accountName: 'Ada Obi',
        bvn: '22212345678',
        expectedAmountKobo: 502_550n,
      });
      assert.equal(account.accountRef, accountRef);
      assert.match(account.bankAccountNumber, /^\d{10}$/);
      assert.equal(account.bankName, 'Sandbox MFB');
      assert.equal(account.accountName, 'Ada Obi');
      assert.equal(account.bankAccountName, 'Ada Obi');
      assert.equal(account.currency, 'NGN');
      assert.equal(account.expectedAmountKobo, 502_550n);
      assert.equal(account.expired, false);
      assert.match(account.accountHolderId, UUID_RE);
      assert.ok(!Number.isNaN(Date.parse(account.createdAt)));
    });

    it('is idempotent on accountRef and never reuses a number', async () => {
      const patient = newClient();
      const accountRef = uniqueRef('acct');
      const first = await patient.createVirtualAccount({ accountRef, accountName: 'Ada Obi' });
      const again = await patient.createVirtualAccount({ accountRef, accountName: 'Ada Obi' });
      assert.deepEqual(again, first);
      assert.equal(first.expectedAmountKobo, null);
      const others = await Promise.all(
        Array.from({ length: 20 }, (_, i) => patient.createVirtualAccount({ accountRef: `${accountRef}_${i}`, accountName: 'Other' })),
      );
      const numbers = new Set([first.bankAccountNumber, ...others.map((account) => account.bankAccountNumber)]);
      assert.equal(numbers.size, 21);
    });

    it('rejects a malformed BVN with a definite 400', async () => {
      await assert.rejects(
        client.createVirtualAccount({ accountRef: uniqueRef('acct'), accountName: 'Ada', bvn: '123' }),
        isRejected(400, '400'),
      );
    });
  });

  describe('banks and name lookup', () => {
    it('lists at least 20 real banks with unique codes', async () => {
      const banks = await client.listBanks();
      assert.ok(banks.length >= 20);
      assert.equal(new Set(banks.map((bank) => bank.code)).size, banks.length);
      const byCode = new Map(banks.map((bank) => [bank.code, bank.name]));
      for (const [code, name] of [
        ['044', /Access/],
        ['058', /Guaranty Trust/],
        ['011', /First Bank/],
        ['033', /United Bank for Africa/],
        ['057', /Zenith/],
        ['090405', /Moniepoint/],
        ['100004', /OPay/],
      ] as const) {
        assert.match(byCode.get(code) ?? '', name, code);
      }
      assert.ok(banks.every((bank) => /^(\d{3}|\d{6})$/.test(bank.code)));
      assert.ok(banks.some((bank) => bank.code.length === 6));
    });

    it('names an account deterministically', async () => {
      const first = await client.lookupAccount({ accountNumber: '0123456789', bankCode: '058' });
      const again = await client.lookupAccount({ accountNumber: '0123456789', bankCode: '044' });
      const other = await client.lookupAccount({ accountNumber: '0123456788', bankCode: '058' });
      assert.ok(first && again && other);
      assert.equal(first.accountNumber, '0123456789');
      assert.match(first.accountName, /^[A-Z]+ [A-Z]+ [A-Z]+$/);
      assert.equal(again.accountName, first.accountName);
      assert.notEqual(other.accountName, first.accountName);
    });

    it('answers "not found" (null) for an account number ending 9999', async () => {
      assert.equal(await client.lookupAccount({ accountNumber: magicAccountNumber('nameNotFound'), bankCode: '058' }), null);
      const raw = await http<ErrorBody>(sandboxUrl, 'POST', '/v1/transfers/bank/lookup', {
        body: { accountNumber: magicAccountNumber('nameNotFound'), bankCode: '058' },
        headers: { authorization: `Bearer ${[...sandbox.state.tokens.keys()][0]}`, accountId: 'acct' },
      });
      assert.deepEqual(raw, { status: 404, body: { code: '01', description: 'account not found' } });
    });

    it('rejects an unknown bank code and a malformed account number', async () => {
      await assert.rejects(
        client.lookupAccount({ accountNumber: '0123456789', bankCode: '999' }),
        isRejected(400, '01', 'invalid bank code'),
      );
      await assert.rejects(client.lookupAccount({ accountNumber: '12345', bankCode: '058' }), isRejected(400, '400'));
    });
  });

  describe('inbound payments and webhooks', () => {
    it('records a payment and sends a signed payment_success webhook with the SPEC payload', async () => {
      const accountRef = uniqueRef('acct');
      await client.createVirtualAccount({ accountRef, accountName: 'Ada Obi' });
      const answer = await pay({
        accountRef,
        amount: '5025.50',
        senderName: 'CHIDI OKAFOR',
        senderAccountNumber: '0987654321',
        narration: 'Invoice 1042',
      });

      assert.match(answer.requestId, UUID_RE);
      assert.match(answer.transactionId, /^API-VACT_TRA-[0-9A-F]{5}-[0-9a-f-]{36}$/);
      assert.deepEqual(answer.delivery, { status: 200 });
      assert.equal(receiver.received.length, 1);
      const webhook = receiver.received[0]!;
      assert.equal(webhook.body, JSON.stringify(answer.payload), 'the receiver got the exact bytes of the answered payload');
      assert.equal(webhook.headers['content-type'], 'application/json');
      assert.equal(webhook.headers['provider-signature'], answer.headers['provider-signature']);
      assert.match(String(webhook.headers['provider-timestamp']), ISO_SECONDS_RE);
      assert.ok(verifies(webhook));
      assert.equal(verifies(webhook, 'sk_some_other_secret_value'), false);

      const { event_type, requestId, data } = webhook.payload;
      assert.equal(event_type, 'payment_success');
      assert.equal(requestId, answer.requestId);
      assert.match(data.merchant.userId, UUID_RE);
      assert.match(data.merchant.walletId, /^[0-9a-f]{24}$/);
      assert.equal(data.merchant.walletBalance, 5000.5);
      assert.deepEqual(Object.keys(data.transaction), [
        'transactionId',
        'type',
        'time',
        'responseCode',
        'transactionAmount',
        'fee',
        'currency',
        'aliasAccountReference',
        'narration',
      ]);
      assert.equal(data.transaction.transactionId, answer.transactionId);
      assert.equal(data.transaction.type, 'vact_transfer');
      assert.match(String(data.transaction.time), ISO_SECONDS_RE);
      assert.equal(data.transaction.responseCode, '');
      assert.equal(data.transaction.transactionAmount, 5025.5);
      assert.equal(data.transaction.fee, 25);
      assert.equal(data.transaction.currency, 'NGN');
      assert.equal(data.transaction.aliasAccountReference, accountRef);
      assert.equal(data.transaction.narration, 'Invoice 1042');
      assert.deepEqual(data.customer, { senderName: 'CHIDI OKAFOR', accountNumber: '0987654321', bankName: data.customer.bankName });
      assert.ok(data.customer.bankName.length > 0);

      const transaction = await client.getTransaction(answer.transactionId);
      assert.deepEqual(transaction, {
        id: answer.transactionId,
        status: 'SUCCESS',
        amountKobo: 502_550n,
        feeKobo: 2_500n,
        type: 'vact_transfer',
        // The provider's lookup carries no currency field: the sandbox keeps its wire shape.
        currency: null,
        merchantTxRef: null,
        aliasAccountReference: accountRef,
        timeCreated: transaction?.timeCreated,
      });
    });

    it('charges the SPEC fee tiers on the amount sent, unless a fee is given', async () => {
      const cases: Array<[unknown, bigint]> = [
        ['4999.99', 1_000n],
        [5000, 2_500n],
        ['50000.00', 2_500n],
        [50000.01, 5_000n],
        [1234.56, 1_000n],
      ];
      for (const [amount, feeKobo] of cases) {
        const answer = await pay({ accountRef: 'fees', amount, deliver: false });
        assert.equal((await client.getTransaction(answer.transactionId))?.feeKobo, feeKobo, String(amount));
      }
      const custom = await pay({ accountRef: 'fees', amount: '100', fee: '0', deliver: false });
      const transaction = await client.getTransaction(custom.transactionId);
      assert.equal(transaction?.amountKobo, 10_000n);
      assert.equal(transaction?.feeKobo, 0n);
    });

    it('refuses invalid amounts and a fee above the amount', async () => {
      for (const amount of ['12.345', 0, -5, 'abc', '', null]) {
        const { status } = await control<ErrorBody>('POST', '/sandbox/payments', { accountRef: 'x', amount });
        assert.equal(status, 400, JSON.stringify(amount));
      }
      const { status, body } = await control<ErrorBody>('POST', '/sandbox/payments', { accountRef: 'x', amount: '10', fee: '11' });
      assert.equal(status, 400);
      assert.match(body.description, /^fee/);
      assert.equal(sandbox.state.payments.size, 0);
    });

    it('accepts a payment to an accountRef nobody provisioned (misdirected)', async () => {
      const answer = await pay({ accountRef: 'never-provisioned', amount: 700 });
      assert.equal(answer.delivery.status, 200);
      assert.equal((await client.getTransaction(answer.transactionId))?.aliasAccountReference, 'never-provisioned');
    });

    it('records without delivering when deliver is false, and keeps the given status', async () => {
      const answer = await pay({ accountRef: 'quiet', amount: '100', deliver: false, status: 'PAYMENT_FAILED' });
      assert.deepEqual(answer.delivery, { status: null });
      await sleep(50);
      assert.equal(receiver.received.length, 0);
      assert.equal((await client.getTransaction(answer.transactionId))?.status, 'PAYMENT_FAILED');
      const { body } = await control<WebhooksView>('GET', '/sandbox/webhooks');
      assert.equal(body.events.length, 1);
      assert.equal(body.events[0]?.requestId, answer.requestId);
      assert.deepEqual(body.events[0]?.deliveries, []);
    });

    it('lookup lag: a payment is "not found" for lookupLagMs after it was made, then found', async () => {
      const answer = await pay({ accountRef: 'lagging', amount: '100', lookupLagMs: 400 });
      assert.equal(answer.delivery.status, 200, 'the webhook is not delayed, only the lookup');
      assert.equal(await client.getTransaction(answer.transactionId), null);
      await sleep(450);
      assert.equal((await client.getTransaction(answer.transactionId))?.status, 'SUCCESS');
    });

    it('SANDBOX_LOOKUP_LAG sets the lag of every payment; lookupLagMs overrides it', async () => {
      const lagging = createSandbox({ config: loadConfig({ ...env, SANDBOX_LOOKUP_LAG: '400ms' }), logger: silent });
      const { server, url } = await listen(lagging.app.callback());
      try {
        const lagClient = newClient({ PROVIDER_BASE_URL: url });
        const { body: lagged } = await http<PaymentAnswer>(url, 'POST', '/sandbox/payments', {
          body: { accountRef: 'a', amount: '100', deliver: false },
        });
        const { body: immediate } = await http<PaymentAnswer>(url, 'POST', '/sandbox/payments', {
          body: { accountRef: 'a', amount: '100', deliver: false, lookupLagMs: 0 },
        });
        assert.equal(await lagClient.getTransaction(lagged.transactionId), null);
        assert.equal((await lagClient.getTransaction(immediate.transactionId))?.status, 'SUCCESS');
        await sleep(450);
        assert.equal((await lagClient.getTransaction(lagged.transactionId))?.status, 'SUCCESS');
      } finally {
        await lagging.close();
        await stop(server);
      }
    });

    it('notFoundLookups: the first lookups say "not found", the next ones SUCCESS', async () => {
      const answer = await pay({ accountRef: 'a', amount: '100', deliver: false, notFoundLookups: 2 });
      assert.equal(await client.getTransaction(answer.transactionId), null);
      assert.equal(await client.getTransaction(answer.transactionId), null);
      assert.equal((await client.getTransaction(answer.transactionId))?.status, 'SUCCESS');
    });

    it('processingMs: PROCESSING for that long, then the given status; status PROCESSING stays PROCESSING', async () => {
      const settling = await pay({ accountRef: 'a', amount: '100', deliver: false, processingMs: 400 });
      const stuck = await pay({ accountRef: 'a', amount: '100', deliver: false, status: 'PROCESSING' });
      assert.equal((await client.getTransaction(settling.transactionId))?.status, 'PROCESSING');
      await sleep(450);
      assert.equal((await client.getTransaction(settling.transactionId))?.status, 'SUCCESS');
      assert.equal((await client.getTransaction(stuck.transactionId))?.status, 'PROCESSING');
    });

    it('refuses a negative or absurd lag, processing time or not-found count', async () => {
      for (const body of [{ lookupLagMs: -1 }, { processingMs: 8 * 24 * 3_600_000 }, { notFoundLookups: 1.5 }]) {
        const { status } = await control('POST', '/sandbox/payments', { accountRef: 'a', amount: '100', ...body });
        assert.equal(status, 400, JSON.stringify(body));
      }
    });

    it('reports the receiver status, and a network error as status null', async () => {
      receiver.answerStatus = 500;
      assert.deepEqual((await pay({ accountRef: 'a', amount: '100' })).delivery, { status: 500 });
      const unreachable = createSandbox({
        config: loadConfig({ ...env, SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/webhooks/provider' }),
        logger: silent,
      });
      const { server, url } = await listen(unreachable.app.callback());
      try {
        const { body } = await http<PaymentAnswer>(url, 'POST', '/sandbox/payments', { body: { accountRef: 'a', amount: '100' } });
        assert.equal(body.delivery.status, null);
        assert.ok(body.delivery.error);
      } finally {
        await unreachable.close();
        await stop(server);
      }
    });

    it('redelivers an event byte for byte, and lists every event newest last', async () => {
      const first = await pay({ accountRef: 'a', amount: '100' });
      const second = await pay({ accountRef: 'b', amount: '200' });
      await sleep(1_100); // a fresh send now would carry a different provider-timestamp
      const { status, body } = await control<{ requestId: string; delivery: { status: number } }>('POST', '/sandbox/webhooks/redeliver', {
        requestId: first.requestId,
      });
      assert.equal(status, 200);
      assert.deepEqual(body, { requestId: first.requestId, delivery: { status: 200 } });

      assert.equal(receiver.received.length, 3);
      const [original, , redelivered] = receiver.received;
      assert.equal(redelivered!.body, original!.body);
      for (const header of ['provider-signature', 'provider-timestamp', 'content-type'])
        assert.equal(redelivered!.headers[header], original!.headers[header], header);
      assert.ok(verifies(redelivered!));

      const events = (await control<WebhooksView>('GET', '/sandbox/webhooks')).body.events;
      assert.deepEqual(
        events.map((event) => event.requestId),
        [first.requestId, second.requestId],
      );
      assert.equal(events[0]?.deliveries.length, 2);
      assert.equal(events[0]?.body, original!.body);

      const unknown = await control<ErrorBody>('POST', '/sandbox/webhooks/redeliver', { requestId: 'no-such-event' });
      assert.equal(unknown.status, 404);
    });

    it('returns null for a transaction the provider does not know', async () => {
      assert.equal(await client.getTransaction('API-VACT_TRA-00000-unknown'), null);
    });
  });

  describe('transfers and their magic account numbers', () => {
    async function settleOnce(accountNumber: string, merchantTxRef: string) {
      const submitted = await transfer(accountNumber, merchantTxRef);
      assert.equal(submitted.status, 'PROCESSING');
      return client.getTransaction(merchantTxRef);
    }

    it('any other ending: PROCESSING on submit, SUCCESS at the first status check, signed payout_success', async () => {
      const merchantTxRef = uniqueRef('stl');
      const submitted = await transfer('0123456789', `${merchantTxRef}-1`);
      assert.equal(submitted.status, 'PROCESSING');
      assert.equal(submitted.amountKobo, 150_050n);
      assert.equal(submitted.feeKobo, 1_000n);
      assert.equal(submitted.merchantTxRef, `${merchantTxRef}-1`);
      assert.match(submitted.id, /^API-BANK_TRF-/);
      assert.equal((await transfersOf(merchantTxRef)).payouts, 0, 'nothing is paid before the first status check');

      const byId = await client.getTransaction(submitted.id);
      assert.equal(byId?.status, 'SUCCESS');
      assert.equal(byId?.type, 'transfer');
      assert.equal(byId?.merchantTxRef, `${merchantTxRef}-1`);
      assert.equal(byId?.aliasAccountReference, null);
      assert.equal((await client.getTransaction(`${merchantTxRef}-1`))?.id, submitted.id);

      const webhook = await receiver.waitFor((w) => w.payload.event_type === 'payout_success');
      assert.ok(verifies(webhook));
      assert.deepEqual(Object.keys(webhook.payload.data.transaction), [
        'transactionId',
        'type',
        'time',
        'responseCode',
        'transactionAmount',
        'fee',
        'currency',
        'merchantTxRef',
        'narration',
      ]);
      assert.equal(webhook.payload.data.transaction.transactionId, submitted.id);
      assert.equal(webhook.payload.data.transaction.type, 'transfer');
      assert.equal(webhook.payload.data.transaction.merchantTxRef, `${merchantTxRef}-1`);
      assert.equal(webhook.payload.data.transaction.transactionAmount, 1500.5);
      assert.equal(webhook.payload.data.transaction.fee, 10);
      assert.equal(webhook.payload.data.transaction.narration, 'settlement');
      assert.match(webhook.payload.requestId, UUID_RE);

      const view = await transfersOf(merchantTxRef);
      assert.equal(view.payouts, 1);
      assert.deepEqual(
        view.submissions.map((s) => [s.reference, s.status, s.amount, s.fee]),
        [[`${merchantTxRef}-1`, 'SUCCESS', 1500.5, 10]],
      );
    });

    it('charges 10 below 5,000, 25 up to 50,000 and 50 above', async () => {
      const cases: Array<[bigint, bigint]> = [
        [499_999n, 1_000n],
        [500_000n, 2_500n],
        [5_000_000n, 2_500n],
        [5_000_001n, 5_000n],
      ];
      for (const [amountKobo, feeKobo] of cases) {
        assert.equal((await transfer('0123456789', uniqueRef('fee'), amountKobo)).feeKobo, feeKobo, String(amountKobo));
      }
    });

    it('a reused merchantTxRef returns the original transfer, never a second payout', async () => {
      const merchantTxRef = uniqueRef('dup');
      const first = await transfer('0123456789', merchantTxRef);
      assert.equal((await client.getTransaction(merchantTxRef))?.status, 'SUCCESS');
      const again = await transfer('0123456789', merchantTxRef, 999_999n);
      assert.equal(again.id, first.id);
      assert.equal(again.amountKobo, 150_050n);
      assert.equal(again.status, 'SUCCESS');
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => transfer('0123456789', merchantTxRef)));
      assert.ok(concurrent.every((t) => t.id === first.id));
      const view = await transfersOf(merchantTxRef);
      assert.equal(view.submissions.length, 1);
      assert.equal(view.payouts, 1);
    });

    it('1111: every submission is accepted then fails at the first status check', async () => {
      const merchantTxRef = uniqueRef('fail');
      for (const attempt of [1, 2, 3]) {
        assert.equal(
          (await settleOnce(magicAccountNumber('failsEverySubmission'), `${merchantTxRef}-${attempt}`))?.status,
          'PAYMENT_FAILED',
          `attempt ${attempt}`,
        );
      }
      const view = await transfersOf(merchantTxRef);
      assert.equal(view.submissions.length, 3);
      assert.equal(view.payouts, 0);
      await receiver.waitFor(() => receiver.received.filter((w) => w.payload.event_type === 'payout_failed').length === 3);
      const failed = receiver.received.filter((w) => w.payload.event_type === 'payout_failed');
      assert.deepEqual(
        failed.map((w) => w.payload.data.transaction.merchantTxRef).sort(),
        [1, 2, 3].map((n) => `${merchantTxRef}-${n}`),
      );
      assert.ok(failed.every((w) => verifies(w)));
    });

    it('2222: the first two submissions of a base reference fail, the third succeeds', async () => {
      const merchantTxRef = uniqueRef('third');
      const statuses = [];
      for (const attempt of [1, 2, 3])
        statuses.push((await settleOnce(magicAccountNumber('failsTwiceThenSucceeds'), `${merchantTxRef}-${attempt}`))?.status);
      assert.deepEqual(statuses, ['PAYMENT_FAILED', 'PAYMENT_FAILED', 'SUCCESS']);
      assert.equal((await transfersOf(merchantTxRef)).payouts, 1);
      // Counting is per base reference: another settlement starts again from its first submission.
      assert.equal((await settleOnce(magicAccountNumber('failsTwiceThenSucceeds'), `${uniqueRef('third')}-1`))?.status, 'PAYMENT_FAILED');
    });

    it('3333: succeeds, then is refunded after SANDBOX_REFUND_DELAY and still counts as a payout', async () => {
      const merchantTxRef = uniqueRef('refund');
      assert.equal((await settleOnce(magicAccountNumber('refundedAfterSuccess'), `${merchantTxRef}-1`))?.status, 'SUCCESS');
      assert.equal((await client.getTransaction(`${merchantTxRef}-1`))?.status, 'SUCCESS');
      const refund = await receiver.waitFor((w) => w.payload.event_type === 'payout_refund');
      assert.ok(verifies(refund));
      assert.equal(refund.payload.data.transaction.merchantTxRef, `${merchantTxRef}-1`);
      assert.equal((await client.getTransaction(`${merchantTxRef}-1`))?.status, 'REFUND');
      const view = await transfersOf(merchantTxRef);
      assert.equal(view.payouts, 1);
      assert.equal(view.submissions[0]?.status, 'REFUND');
      assert.deepEqual(
        receiver.received.map((w) => w.payload.event_type),
        ['payout_success', 'payout_refund'],
      );
    });

    it('4444: the submit times out (ProviderUnavailableError) although the transfer exists and succeeds', async () => {
      const merchantTxRef = uniqueRef('held');
      const started = Date.now();
      await assert.rejects(
        transfer(magicAccountNumber('submitTimesOut'), `${merchantTxRef}-1`, undefined, hastyClient()),
        (error: unknown) => {
          isUnavailable(error);
          assert.match((error as Error).message, /timed out/);
          return true;
        },
      );
      const elapsed = Date.now() - started;
      // The client's own timeout, not the sandbox dropping the held response 5 s past it.
      assert.ok(elapsed >= PROVIDER_TIMEOUT_MS - 50 && elapsed < PROVIDER_TIMEOUT_MS + 4_000, `timed out after ${elapsed} ms`);

      const view = await transfersOf(merchantTxRef);
      assert.equal(view.submissions.length, 1, 'the provider recorded the transfer');
      // Retrying the same attempt reference finds the transfer instead of paying twice.
      const retried = await transfer(magicAccountNumber('submitTimesOut'), `${merchantTxRef}-1`);
      assert.equal(retried.id, view.submissions[0]?.id);
      assert.equal((await client.getTransaction(`${merchantTxRef}-1`))?.status, 'SUCCESS');
      assert.equal((await transfersOf(merchantTxRef)).payouts, 1);
    });

    it('5555: PROCESSING for SANDBOX_PROCESSING_TIME, then SUCCESS with a payout_success webhook', async () => {
      const merchantTxRef = uniqueRef('slow');
      assert.equal((await settleOnce(magicAccountNumber('processingThenSucceeds'), `${merchantTxRef}-1`))?.status, 'PROCESSING');
      assert.equal((await client.getTransaction(`${merchantTxRef}-1`))?.status, 'PROCESSING');
      assert.equal((await transfersOf(merchantTxRef)).payouts, 0);
      const webhook = await receiver.waitFor((w) => w.payload.event_type === 'payout_success');
      assert.ok(verifies(webhook));
      assert.equal((await client.getTransaction(`${merchantTxRef}-1`))?.status, 'SUCCESS');
      assert.equal((await transfersOf(merchantTxRef)).payouts, 1);
    });

    it('rejects an unknown bank code and records nothing', async () => {
      const merchantTxRef = uniqueRef('bank');
      await assert.rejects(
        client.submitTransfer({
          amountKobo: 100_00n,
          accountNumber: '0123456789',
          accountName: 'A',
          bankCode: '000',
          merchantTxRef,
          senderName: 'S',
        }),
        isRejected(400, '01', 'invalid bank code'),
      );
      const view = await transfersOf(merchantTxRef);
      assert.deepEqual([view.submissions, view.payouts], [[], 0]);
      assert.ok(
        view.calls.length >= 1 && view.calls.every((call) => call.route === 'submit'),
        'the call is logged even though it was refused',
      );
    });

    it('lists a reference and its -<n> attempts only', async () => {
      const base = uniqueRef('list');
      for (const reference of [base, `${base}-1`, `${base}-12`, `${base}x-1`, `${base}-a`]) await transfer('0123456789', reference);
      assert.deepEqual(
        (await transfersOf(base)).submissions.map((s) => s.reference),
        [base, `${base}-1`, `${base}-12`],
      );
    });
  });

  describe("the provider's bad days (magic values and profiles)", () => {
    afterEach(async () => {
      await control('DELETE', '/sandbox/profiles');
    });

    const lookup = (reference: string) => client.getTransaction(reference);

    it('6666: the submit times out, the transfer is "not found" during its lookup lag, and a repeated reference is answered 409', async () => {
      const ref = `${uniqueRef('dup409')}-1`;
      await assert.rejects(transfer(magicAccountNumber('hiddenAfterTimeout'), ref, undefined, hastyClient()), isUnavailable);
      assert.equal(await lookup(ref), null, 'lookup lag: not found although accepted');
      await assert.rejects(transfer(magicAccountNumber('hiddenAfterTimeout'), ref), isRejected(409, '409', 'duplicate merchantTxRef'));
      await sleep(PROCESSING_TIME_MS + 50);
      assert.equal((await lookup(ref))?.status, 'SUCCESS');
      const view = await transfersOf(ref.replace(/-1$/, ''));
      assert.deepEqual([view.submissions.length, view.payouts], [1, 1]);
    });

    it('a profile can answer a duplicate with a 400 whose description says the reference exists', async () => {
      const prefix = uniqueRef('described');
      const created = await control<{ id: number }>('POST', '/sandbox/profiles', {
        match: { referencePrefix: prefix },
        duplicateReference: 'described',
      });
      assert.equal(created.status, 201);
      await transfer('0123456789', `${prefix}-1`);
      await assert.rejects(transfer('0123456789', `${prefix}-1`), isRejected(400, '26', 'transaction reference already exists'));
      const other = `${uniqueRef('other')}-1`;
      const original = await transfer('0123456789', other);
      assert.equal((await transfer('0123456789', other)).id, original.id, 'outside the profile a repeat still answers the original');
    });

    it('0909: the submit answers HTTP 200 with the pending code 09; the transfer exists and succeeds', async () => {
      const ref = `${uniqueRef('pending')}-1`;
      await assert.rejects(transfer(magicAccountNumber('pendingCode'), ref), isRejected(200, '09', 'request processing in progress'));
      assert.equal((await lookup(ref))?.status, 'SUCCESS');
    });

    it('4040: an unexplained 400 although recorded; the first lookup says not found, then it has succeeded', async () => {
      const ref = `${uniqueRef('err400')}-1`;
      await assert.rejects(transfer(magicAccountNumber('errorAfterRecording'), ref), isRejected(400, '96', 'system malfunction'));
      assert.equal(await lookup(ref), null);
      assert.equal((await lookup(ref))?.status, 'SUCCESS');
      assert.equal((await transfersOf(ref.replace(/-1$/, ''))).payouts, 1);
    });

    it('7777: PROCESSING (for days) until the control route settles it', async () => {
      const ref = `${uniqueRef('stuck')}-1`;
      await transfer(magicAccountNumber('stuckProcessing'), ref);
      await sleep(PROCESSING_TIME_MS + 50);
      assert.equal((await lookup(ref))?.status, 'PROCESSING');
      assert.equal((await control('POST', `/sandbox/transfers/${ref}/settle`, { status: 'SUCCESS' })).status, 200);
      assert.equal((await lookup(ref))?.status, 'SUCCESS');
      assert.equal((await control<ErrorBody>('POST', `/sandbox/transfers/${ref}/settle`, {})).status, 409);
      await receiver.waitFor((w) => w.payload.event_type === 'payout_success' && w.payload.data.transaction.merchantTxRef === ref);
    });

    it('8888: the failed first submission is later refunded (the failed debit returned); no payout is made for it', async () => {
      const base = uniqueRef('failrefund');
      assert.equal((await settleOnce8888(base)).status, 'PAYMENT_FAILED');
      await receiver.waitFor((w) => w.payload.event_type === 'payout_refund' && w.payload.data.transaction.merchantTxRef === `${base}-1`);
      assert.equal((await lookup(`${base}-1`))?.status, 'REFUND');
      await transfer(magicAccountNumber('failedAttemptRefunded'), `${base}-2`);
      assert.equal((await lookup(`${base}-2`))?.status, 'SUCCESS');
      const view = await transfersOf(base);
      assert.deepEqual([view.payouts, view.standingPayouts], [1, 1]);
      assert.deepEqual(
        view.submissions.map((submission) => [submission.status, submission.paidOut, submission.refunded]),
        [
          ['REFUND', false, true],
          ['SUCCESS', true, false],
        ],
      );
    });

    async function settleOnce8888(base: string) {
      await transfer(magicAccountNumber('failedAttemptRefunded'), `${base}-1`);
      return (await lookup(`${base}-1`))!;
    }

    it('3030: payout_refund arrives while the lookup still shows SUCCESS', async () => {
      const ref = `${uniqueRef('refundlag')}-1`;
      await transfer(magicAccountNumber('refundedWhileLookupShowsSuccess'), ref);
      assert.equal((await lookup(ref))?.status, 'SUCCESS');
      await receiver.waitFor((w) => w.payload.event_type === 'payout_refund' && w.payload.data.transaction.merchantTxRef === ref);
      assert.equal((await lookup(ref))?.status, 'SUCCESS', 'the lookup lags behind the webhook');
      await sleep(PROCESSING_TIME_MS + 50);
      assert.equal((await lookup(ref))?.status, 'REFUND');
      const view = await transfersOf(ref.replace(/-1$/, ''));
      assert.deepEqual([view.payouts, view.standingPayouts], [1, 0]);
    });

    it('3300: payout webhooks come twice each, with new request ids, and payout_success after payout_refund', async () => {
      const ref = `${uniqueRef('outoforder')}-1`;
      await transfer(magicAccountNumber('refundedWithWebhooksOutOfOrder'), ref);
      assert.equal((await lookup(ref))?.status, 'SUCCESS');
      await receiver.waitFor(() => receiver.received.filter((w) => w.payload.data.transaction.merchantTxRef === ref).length === 4);
      const mine = receiver.received.filter((w) => w.payload.data.transaction.merchantTxRef === ref);
      assert.deepEqual(
        mine.map((w) => w.payload.event_type),
        ['payout_refund', 'payout_refund', 'payout_success', 'payout_success'],
      );
      assert.equal(new Set(mine.map((w) => w.payload.requestId)).size, 4);
      assert.ok(mine.every((w) => verifies(w)));
    });

    it('4290 / 5030 / 5020: every call about the transfer, and the name lookup, fails for SANDBOX_PROCESSING_TIME', async () => {
      const cases = [
        [
          magicAccountNumber('throttled'),
          (error: unknown) => isUnavailable(error) && (error as ProviderUnavailableError).retryAfterMs === 1_000,
        ],
        [magicAccountNumber('unavailable'), (error: unknown) => isUnavailable(error) && /HTTP 503/.test((error as Error).message)],
        [magicAccountNumber('gatewayPage'), (error: unknown) => isUnavailable(error) && /HTTP 502/.test((error as Error).message)],
      ] as const;
      for (const [accountNumber, expected] of cases) {
        const ref = `${uniqueRef('outage')}-1`;
        await assert.rejects(client.lookupAccount({ accountNumber, bankCode: '058' }), expected, `${accountNumber} name lookup`);
        await assert.rejects(transfer(accountNumber, ref), expected, `${accountNumber} submit`);
        assert.equal((await transfersOf(ref.replace(/-1$/, ''))).submissions.length, 0, 'nothing recorded during the outage');
        await assert.rejects(lookup(ref), expected, `${accountNumber} lookup`);
      }
      await sleep(PROCESSING_TIME_MS + 50);
      const ref = `${uniqueRef('after')}-1`;
      assert.equal(
        (await client.lookupAccount({ accountNumber: magicAccountNumber('throttled'), bankCode: '058' }))?.accountNumber,
        magicAccountNumber('throttled'),
      );
      await assert.rejects(
        transfer(magicAccountNumber('throttled'), ref),
        isUnavailable,
        'a new base reference opens its own outage window',
      );
    });

    it('a lookup-lag profile for a destination, and the call log per base reference', async () => {
      await control('POST', '/sandbox/profiles', { match: { accountNumber: '0123450001' }, lookupLagMs: 300 });
      const base = uniqueRef('lag');
      await transfer('0123450001', `${base}-1`);
      assert.equal(await lookup(`${base}-1`), null);
      await sleep(350);
      assert.equal((await lookup(`${base}-1`))?.status, 'SUCCESS');
      const view = await transfersOf(base);
      // A submit refused for an expired token and retried by the client counts twice: both reached the provider.
      assert.deepEqual(view.calls.filter((call) => call.route === 'lookup').length, 2);
      assert.equal(view.calls[0]?.route, 'submit');
      assert.ok(view.calls.every((call) => ISO_MS_RE.test(call.at)));
    });

    it('validates profiles, and DELETE goes back to the environment', async () => {
      assert.equal((await control('POST', '/sandbox/profiles', { lookupLagMs: -1 })).status, 400);
      assert.equal((await control('POST', '/sandbox/profiles', { unknownField: true })).status, 400);
      assert.equal((await control('POST', '/sandbox/profiles', { match: { accountNumber: '12' } })).status, 400);
      assert.equal((await control('POST', '/sandbox/profiles', { outage: { answer: '418', durationMs: 1 } })).status, 400);
      const created = await control<{ id: number; match: unknown; profile: unknown }>('POST', '/sandbox/profiles', {
        outage: { answer: '429', durationMs: 10 },
      });
      assert.deepEqual(created.body.profile, { outage: { answer: '429', durationMs: 10, retryAfterSeconds: 1 } });
      assert.equal((await control<{ profiles: unknown[] }>('GET', '/sandbox/profiles')).body.profiles.length, 1);
      assert.deepEqual((await control('DELETE', '/sandbox/profiles')).body, { profiles: [] });
    });

    it('takes lag, duplicate answers and 429s from SANDBOX_LOOKUP_LAG, SANDBOX_DUPLICATE_REFERENCE and SANDBOX_THROTTLE_RATE', async () => {
      const harsh = createSandbox({
        config: loadConfig({
          ...env,
          SANDBOX_LOOKUP_LAG: '300ms',
          SANDBOX_DUPLICATE_REFERENCE: 'conflict',
          SANDBOX_THROTTLE_RATE: '1',
          SANDBOX_RETRY_AFTER: '2s',
        }),
        logger: silent,
      });
      const { server, url } = await listen(harsh.app.callback());
      try {
        const harshClient = newClient({ PROVIDER_BASE_URL: url });
        await assert.rejects(
          harshClient.listBanks(),
          (error: unknown) => isUnavailable(error) && (error as ProviderUnavailableError).retryAfterMs === 2_000,
        );
        await http(url, 'POST', '/sandbox/faults', { body: { throttleRate: 0 } });
        const ref = `${uniqueRef('env')}-1`;
        const submit = () =>
          harshClient.submitTransfer({
            amountKobo: 100_00n,
            accountNumber: '0123456789',
            accountName: 'A',
            bankCode: '058',
            merchantTxRef: ref,
            senderName: 'S',
          });
        await submit();
        assert.equal(await harshClient.getTransaction(ref), null);
        await assert.rejects(submit(), isRejected(409, '409'));
        await sleep(350);
        assert.equal((await harshClient.getTransaction(ref))?.status, 'SUCCESS');
      } finally {
        await harsh.close();
        await stop(server);
      }
    });
  });

  describe('identity verification', () => {
    const check = (nin: unknown, name: unknown = 'Ada Obi') =>
      http<{ verified?: boolean } & Partial<ErrorBody>>(sandboxUrl, 'POST', '/identity/nin', { body: { nin, name } });

    it('verifies an ordinary 11-digit NIN', async () => {
      assert.deepEqual(await check('12345678901'), { status: 200, body: { verified: true } });
    });

    it('does not verify a NIN ending 99', async () => {
      assert.deepEqual(await check(unverifiedNin('123456789')), { status: 200, body: { verified: false } });
    });

    it('is unavailable (503) for a NIN starting 000, even when it ends 99', async () => {
      for (const nin of [unavailableNin('12345678'), unavailableNin(unverifiedNin('123456'))]) {
        const { status, body } = await check(nin);
        assert.equal(status, 503, nin);
        assert.equal(body.code, '503');
      }
    });

    it('refuses anything but 11 digits, and a missing name', async () => {
      for (const nin of ['1234567890', '123456789012', '1234567890a', 12345678901])
        assert.equal((await check(nin)).status, 400, String(nin));
      assert.equal((await http(sandboxUrl, 'POST', '/identity/nin', { body: { nin: '12345678901' } })).status, 400);
    });
  });

  describe('fault injection', () => {
    afterEach(async () => {
      await control('DELETE', '/sandbox/faults');
    });

    it('fails provider calls with 503 before doing anything, leaving control routes alone', async () => {
      const { body: settings } = await control('POST', '/sandbox/faults', { failureRate: 1, latencyMs: 0 });
      assert.deepEqual(settings, { failureRate: 1, throttleRate: 0, retryAfterSeconds: 1, latencyMs: 0, routes: [] });
      assert.deepEqual((await control('GET', '/sandbox/faults')).body, settings);

      await assert.rejects(client.listBanks(), isUnavailable);
      const merchantTxRef = uniqueRef('fault');
      await assert.rejects(transfer('0123456789', merchantTxRef), isUnavailable);
      assert.equal((await transfersOf(merchantTxRef)).submissions.length, 0, 'an injected failure records nothing');
      await assert.rejects(newClient().listBanks(), isUnavailable, 'token issue fails too');
      const raw = await http<ErrorBody>(sandboxUrl, 'POST', '/identity/nin', { body: { nin: '12345678901', name: 'A' } });
      assert.deepEqual(raw, { status: 503, body: { code: '503', description: 'service temporarily unavailable (injected fault)' } });

      assert.equal((await pay({ accountRef: 'a', amount: '100' })).delivery.status, 200);

      assert.deepEqual((await control('DELETE', '/sandbox/faults')).body, {
        failureRate: 0,
        throttleRate: 0,
        retryAfterSeconds: 1,
        latencyMs: 0,
        routes: [],
      });
      assert.ok((await client.listBanks()).length >= 20);
    });

    it('limits faults to the given route prefixes', async () => {
      await control('POST', '/sandbox/faults', { failureRate: 1, latencyMs: 0, routes: ['/v2/transfers'] });
      assert.ok((await client.listBanks()).length >= 20);
      await assert.rejects(transfer('0123456789', uniqueRef('fault')), isUnavailable);
    });

    it('adds latency, and latency beyond PROVIDER_TIMEOUT surfaces as ProviderUnavailableError', async () => {
      await client.listBanks(); // token cached, so only the measured call is delayed
      await control('POST', '/sandbox/faults', { failureRate: 0, latencyMs: 150 });
      const started = Date.now();
      await client.listBanks();
      assert.ok(Date.now() - started >= 140);
      const hasty = hastyClient();
      await control('POST', '/sandbox/faults', { failureRate: 0, latencyMs: 0 });
      await hasty.listBanks(); // its token cached too
      await control('POST', '/sandbox/faults', { failureRate: 0, latencyMs: PROVIDER_TIMEOUT_MS + 300 });
      await assert.rejects(hasty.listBanks(), (error: unknown) => isUnavailable(error) && /timed out/.test((error as Error).message));
    });

    it('validates fault settings', async () => {
      assert.equal((await control('POST', '/sandbox/faults', { failureRate: 2 })).status, 400);
      assert.equal((await control('POST', '/sandbox/faults', { failureRate: 0.5, routes: ['v1'] })).status, 400);
    });

    it('takes its defaults from SANDBOX_FAILURE_RATE and SANDBOX_LATENCY', async () => {
      const faulty = createSandbox({ config: loadConfig({ ...env, SANDBOX_FAILURE_RATE: '1', SANDBOX_LATENCY: '20ms' }), logger: silent });
      const { server, url } = await listen(faulty.app.callback());
      try {
        assert.deepEqual((await http(url, 'GET', '/sandbox/faults')).body, {
          failureRate: 1,
          throttleRate: 0,
          retryAfterSeconds: 1,
          latencyMs: 20,
          routes: [],
        });
        const issued = await http<ErrorBody>(url, 'POST', '/v1/auth/token/issue', {
          body: { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b' },
        });
        assert.equal(issued.status, 503);
        await http(url, 'POST', '/sandbox/faults', { body: { failureRate: 0 } });
        assert.equal(
          (
            await http(url, 'POST', '/v1/auth/token/issue', {
              body: { grant_type: 'client_credentials', client_id: 'a', client_secret: 'b' },
            })
          ).status,
          200,
        );
        assert.deepEqual((await http(url, 'DELETE', '/sandbox/faults')).body, {
          failureRate: 1,
          throttleRate: 0,
          retryAfterSeconds: 1,
          latencyMs: 20,
          routes: [],
        });
      } finally {
        await faulty.close();
        await stop(server);
      }
    });
  });

  describe('client error mapping against a scripted provider', () => {
    let scripted: { server: Server; url: string };
    let respond: (req: IncomingMessage, res: ServerResponse) => void;
    let calls: string[];

    before(async () => {
      scripted = await listen((req, res) => {
        calls.push(req.url ?? '');
        if (req.url === '/v1/auth/token/issue') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ code: '00', data: { access_token: 'tok', expiresAt: Date.now() / 1000 + 3600 } }));
          return;
        }
        respond(req, res);
      });
    });

    after(async () => {
      await stop(scripted.server);
    });

    beforeEach(() => {
      calls = [];
    });

    const scriptedClient = () => createProviderClient(loadConfig({ ...env, PROVIDER_BASE_URL: scripted.url }), silent);
    const reply = (status: number, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };

    it('treats 5xx, 408, 429, non-JSON and malformed data as unavailable', async () => {
      for (const [status, body] of [
        [500, '{"code":"500"}'],
        [502, '<html>bad gateway</html>'],
        [408, '{}'],
        [429, '{"code":"429","description":"slow down"}'],
        [200, 'not json'],
        [200, '{"code":"00","data":{"results":[{"bankCode":44}]}}'],
        [200, '{"code":"00","data":{"id":"t","status":"UNKNOWN","amount":1,"type":"x","timeCreated":"t"}}'],
      ] as const) {
        respond = reply(status, body);
        await assert.rejects(scriptedClient().listBanks(), isUnavailable, `${status} ${body}`);
      }
      respond = reply(200, '{"code":"00","data":{"id":"t","status":"SUCCESS","amount":1.005,"type":"x","timeCreated":"t"}}');
      await assert.rejects(scriptedClient().getTransaction('t'), isUnavailable, 'an amount with fractional kobo is not money');
      respond = reply(200, '{"code":"00","data":{"id":"t","status":"SUCCESS","amount":-5,"type":"x","timeCreated":"t"}}');
      await assert.rejects(scriptedClient().getTransaction('t'), isUnavailable, 'a negative amount is not a transaction');
    });

    it("reads Retry-After (seconds or a date), and takes a 4xx without the provider's JSON for an outage", async () => {
      respond = (_req, res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
        res.end('{"code":"429","description":"slow down"}');
      };
      await assert.rejects(
        scriptedClient().listBanks(),
        (error: unknown) => isUnavailable(error) && (error as ProviderUnavailableError).retryAfterMs === 7_000,
      );
      respond = (_req, res) => {
        res.writeHead(503, { 'content-type': 'text/html', 'retry-after': new Date(Date.now() + 30_000).toUTCString() });
        res.end('<html>maintenance</html>');
      };
      await assert.rejects(scriptedClient().listBanks(), (error: unknown) => {
        const after = (error as ProviderUnavailableError).retryAfterMs;
        return isUnavailable(error) && after !== null && after > 25_000 && after <= 30_000;
      });
      respond = (_req, res) => {
        res.writeHead(403, { 'content-type': 'text/html' });
        res.end('<html>request blocked</html>');
      };
      await assert.rejects(scriptedClient().listBanks(), isUnavailable);
    });

    it('treats a 4xx or a non-success code as a definite rejection', async () => {
      respond = reply(422, '{"code":"07","description":"limit exceeded"}');
      await assert.rejects(scriptedClient().listBanks(), isRejected(422, '07', 'limit exceeded'));
      respond = reply(200, '{"code":"99","description":"declined"}');
      await assert.rejects(scriptedClient().listBanks(), isRejected(200, '99', 'declined'));
      respond = reply(404, '{"code":"404","description":"route not found"}');
      await assert.rejects(
        scriptedClient().getTransaction('x'),
        isRejected(404, '404'),
        'a 404 without the not-found code is not "not found"',
      );
    });

    it('retries a 401 exactly once with a fresh token, then gives up with a rejection', async () => {
      respond = reply(401, '{"code":"401","description":"nope"}');
      await assert.rejects(scriptedClient().listBanks(), isRejected(401, '401'));
      assert.deepEqual(calls, ['/v1/auth/token/issue', '/v1/transfers/banks', '/v1/auth/token/issue', '/v1/transfers/banks']);
    });

    it('sends the bearer token, accountId and JSON naira amounts', async () => {
      let seen: { headers: IncomingHttpHeaders; body: string } | undefined;
      respond = (req, res) => {
        void readBody(req).then((body) => {
          seen = { headers: req.headers, body };
          reply(
            200,
            JSON.stringify({
              code: '200',
              data: { id: 'T1', status: 'PROCESSING', amount: 1500.5, fee: 10, meta: { merchantTxRef: 'm-1' }, timeCreated: 'now' },
            }),
          )(req, res);
        });
      };
      const result = await scriptedClient().submitTransfer({
        amountKobo: 150_050n,
        accountNumber: '0123456789',
        accountName: 'A',
        bankCode: '058',
        merchantTxRef: 'm-1',
        senderName: 'S',
      });
      assert.deepEqual(result, {
        id: 'T1',
        status: 'PROCESSING',
        amountKobo: 150_050n,
        feeKobo: 1_000n,
        merchantTxRef: 'm-1',
        timeCreated: 'now',
      });
      assert.equal(seen?.headers.authorization, 'Bearer tok');
      assert.equal(seen?.headers.accountid, clientConfig.PROVIDER_ACCOUNT_ID);
      assert.deepEqual(JSON.parse(seen?.body ?? '{}'), {
        amount: 1500.5,
        accountNumber: '0123456789',
        accountName: 'A',
        bankCode: '058',
        merchantTxRef: 'm-1',
        senderName: 'S',
      });
    });

    it('treats a refused connection as unavailable', async () => {
      const { server, url } = await listen(() => undefined);
      await stop(server);
      const closed = createProviderClient(loadConfig({ ...env, PROVIDER_BASE_URL: url }), silent);
      await assert.rejects(closed.listBanks(), isUnavailable);
    });
  });

  describe('robustness', () => {
    it('answers JSON 404 for unknown routes, 405 for a wrong method, 400 for malformed JSON', async () => {
      assert.deepEqual(await http(sandboxUrl, 'GET', '/no/such/route'), {
        status: 404,
        body: { code: '404', description: 'route not found' },
      });
      assert.equal((await http(sandboxUrl, 'GET', '/sandbox/reset')).status, 405);
      for (const path of ['/sandbox/payments', '/v1/auth/token/issue', '/identity/nin']) {
        const { status, body } = await http<ErrorBody>(sandboxUrl, 'POST', path, { rawBody: '{"amount": ' });
        assert.equal(status, 400, path);
        assert.equal(body.description, 'invalid json');
      }
    });

    it('names the invalid field in a validation error', async () => {
      const { status, body } = await control<ErrorBody>('POST', '/sandbox/payments', { amount: '10' });
      assert.equal(status, 400);
      assert.match(body.description, /^accountRef/);
    });

    it('reset forgets accounts, payments, transfers, events and runtime faults', async () => {
      const accountRef = uniqueRef('acct');
      const account = await client.createVirtualAccount({ accountRef, accountName: 'Ada' });
      const payment = await pay({ accountRef, amount: '100' });
      await transfer('0123456789', 'reset-me');
      await control('POST', '/sandbox/faults', { failureRate: 0, latencyMs: 5 });
      await control('POST', '/sandbox/profiles', { lookupLagMs: 1_000 });
      await control('POST', '/sandbox/reset');
      assert.equal(await client.getTransaction(payment.transactionId), null);
      assert.equal((await transfersOf('reset-me')).submissions.length, 0);
      assert.deepEqual((await control<WebhooksView>('GET', '/sandbox/webhooks')).body.events, []);
      assert.deepEqual((await control('GET', '/sandbox/faults')).body, {
        failureRate: 0,
        throttleRate: 0,
        retryAfterSeconds: 1,
        latencyMs: 0,
        routes: [],
      });
      assert.deepEqual((await control('GET', '/sandbox/profiles')).body, { profiles: [] });
      assert.notEqual((await client.createVirtualAccount({ accountRef, accountName: 'Ada' })).accountHolderId, account.accountHolderId);
    });

    it('never logs a full NIN, BVN, token or secret', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      });
      const logger = pino({ level: 'trace' }, sink);
      const chatty = createSandbox({ config: loadConfig(env), logger });
      const { server, url } = await listen(chatty.app.callback());
      try {
        const chattyClient = createProviderClient(
          loadConfig({ ...env, PROVIDER_BASE_URL: url, PROVIDER_CLIENT_SECRET: 'client-secret-do-not-log' }),
          logger,
        );
        await chattyClient.createVirtualAccount({ accountRef: 'logged', accountName: 'Ada', bvn: '22298765432' });
        await http(url, 'POST', '/identity/nin', { body: { nin: '12312312312', name: 'Ada' } });
        await http(url, 'POST', '/identity/nin', { body: { nin: unavailableNin('12312312'), name: 'Ada' } });
        const tokens = [...chatty.state.tokens.keys()];
        assert.ok(tokens.length > 0 && lines.length > 0);
        const logText = lines.join('');
        for (const secret of [
          '22298765432',
          '12312312312',
          unavailableNin('12312312'),
          'client-secret-do-not-log',
          SIGNING_SECRET,
          ...tokens,
        ]) {
          assert.ok(!logText.includes(secret), `log contains ${secret}`);
        }
      } finally {
        await chatty.close();
        await stop(server);
      }
    });
  });
});
