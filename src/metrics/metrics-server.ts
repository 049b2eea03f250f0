import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import type { Logger } from '../logger';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

function authorised(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * `GET /metrics` in Prometheus' text format on a port of its own, apart from the API (so a proxy in front
 * of the API never exposes it), on loopback unless configured otherwise. Open without a token; with one,
 * only `Authorization: Bearer <token>`.
 * `render` builds the text at each scrape.
 */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  token?: string;
  logger: Logger;
  render: () => Promise<string>;
}): Promise<MetricsServer> {
  const { token, logger, render } = options;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: scrape GET /metrics\n');
      return;
    }
    if (!authorised(request.headers.authorization, token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('unauthorized\n');
      return;
    }
    render().then(
      (text) =>
        response.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        logger.error({ err: error }, 'metrics scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve));
  const port = (server.address() as AddressInfo).port;
  logger.info(
    { host: options.host, port, bearerToken: token ? 'required' : 'not required' },
    `metrics listening on ${options.host}:${port}, ${token ? 'bearer token required' : 'open to whoever reaches that address'}`,
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
