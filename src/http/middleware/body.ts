import bodyParser from 'koa-bodyparser';
import { AppError } from '../../errors';

export const MAX_BODY_BYTES = 1024 * 1024;

/** JSON bodies only, 1 MB at most; malformed JSON is a 400 and oversize a 413, never a 500. */
export function jsonBody() {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: '1mb',
    strict: true,
    onerror: (error: Error & { status?: number }) => {
      if (error.status === 413) throw new AppError(413, 'payload_too_large', 'request body too large (limit 1 MB)');
      if (error.status === 415) throw new AppError(415, 'unsupported_media_type', 'unsupported body encoding');
      throw new AppError(400, 'invalid_json', 'invalid json');
    },
  });
}

/** Reads the raw request bytes with the same 1 MB cap, for routes that verify signatures themselves. */
export async function readRawBody(stream: NodeJS.ReadableStream, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) throw new AppError(413, 'payload_too_large', 'request body too large (limit 1 MB)');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
