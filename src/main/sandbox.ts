import type { AddressInfo } from 'node:net';
import { createSandbox } from '../sandbox/app';
import { runProcess } from './lifecycle';

runProcess(
  'sandbox',
  async (config, logger) => {
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
  },
  {
    // A test double that accepts any credentials and pays nothing out: never part of a production deployment.
    refuse: (config) =>
      config.NODE_ENV === 'production'
        ? 'refusing to start: the sandbox provider is a test double and never runs with NODE_ENV=production (it needs ALLOW_DEVELOPMENT_SETTINGS=true)'
        : null,
  },
);
