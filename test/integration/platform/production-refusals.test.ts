import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { call, eventually } from '../../helpers/http';
import { freePort } from '../../helpers/ports';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const MAIN = path.resolve(__dirname, '../../../src/main');

/** Everything production needs, none of it refusable. */
const PRODUCTION: Record<string, string> = {
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
  PROVIDER_WEBHOOKS_SIGNING_SECRET: 'a-real-secret-from-the-provider',
  REQUEST_HASH_SECRET: 'a-request-hash-secret-of-our-own-0123456789',
  PROVIDER_BASE_URL: 'https://api.provider.example.com',
  IDENTITY_VERIFICATION_URL: 'https://identity.provider.example.com/nin',
  PROVIDER_CLIENT_ID: 'live-client-id',
  PROVIDER_CLIENT_SECRET: 'live-client-secret',
  PROVIDER_ACCOUNT_ID: 'live-account-id',
  ALLOW_PRIVATE_CALLBACK_URLS: 'false',
  PASSWORD_SCRYPT_LOG_N: '17',
};

interface Exit {
  code: number | null;
  stderr: string;
}

/** Starts a real entrypoint; resolves when it exits (or is stopped after `runForMs`). */
function runEntrypoint(entrypoint: string, env: Record<string, string | undefined>, runForMs = 30_000, args: string[] = []): Promise<Exit> {
  const child = spawn(process.execPath, [path.join(MAIN, entrypoint), ...args], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), runForMs);
  return once(child, 'exit').then(([code]) => {
    clearTimeout(timer);
    return { code: code as number | null, stderr };
  });
}

