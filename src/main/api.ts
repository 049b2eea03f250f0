import type { AddressInfo } from 'node:net';
import { createApp } from '../http/app';
import { answerClientErrorsAsJson } from '../http/client-errors';
import { closeInfrastructure, createInfrastructure, createReadiness, createRoutes, createServices } from './container';
import { runProcess } from './lifecycle';

runProcess('api', async (config, logger) => {
  const infra = createInfrastructure(config, logger);
  const services = createServices(infra);
  const app = createApp({ config, logger, auth: services.auth.authenticator, readiness: createReadiness(infra), routes: createRoutes(services, config) });
  const server = app.listen(config.PORT, config.HOST);
  answerClientErrorsAsJson(server);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  server.keepAliveTimeout = 65_000;
  logger.info({ port: (server.address() as AddressInfo).port }, 'api listening');
  return {
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.starter.close();
      await closeInfrastructure(infra);
    },
  };
});
