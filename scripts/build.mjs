// `npm run build`: dependencies when missing, the TypeScript client into sdk/dist, the TypeScript build into dist/, and the dashboard into
// dist/dashboard.
import { ensureBuilt, ensureDashboardBuilt, ensureDependencies, ensureSdkBuilt } from './lib/build.mjs';
import { makeLogger } from './lib/util.mjs';

const log = makeLogger('build');

try {
  await ensureDependencies({ log });
  await ensureSdkBuilt({ log });
  await ensureBuilt({ log });
  await ensureDashboardBuilt({ log, force: true });
} catch (error) {
  log(error.message);
  process.exit(1);
}
