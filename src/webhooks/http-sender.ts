import http from 'node:http';
import https from 'node:https';
import { guardedLookup, ipLiteralHost, isPrivateAddress } from '../net/address-policy';

interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const REFUSED_PRIVATE = 'refused: private address';

/**
 * What the tenant sees as LastError: the kind of failure, never the addresses, ports or internal
 * names a raw socket error carries (which would map the network behind a callback host).
 */
function describeSendError(error: Error & { code?: string }, timeoutMs: number): string {
  const code = error.code ?? '';
  if (code === 'EPRIVATE') return REFUSED_PRIVATE;
  if (code === 'ETIMEDOUT' || /timed out/.test(error.message)) return `timed out after ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return 'host not found';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'connection reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (/CERT|TLS|SSL|SELF_SIGNED/i.test(code)) return 'tls error';
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return 'invalid http response';
  return 'network error';
}

/**
 * One POST, no redirects followed, a hard deadline, and the private-address guard applied to the
 * address actually connected to (a name's resolved addresses, or the IP literal itself).
 */
export function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = (): number => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve({ statusCode: null, error: 'invalid callback url', durationMs: 0 });
      return;
    }
    const literal = ipLiteralHost(url);
    if (literal && !options.allowPrivate && isPrivateAddress(literal)) {
      resolve({ statusCode: null, error: REFUSED_PRIVATE, durationMs: 0 });
      return;
    }
    const fail = (error: Error) => resolve({ statusCode: null, error: describeSendError(error, options.timeoutMs), durationMs: elapsed() });
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body).toString() },
        lookup: guardedLookup(options.allowPrivate),
        timeout: options.timeoutMs,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ statusCode: response.statusCode ?? null, error: null, durationMs: elapsed() }));
        response.on('error', () =>
          resolve({ statusCode: response.statusCode ?? null, error: 'response interrupted', durationMs: elapsed() }),
        );
      },
    );
    const deadline = setTimeout(() => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), options.timeoutMs);
    request.on('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    request.on('error', fail);
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
