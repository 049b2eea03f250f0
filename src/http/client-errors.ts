import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests Node rejects before Koa sees them (an oversize head, a malformed request line) still get
 * the service's JSON error body instead of a bare status line.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const body = JSON.stringify(
      tooLarge
        ? { error: 'request headers too large', code: 'headers_too_large' }
        : { error: 'malformed http request', code: 'bad_request' },
    );
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
