import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** What came back over the wire, before it is read as the provider's envelope. */
export interface ProviderHttpAnswer {
  status: number;
  text: string;
  retryAfter: string | null;
}

/** A connection kept open this long without a request is closed by us, before the provider closes it under a request. */
const IDLE_CONNECTION_MS = 4_000;
/** Connections open to the provider at once; more requests wait for one. */
const MAX_CONNECTIONS = 64;

const DECODERS: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** A deadline passed: named as `fetch` names it, so callers read one kind of timeout. */
function timeoutError(timeoutMs: number): Error {
  return Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
}

/**
 * HTTP to the provider over connections kept open between calls (each lookup, transfer and listing is one short
 * exchange, and opening a connection for each, or `fetch`'s streams and signals, cost the worker more than the call).
 * No redirect is followed; each exchange has a hard deadline for the whole answer. A GET whose reused connection
 * was closed before any answer (the provider closed it as it sat idle) goes once more on a new one; any other
 * request is never sent twice, since the provider may have acted on it.
 */
export function createProviderHttp(baseUrl: string, timeoutMs: number) {
  const transport = new URL(baseUrl).protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: MAX_CONNECTIONS, timeout: IDLE_CONNECTION_MS });

  function once(method: string, url: string, headers: Record<string, string>, body: string | undefined, deadlineAt: number) {
    return new Promise<ProviderHttpAnswer>((resolve, reject) => {
      const request = transport.request(url, {
        method,
        agent,
        headers: {
          ...headers,
          'accept-encoding': 'gzip, deflate, br',
          ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
        },
      });
      const timer = setTimeout(() => request.destroy(timeoutError(timeoutMs)), Math.max(0, deadlineAt - Date.now()));
      let answered = false;
      // A connection that ends without an error and without a whole answer still ends this exchange.
      request.on('close', () => {
        clearTimeout(timer);
        if (!answered) reject(Object.assign(new Error('connection closed before the whole answer'), { code: 'ECONNRESET' }));
      });
      request.on('error', (error) => reject(Object.assign(error, { reusedConnection: request.reusedSocket })));
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          answered = true;
          const encoding = String(response.headers['content-encoding'] ?? '')
            .trim()
            .toLowerCase();
          const decode = DECODERS[encoding] ?? ((raw: Buffer) => Promise.resolve(raw));
          decode(Buffer.concat(chunks)).then((raw) => {
            const retryAfter = response.headers['retry-after'];
            resolve({
              status: response.statusCode ?? 0,
              text: raw.toString('utf8').replace(/^\uFEFF/, ''),
              retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
            });
          }, reject);
        });
      });
      request.end(body);
    });
  }

  return {
    /** One exchange; rejects when no whole answer came (the connection failed, or the deadline passed). */
    async send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<ProviderHttpAnswer> {
      const url = `${baseUrl}${path}`;
      const deadlineAt = Date.now() + timeoutMs;
      try {
        return await once(method, url, headers, body, deadlineAt);
      } catch (error) {
        const closedIdle =
          (error as { reusedConnection?: boolean; code?: string }).reusedConnection === true &&
          ['ECONNRESET', 'EPIPE'].includes((error as { code?: string }).code ?? '');
        if (method !== 'GET' || !closedIdle || Date.now() >= deadlineAt) throw error;
        return once(method, url, headers, body, deadlineAt);
      }
    },

    /** Closes the kept connections (at shutdown). */
    close(): void {
      agent.destroy();
    },
  };
}