describe('production refusals (the API process started with NODE_ENV=production)', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const bad: Array<[string, Record<string, string | undefined>]> = [
    ['PROVIDER_BASE_URL', { PROVIDER_BASE_URL: 'http://127.0.0.1:4010' }],
    ['PROVIDER_BASE_URL', { PROVIDER_BASE_URL: 'https://10.20.30.40' }],
    ['IDENTITY_VERIFICATION_URL', { IDENTITY_VERIFICATION_URL: 'https://[::1]/nin' }],
    ['PROVIDER_CLIENT_ID', { PROVIDER_CLIENT_ID: 'sandbox-client' }],
    ['PROVIDER_CLIENT_SECRET', { PROVIDER_CLIENT_SECRET: 'sandbox-secret' }],
    ['PROVIDER_ACCOUNT_ID', { PROVIDER_ACCOUNT_ID: undefined }],
    ['ALLOW_PRIVATE_CALLBACK_URLS', { ALLOW_PRIVATE_CALLBACK_URLS: 'true' }],
    ['DATA_ENCRYPTION_KEY', { DATA_ENCRYPTION_KEY: 'UADzT4+TdL/7B8uttdNNfjndg3KO7uXtNEpRaFnqpJE=' }],
    ['PROVIDER_WEBHOOKS_SIGNING_SECRET', { PROVIDER_WEBHOOKS_SIGNING_SECRET: 'change-me-provider-webhook-secret' }],
    ['REQUEST_HASH_SECRET', { REQUEST_HASH_SECRET: undefined }],
  ];

  it('exits 1 before listening, naming the variable, for each refused value', async () => {
    const port = await freePort();
    // A few at a time: each process loads the whole service before it reads its configuration.
    const exits: Exit[] = [];
    for (let start = 0; start < bad.length; start += 4) {
      const batch = bad
        .slice(start, start + 4)
        .map(([, override]) => runEntrypoint('api.js', { ...process.env, ...PRODUCTION, PORT: String(port), ...override }));
      exits.push(...(await Promise.all(batch)));
    }
    for (const [index, exit] of exits.entries()) {
      const [variable, override] = bad[index]!;
      assert.equal(exit.code, 1, `${JSON.stringify(override)}: exit ${exit.code}\n${exit.stderr}`);
      assert.match(exit.stderr, new RegExp(`^api: Invalid configuration:[\\s\\S]*- ${variable}: `), JSON.stringify(override));
    }
  });

  it('names every offending variable in one message', async () => {
    const everything = Object.assign({}, ...bad.map(([, override]) => override)) as Record<string, string | undefined>;
    const exit = await runEntrypoint('api.js', { ...process.env, ...PRODUCTION, PORT: String(await freePort()), ...everything });
    assert.equal(exit.code, 1);
    for (const variable of new Set(bad.map(([name]) => name))) assert.match(exit.stderr, new RegExp(`- ${variable}: `), variable);
  });

  it('the sandbox refuses to start at all', async () => {
    const exit = await runEntrypoint('sandbox.js', { ...process.env, ...PRODUCTION, SANDBOX_PORT: String(await freePort()) });
    assert.equal(exit.code, 1);
    assert.match(exit.stderr, /sandbox.*never runs with NODE_ENV=production/);
  });

  it('starts with a clean production configuration, and its session cookie is Secure', async () => {
    const tenant = await createTenant(stack);
    const email = `ops+${randomUUID()}@example.com`;
    await stack.services.auth.createUser(tenant.tenantId, email, 'a long dashboard password');
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [path.join(MAIN, 'api.js')], {
      env: { ...process.env, ...PRODUCTION, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await eventually(async () => (await call(apiUrl, 'GET', '/healthz')).status === 200, { what: 'the production API' });
      const login = await call(apiUrl, 'POST', '/auth/login', { body: { email, password: 'a long dashboard password' } });
      assert.equal(login.status, 200, login.text);
      assert.match(login.headers.get('set-cookie') ?? '', /^session=[^;]+;.*\bsecure\b/i);
      // Clearing it is Secure too (a browser ignores a plain Set-Cookie for a Secure cookie's name),
      // from sign-out and from the dashboard's "sign out everywhere".
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const everywhere = await call(apiUrl, 'POST', '/auth/sessions/sign-out-all', { cookie });
      assert.equal(everywhere.status, 200, everywhere.text);
      assert.match(everywhere.headers.get('set-cookie') ?? '', /^session=;.*\bsecure\b/i);
      const again = await call(apiUrl, 'POST', '/auth/login', { body: { email, password: 'a long dashboard password' } });
      const logout = await call(apiUrl, 'POST', '/auth/logout', { cookie: (again.headers.get('set-cookie') ?? '').split(';')[0]! });
      assert.equal(logout.status, 204, logout.text);
      assert.match(logout.headers.get('set-cookie') ?? '', /^session=;.*\bsecure\b/i);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('the production checks are on by default (entrypoints started with neither NODE_ENV nor ALLOW_DEVELOPMENT_SETTINGS)', () => {
  const UNSET = { NODE_ENV: undefined, ALLOW_DEVELOPMENT_SETTINGS: undefined };
  const SAMPLE_SECRET = { PROVIDER_WEBHOOKS_SIGNING_SECRET: 'sk_sandbox_provider_local_dev' };

  it('the API refuses the sample webhook secret, naming it and the development switch', async () => {
    const exit = await runEntrypoint('api.js', {
      ...process.env,
      ...PRODUCTION,
      ...UNSET,
      ...SAMPLE_SECRET,
      PORT: String(await freePort()),
    });
    assert.equal(exit.code, 1, exit.stderr);
    assert.match(exit.stderr, /^api: Invalid configuration:[\s\S]*- PROVIDER_WEBHOOKS_SIGNING_SECRET: [^\n]*published/);
    assert.match(exit.stderr, /ALLOW_DEVELOPMENT_SETTINGS=true \(with NODE_ENV=development\) relaxes them/);
  });

  it("the API refuses the provider documentation's and the test vectors' signing keys, even with the development switch on while NODE_ENV is unset", async () => {
    const keys = ['HkatexKDZg7CLWy96q5sfrVHSvtoz92B', 'sk_sandbox_provider_4f1c2e9a7b3d'];
    const exits = await Promise.all(
      keys.flatMap((key) =>
        [UNSET, { ...UNSET, ALLOW_DEVELOPMENT_SETTINGS: 'true' }].map(async (unset) =>
          runEntrypoint('api.js', {
            ...process.env,
            ...PRODUCTION,
            ...unset,
            PROVIDER_WEBHOOKS_SIGNING_SECRET: key,
            PORT: String(await freePort()),
          }),
        ),
      ),
    );
    for (const exit of exits) {
      assert.equal(exit.code, 1, exit.stderr);
      assert.match(exit.stderr, /^api: Invalid configuration:[\s\S]*- PROVIDER_WEBHOOKS_SIGNING_SECRET: [^\n]*published/);
    }
  });

  it('the worker, the CLI and the sandbox refuse the local defaults', async () => {
    const bare = {
      ...process.env,
      ...UNSET,
      DATA_ENCRYPTION_KEY: undefined,
      REQUEST_HASH_SECRET: undefined,
      PROVIDER_WEBHOOKS_SIGNING_SECRET: undefined,
    };
    const [worker, cli, sandbox] = await Promise.all([
      runEntrypoint('worker.js', bare),
      runEntrypoint('cli.js', bare, 30_000, ['db:migrate']),
      runEntrypoint('sandbox.js', { ...bare, SANDBOX_PORT: String(await freePort()) }),
    ]);
    for (const [name, exit] of [
      ['worker', worker],
      ['cli', cli],
      ['sandbox', sandbox],
    ] as const) {
      assert.equal(exit.code, 1, `${name}: ${exit.stderr}`);
      for (const variable of ['DATA_ENCRYPTION_KEY', 'REQUEST_HASH_SECRET', 'PROVIDER_WEBHOOKS_SIGNING_SECRET', 'PROVIDER_BASE_URL']) {
        assert.match(exit.stderr, new RegExp(`- ${variable}: `), `${name}: ${variable}`);
      }
    }
  });

  it('the API starts with values of its own and no NODE_ENV', async () => {
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [path.join(MAIN, 'api.js')], {
      env: { ...process.env, ...PRODUCTION, ...UNSET, PORT: String(port) } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await eventually(async () => (await call(apiUrl, 'GET', '/healthz')).status === 200, { what: 'the API without NODE_ENV' });
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });
});
