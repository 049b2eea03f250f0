import net from 'node:net';

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port nothing listens on right now, for a process to bind later. Chosen below Linux's ephemeral
 * range (32768 and up) so that a port the kernel hands out meanwhile (to a program binding port 0, or
 * to an outgoing connection) cannot take it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canBind(port)) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}
