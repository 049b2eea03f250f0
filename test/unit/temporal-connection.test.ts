import type { ConnectionLike } from '@temporalio/client';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { DEVELOPMENT_SETTINGS } from '../helpers/config';
import { temporalConnectionOptions } from '../../src/temporal/connection-options';
import { MissingSearchAttributesError, registerSearchAttributes } from '../../src/main/register-search-attributes';

const grpcError = (code: number, message: string): Error => Object.assign(new Error(message), { code });

describe('Temporal connection settings', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'temporal-tls-'));
  const file = (name: string, text: string): string => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };
  const ca = file('ca.pem', 'CA');
  const cert = file('client.pem', 'CERT');
  const key = file('client.key', 'KEY');

  it('is plaintext with nothing set', () => {
    assert.deepEqual(temporalConnectionOptions(loadConfig(DEVELOPMENT_SETTINGS)), { address: '127.0.0.1:7233', tls: false });
  });

  it('reads the CA, the client certificate pair and the server name for (m)TLS', () => {
    const options = temporalConnectionOptions(
      loadConfig({
        ...DEVELOPMENT_SETTINGS,
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        TEMPORAL_TLS_CA: ca,
        TEMPORAL_TLS_CERT: cert,
        TEMPORAL_TLS_KEY: key,
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      }),
    );
    assert.deepEqual(options, {
      address: 'temporal.internal:7233',
      tls: {
        serverRootCACertificate: Buffer.from('CA'),
        clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
        serverNameOverride: 'temporal.internal',
      },
    });
  });

  it('an API key (Temporal Cloud) turns TLS on and names the namespace for regional endpoints', () => {
    const options = temporalConnectionOptions(
      loadConfig({
        ...DEVELOPMENT_SETTINGS,
        TEMPORAL_ADDRESS: 'eu-west-1.aws.api.temporal.io:7233',
        TEMPORAL_NAMESPACE: 'ledger.a1b2c',
        TEMPORAL_API_KEY: 'secret',
      }),
    );
    assert.deepEqual(options, {
      address: 'eu-west-1.aws.api.temporal.io:7233',
      tls: {},
      apiKey: 'secret',
      metadata: { 'temporal-namespace': 'ledger.a1b2c' },
    });
    assert.equal(temporalConnectionOptions(loadConfig({ ...DEVELOPMENT_SETTINGS, TEMPORAL_TLS: 'true' })).tls !== false, true);
    assert.equal(
      temporalConnectionOptions(loadConfig({ ...DEVELOPMENT_SETTINGS, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).tls,
      false,
      'an API key behind a TLS-terminating sidecar',
    );
  });

  it('refuses unreadable files, half a certificate pair, and TLS files with TEMPORAL_TLS=false', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig({ ...DEVELOPMENT_SETTINGS, ...env });
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    assert.match(problems({ TEMPORAL_TLS_CA: path.join(dir, 'missing.pem') }).join(), /TEMPORAL_TLS_CA: expected a readable file/);
    assert.match(problems({ TEMPORAL_TLS_CERT: cert }).join(), /TEMPORAL_TLS_KEY: mTLS needs both/);
    assert.match(problems({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: ca }).join(), /TEMPORAL_TLS: is false, but TLS settings are given/);
  });
});

describe('a Temporal beyond loopback under the production checks', () => {
  /** Everything else production needs, none of it refusable. */
  const PRODUCTION = {
    NODE_ENV: 'production',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    PROVIDER_WEBHOOKS_SIGNING_SECRET: 'a-real-secret-from-the-provider',
    REQUEST_HASH_SECRET: 'a-request-hash-secret-of-our-own-0123456789',
    PROVIDER_BASE_URL: 'https://api.provider.example.com',
    IDENTITY_VERIFICATION_URL: 'https://identity.provider.example.com/nin',
    PROVIDER_CLIENT_ID: 'client-id',
    PROVIDER_CLIENT_SECRET: 'client-secret',
    PROVIDER_ACCOUNT_ID: 'account-id',
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'temporal-prod-'));
  const cert = path.join(dir, 'client.pem');
  const key = path.join(dir, 'client.key');
  writeFileSync(cert, 'CERT');
  writeFileSync(key, 'KEY');
  const temporalProblems = (env: Record<string, string>): string[] => {
    try {
      loadConfig({ ...PRODUCTION, ...env });
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems.filter((problem) => problem.startsWith('TEMPORAL_'));
    }
  };

  it('needs TLS and a client credential, and says which is missing', () => {
    const remote = { TEMPORAL_ADDRESS: 'temporal.internal:7233' };
    const plain = temporalProblems(remote);
    assert.equal(plain.length, 2, plain.join('; '));
    assert.match(
      plain[0]!,
      /^TEMPORAL_TLS: TEMPORAL_ADDRESS is temporal\.internal:7233, beyond loopback, and the connection would be plaintext: set TEMPORAL_TLS=true/,
    );
    assert.match(
      plain[1]!,
      /^TEMPORAL_API_KEY: .*no client authentication: set TEMPORAL_API_KEY, or TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/,
    );
    assert.deepEqual(
      temporalProblems({ ...remote, TEMPORAL_TLS: 'true' }).map((problem) => problem.split(':')[0]),
      ['TEMPORAL_API_KEY'],
    );
    assert.deepEqual(
      temporalProblems({ ...remote, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'an-api-key' }).map((problem) => problem.split(':')[0]),
      ['TEMPORAL_TLS'],
    );
    assert.deepEqual(temporalProblems({ ...remote, TEMPORAL_API_KEY: 'an-api-key' }), []);
    assert.deepEqual(temporalProblems({ ...remote, TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key }), []);
    assert.equal(temporalProblems({ TEMPORAL_ADDRESS: '10.0.0.5:7233', NODE_ENV: '' }).length, 2, 'unset NODE_ENV is production');
  });

  it('allows a plaintext loopback address (a server or sidecar on this machine)', () => {
    for (const address of ['127.0.0.1:7233', 'localhost:7233', '[::1]:7233'])
      assert.deepEqual(temporalProblems({ TEMPORAL_ADDRESS: address }), [], address);
  });
});

