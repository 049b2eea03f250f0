import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from './callback-url';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * One POST, no redirects followed, a hard deadline, and the private-address guard applied to the
 * address actually connected to.
 */
export function postJson(target: string, body: string, headers: Record<string, string>, options: { timeoutMs: number; allowPrivate: boolean }): Promise<SendResult> {
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
        response.on('error', (error) => resolve({ statusCode: response.statusCode ?? null, error: error.message, durationMs: elapsed() }));
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    request.on('error', (error) => resolve({ statusCode: null, error: error.message, durationMs: elapsed() }));
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
