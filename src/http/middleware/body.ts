import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { HttpError } from '../http-error';

const MAX_BODY_BYTES = 1024 * 1024;

/** The types koa-bodyparser reads as JSON. */
const JSON_TYPES = [
  'application/json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/csp-report',
  'application/scim+json',
];

/**
 * JSON bodies only, `limit` bytes at most (1 MB unless a route says otherwise); malformed JSON is a 400 and
 * oversize a 413, never a 500. A body of another type is a 415: read as no body, it would be blamed on a
 * "missing" field instead.
 */
export function jsonBody(limit = MAX_BODY_BYTES) {
  const parse = bodyParser({
    enableTypes: ['json'],
    extendTypes: { json: JSON_TYPES },
    jsonLimit: `${limit}b`,
    strict: true,
    onerror: (error: Error & { status?: number }) => {
      if (error.status === 413) throw new HttpError(413, 'payload_too_large', `request body too large (limit ${describeBytes(limit)})`);
      if (error.status === 415) throw new HttpError(415, 'unsupported_media_type', 'unsupported body encoding');
      throw new HttpError(400, 'invalid_json', 'invalid json');
    },
  });
  return async (ctx: Context, next: Next): Promise<void> => {
    // No content at all (is() answers null; fetch sends Content-Length: 0 on a bare POST) is left to the schema.
    if (ctx.request.length !== 0 && ctx.request.is(JSON_TYPES) === false)
      throw new HttpError(415, 'unsupported_media_type', 'request body must be application/json');
    await parse(ctx, next);
  };
}

/** Reads the raw request bytes with a cap (1 MB by default), for routes that verify signatures themselves. */
export async function readRawBody(stream: NodeJS.ReadableStream, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, 'payload_too_large', `request body too large (limit ${describeBytes(limit)})`);
  const declared = Number((stream as { headers?: Record<string, string | undefined> }).headers?.['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) throw tooLarge();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}
