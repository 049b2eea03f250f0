import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPrivateAddress } from '../../src/webhooks/callback-url';
import { postJson } from '../../src/webhooks/http-sender';

describe('callback URL guard', () => {
  it('classifies private, loopback, link-local and mapped addresses', () => {
    for (const address of ['127.0.0.1', '10.0.0.8', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', 'not-an-ip']) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    for (const address of ['8.8.8.8', '41.58.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });

  it('refuses to connect to a private address at delivery time unless allowed', async () => {
    const server = http.createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
    try {
      const refused = await postJson(url, '{}', {}, { timeoutMs: 2_000, allowPrivate: false });
      assert.equal(refused.statusCode, null);
      assert.match(refused.error ?? '', /private address/);
      const allowed = await postJson(url, '{}', {}, { timeoutMs: 2_000, allowPrivate: true });
      assert.equal(allowed.statusCode, 200);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
