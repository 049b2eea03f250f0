// For people who prefer the knex CLI (`npx knex --knexfile dist/knexfile.js migrate:latest`);
// the project's own path is `npm run -s cli -- db:migrate`. Same configuration either way.
import { loadConfig } from './src/config';
import { migrationConfig } from './src/db';

const config = loadConfig();

export default {
  client: 'pg',
  connection: config.DATABASE_URL,
  migrations: migrationConfig,
};
