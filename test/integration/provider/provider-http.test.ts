import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createProviderHttp } from '../../../src/provider/spec-provider/provider-http';

interface Seen {
  method: string;
  connection: number;
  onConnection: number;
}

/** A server that numbers its connections and the requests on each, and answers as `answer` says. */
async function provider(answer: (request: IncomingMessage, response: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const connections = new Map<Socket, { id: number; requests: number }>();
  const server: Server = createServer((request, response) => {
    const connection = connections.get(request.socket)!;
    connection.requests += 1;
    const now = { method: request.method!, connection: connection.id, onConnection: connection.requests };
    seen.push(now);
    request.resume();
    request.on('end', () => answer(request, response, now));
  });
  server.on('connection', (socket) => connections.set(socket, { id: connections.size + 1, requests: 0 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const ok = (response: ServerResponse) => response.setHeader('content-type', 'application/json').end('{"code":"00"}');

describe('HTTP to the provider (real HTTP)', () => {
  it('keeps one connection open across calls made one after another', async () => {
    const server = await provider((_request, response) => ok(response));
    const wire = createProviderHttp(server.url, 5_000);
    try {
      for (let call = 0; call < 3; call += 1) assert.equal((await wire.send('GET', '/v1/x', {})).text, '{"code":"00"}');
      assert.deepEqual(
        server.seen.map((seen) => seen.connection),
        [1, 1, 1],
      );
    } finally {
      wire.close();
      await server.stop();
    }
  });

  it('sends a GET once more on a new connection when a kept one was closed without an answer, never a POST', async () => {
    // The second request on any connection finds it closed, as a provider that dropped an idle connection does.
    const server = await provider((request, response, seen) => (seen.onConnection === 2 ? request.socket.destroy() : ok(response)));
    const wire = createProviderHttp(server.url, 5_000);
    try {
      await wire.send('GET', '/v1/x', {});
      assert.equal((await wire.send('GET', '/v1/x', {})).status, 200);
      assert.deepEqual(
        server.seen.map(({ connection, onConnection }) => [connection, onConnection]),
        [
          [1, 1],
          [1, 2],
          [2, 1],
        ],
      );
      await assert.rejects(wire.send('POST', '/v2/transfers/bank', {}, '{}'), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'ECONNRESET');
        return true;
      });
      assert.deepEqual(
        server.seen.filter((seen) => seen.method === 'POST').map(({ connection, onConnection }) => [connection, onConnection]),
        [[2, 2]],
      );
    } finally {
      wire.close();
      await server.stop();
    }
  });

  it('gives up at the deadline when no answer comes, naming it a timeout', async () => {
    const server = await provider(() => undefined);
    const wire = createProviderHttp(server.url, 200);
    try {
      await assert.rejects(wire.send('GET', '/v1/x', {}), { name: 'TimeoutError' });
    } finally {
      wire.close();
      await server.stop();
    }
  });

  it('reads a compressed answer, and an answer cut short is a failure, not a shorter body', async () => {
    const body = JSON.stringify({ code: '00', data: { note: 'x'.repeat(2_000) } });
    const server = await provider((request, response) => {
      if (request.url === '/cut') {
        response.writeHead(200, { 'content-length': '100' }).write('{"code":');
        setImmediate(() => request.socket.destroy());
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(body));
    });
    const wire = createProviderHttp(server.url, 5_000);
    try {
      assert.equal((await wire.send('GET', '/whole', {})).text, body);
      await assert.rejects(wire.send('POST', '/cut', {}, '{}'));
    } finally {
      wire.close();
      await server.stop();
    }
  });
});
