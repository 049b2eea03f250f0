import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { createTemporalClient, isTemporalReachable } from '../../../src/temporal/client';
import { provisionAccount, statement } from '../../helpers/fixtures';
import { call, eventually } from '../../helpers/http';
import { createTenant, startStack, type Stack } from '../../helpers/stack';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../../src/main/cli.js');
const SERVER_NAME = 'temporal.test';

/** A private CA, a server certificate for temporal.test and a client certificate, made with the openssl CLI. */
async function makeCertificates(dir: string): Promise<Record<'ca' | 'serverCert' | 'serverKey' | 'clientCert' | 'clientKey', string>> {
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=ledger test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  const leaf = async (name: string, subject: string, extensions: string): Promise<void> => {
    writeFileSync(path.join(dir, `${name}.ext`), extensions);
    await openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    await openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  };
  await leaf('server', `/CN=${SERVER_NAME}`, `subjectAltName=DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  await leaf('client', '/CN=ledger-worker', 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  const at = (file: string) => path.join(dir, file);
  return {
    ca: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
  };
}

/**
 * A TLS-terminating proxy in front of the dev server (which speaks plaintext gRPC): it requires a
 * client certificate from our CA (mTLS), offers HTTP/2 by ALPN as gRPC needs, and pipes the bytes on.
 */
async function tlsProxy(files: Awaited<ReturnType<typeof makeCertificates>>, upstream: { host: string; port: number }) {
  const accepted: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      key: readFileSync(files.serverKey),
      cert: readFileSync(files.serverCert),
      ca: readFileSync(files.ca),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      accepted.push(String(client.getPeerCertificate().subject?.CN));
      const backend = net.connect(upstream.port, upstream.host);
      for (const socket of [client, backend]) {
        sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(backend).pipe(client);
    },
  );
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('Temporal over TLS (mTLS through a TLS-terminating proxy)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'ledger-tls-'));
  let files: Awaited<ReturnType<typeof makeCertificates>>;
  let proxy: Awaited<ReturnType<typeof tlsProxy>>;
  let stack: Stack;
  let tlsEnv: Record<string, string>;

  before(async () => {
    files = await makeCertificates(dir);
    const [host, port] = (process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233').split(':');
    proxy = await tlsProxy(files, { host: host!, port: Number(port) });
    tlsEnv = {
      TEMPORAL_ADDRESS: proxy.address,
      TEMPORAL_TLS_CA: files.ca,
      TEMPORAL_TLS_CERT: files.clientCert,
      TEMPORAL_TLS_KEY: files.clientKey,
      TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    };
    stack = await startStack({ ...tlsEnv, CONFIRMATION_WINDOW: '3s', CONFIRMATION_POLL_INTERVAL: '500ms' }, { worker: true });
  });
  after(async () => {
    await stack?.close();
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the API client and the worker connect through it with the client certificate; a payment is confirmed', async () => {
    const tenant = await createTenant(stack);
    const account = await provisionAccount(stack, tenant.apiKey);
    const sent = await call(stack.sandboxUrl, 'POST', '/sandbox/payments', { body: { accountRef: account.AccountRef, amount: 5025 } });
    await eventually(
      async () =>
        (await statement(stack, tenant.apiKey, account.AccountRef)).body.lines.find(
          (line: { entry: { ProviderTxnRef: string } }) => line.entry.ProviderTxnRef === sent.body.transactionId,
        )?.entry.Status === 'confirmed',
      { what: 'the confirmation over TLS' },
    );
    // The API's client answers readiness through the proxy (the worker started the batch itself, on its own connection).
    assert.equal((await call(stack.apiUrl, 'GET', '/readyz')).body.checks.temporal, 'up');
    // The API's client and the worker (polls, and its eager starts) each opened a TLS connection with our client certificate.
    assert.ok(proxy.accepted.length >= 2, `${proxy.accepted.length} TLS connection(s)`);
    assert.ok(proxy.accepted.every((subject) => subject === 'ledger-worker'));
  });

  it('refuses a client without a certificate, one that does not trust the CA, and plaintext', async () => {
    const attempts = {
      noCertificate: { TEMPORAL_TLS_CA: files.ca, TEMPORAL_TLS_SERVER_NAME: SERVER_NAME },
      unknownCa: { TEMPORAL_TLS_CERT: files.clientCert, TEMPORAL_TLS_KEY: files.clientKey, TEMPORAL_TLS_SERVER_NAME: SERVER_NAME },
      plaintext: {},
    };
    for (const [name, settings] of Object.entries(attempts)) {
      const client = createTemporalClient({ TEMPORAL_ADDRESS: proxy.address, TEMPORAL_NAMESPACE: 'default', ...settings });
      try {
        assert.equal(await isTemporalReachable(client, 1_500), false, name);
      } finally {
        await client.connection.close();
      }
    }
  });

  it('the CLI sets up the search attributes over TLS', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'temporal:setup', '--json'], { env: { ...process.env, ...tlsEnv } });
    assert.ok(Array.isArray(JSON.parse(stdout).added));
  });
});
