import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertCallbackUrlAllowed, isPrivateAddress } from '../../src/net/address-policy';
import { postJson } from '../../src/webhooks/http-sender';

describe('callback URL guard', () => {
  it('classifies private, loopback, link-local and mapped addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.8',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      'not-an-ip',
    ]) {
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

  it('refuses the IPv6 forms that carry a private IPv4 address: [::127.0.0.1], ::/96, hex IPv4-mapped, 6to4, Teredo, NAT64, documentation', async () => {
    const embedded = [
      '::7f00:1',
      '::a00:1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '2002:7f00:1::1',
      '2002:a00:1::',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '64:ff9b::a00:1',
      '2001:db8::1',
      '::',
    ];
    for (const address of embedded) assert.equal(isPrivateAddress(address), true, address);
    for (const url of [
      'http://[::127.0.0.1]:9/hook',
      'http://[::ffff:7f00:1]/hook',
      'https://[2002:7f00:1::1]/hook',
      'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    ]) {
      await assert.rejects(assertCallbackUrlAllowed(url, { allowPrivate: false, requireHttps: false }), /private or loopback/, url);
    }
  });

  it('refuses an IP-literal callback at send time without connecting, and reports failures without internal detail', async () => {
    let received = 0;
    const server = http.createServer((_request, response) => {
      received += 1;
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
        const refused = await postJson(`http://${host}:${port}/hook`, '{}', {}, { timeoutMs: 2_000, allowPrivate: false });
        assert.deepEqual([refused.statusCode, refused.error], [null, 'refused: private address'], host);
      }
      assert.equal(received, 0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // The port is closed now: the error names the failure, not the address and port behind it.
    const closed = await postJson(`http://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 2_000, allowPrivate: true });
    assert.equal(closed.error, 'connection refused');
  });
});