describe('search attribute registration', () => {
  /** A server that knows `registered`, answers the operator API as told, and records what was added. */
  function fakeServer(registered: string[], operator: { list?: Error; add?: Error }) {
    const added: string[][] = [];
    const connection = {
      operatorService: {
        async listSearchAttributes() {
          if (operator.list) throw operator.list;
          return { customAttributes: Object.fromEntries(registered.map((name) => [name, 2])) };
        },
        async addSearchAttributes(request: { searchAttributes: Record<string, number> }) {
          if (operator.add) throw operator.add;
          added.push(Object.keys(request.searchAttributes));
          return {};
        },
      },
      workflowService: {
        async countWorkflowExecutions(request: { query: string }) {
          const name = request.query.split(' ')[0]!;
          if (!registered.includes(name)) throw grpcError(3, `invalid query: unknown search attribute ${name}`);
          return { count: 0 };
        },
      },
    } as unknown as ConnectionLike;
    return { connection, added };
  }

  it('adds only the missing attributes', async () => {
    const server = fakeServer(['TenantId', 'AccountRef'], {});
    assert.deepEqual(await registerSearchAttributes(server.connection, 'default'), [
      'MerchantTxRef',
      'SettlementStatus',
      'ReconciliationStatus',
      'ProviderTxnRefs',
      'AccountRefs',
    ]);
    assert.deepEqual(server.added, [['MerchantTxRef', 'SettlementStatus', 'ReconciliationStatus', 'ProviderTxnRefs', 'AccountRefs']]);
  });

  it('where the operator API is denied (Temporal Cloud), names every missing attribute in one error', async () => {
    const denied = grpcError(7, 'PermissionDenied: Request unauthorized');
    const server = fakeServer(['TenantId', 'AccountRef'], { list: denied, add: denied });
    await assert.rejects(registerSearchAttributes(server.connection, 'ledger.a1b2c'), (error: unknown) => {
      assert.ok(error instanceof MissingSearchAttributesError);
      assert.deepEqual(error.missing, ['MerchantTxRef', 'SettlementStatus', 'ReconciliationStatus', 'ProviderTxnRefs', 'AccountRefs']);
      assert.match(
        error.message,
        /lacks the search attribute\(s\) MerchantTxRef, SettlementStatus, ReconciliationStatus, ProviderTxnRefs, AccountRefs/,
      );
      assert.match(
        error.message,
        /tcld namespace search-attributes add --namespace ledger\.a1b2c --search-attribute MerchantTxRef=Keyword --search-attribute SettlementStatus=Keyword --search-attribute ReconciliationStatus=Keyword --search-attribute ProviderTxnRefs=KeywordList --search-attribute AccountRefs=KeywordList/,
      );
      return true;
    });
  });

  it('where the operator API is denied but every attribute exists, starts without adding anything', async () => {
    const denied = grpcError(7, 'PermissionDenied');
    const server = fakeServer(
      ['TenantId', 'AccountRef', 'MerchantTxRef', 'SettlementStatus', 'ReconciliationStatus', 'ProviderTxnRefs', 'AccountRefs'],
      { list: denied, add: denied },
    );
    assert.deepEqual(await registerSearchAttributes(server.connection, 'default'), []);
    assert.deepEqual(server.added, []);
  });
});
