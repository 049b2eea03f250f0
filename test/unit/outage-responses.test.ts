import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import { ProviderOutageError } from '../../src/errors';
import type { AppState } from '../../src/http/context';
import { errorHandler } from '../../src/http/middleware/errors';
import { requestContext } from '../../src/http/middleware/request-context';

type LogLine = Record<string, unknown> & { level: number; msg: string };

/** The API's error handling in front of a route that throws `error`, logging at warn (as an operator runs it). */
async function answerTo(error: Error): Promise<{ status: number; body: Record<string, unknown>; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const app = new Koa<AppState>();
  app.use(requestContext(pino({ level: 'warn' }, sink)));
  app.use(errorHandler());
  app.use(() => {
    throw error;
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/accounts/ACC1`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, lines };
  } finally {
    server.close();
  }
}

/** A Postgres error as pg raises it: a message and the server's SQLSTATE. */
function postgresError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL' });
}

describe('503 answers reach the log', () => {
  it('logs a retryable database failure at warn with its Postgres code, message and path', async () => {
    const { status, body, lines } = await answerTo(postgresError('57P01', 'terminating connection due to administrator command'));
    assert.equal(status, 503);
    assert.equal(body.code, 'unavailable');
    const warning = lines.find((line) => line.level === 40);
    assert.ok(warning, `no warning logged: ${JSON.stringify(lines)}`);
    assert.equal(warning.dbCode, '57P01');
    assert.equal(warning.path, '/v1/accounts/ACC1');
    assert.match(String((warning.err as { message?: string }).message), /terminating connection/);
    assert.equal(warning.requestId, body.requestId);
  });

  it('names a lost connection without a Postgres code by its error', async () => {
    const { status, lines } = await answerTo(new Error('Connection terminated unexpectedly'));
    assert.equal(status, 503);
    assert.equal(lines.find((line) => line.level === 40)?.dbCode, 'Error');
  });

  it('logs a 503 the service decides on (a provider outage) at warn, with its code and reason', async () => {
    const { status, body, lines } = await answerTo(new ProviderOutageError(2));
    assert.equal(status, 503);
    assert.equal(body.code, 'provider_unavailable');
    const warning = lines.find((line) => line.level === 40);
    assert.ok(warning, `no warning logged: ${JSON.stringify(lines)}`);
    assert.equal(warning.code, 'provider_unavailable');
    assert.match(String(warning.reason), /provider unavailable/);
    assert.equal(warning.path, '/v1/accounts/ACC1');
  });
});
