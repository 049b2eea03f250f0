import type { AddressInfo } from 'node:net';
import { createSandbox } from '../sandbox/app';
import { runProcess } from './lifecycle';

runProcess('sandbox', async (config, logger) => {
  const sandbox = createSandbox({ config, logger });
  const server = sandbox.app.listen(config.SANDBOX_PORT, config.HOST);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  logger.info({ port: (server.address() as AddressInfo).port }, 'sandbox provider listening');
  return {
    async stop() {
      await sandbox.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
});
