import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A tenant's callback endpoint: answers each call with the next scripted status (the last repeats). */
export async function startReceiver(script: Array<number | 'hang'> = [200]) {
  const calls: ReceivedCall[] = [];
  let plan = [...script];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      calls.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const next = plan.length > 1 ? plan.shift()! : plan[0]!;
      if (next === 'hang') return;
      response.writeHead(next, next >= 300 && next < 400 ? { Location: 'http://127.0.0.1:1/elsewhere' } : {});
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls,
    answer(next: Array<number | 'hang'>) {
      plan = [...next];
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
