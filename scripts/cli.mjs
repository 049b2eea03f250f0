// `npm run -s cli -- <command>`: the same configuration as `npm start` (nothing set = the local database,
// development settings allowed).
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { prepareCode } from './lib/build.mjs';
import { repoRoot } from './lib/paths.mjs';
import { quietLog } from './lib/util.mjs';

await prepareCode({ log: quietLog });
const child = spawn(process.execPath, ['--enable-source-maps', join(repoRoot(), 'dist/src/main/cli.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { NODE_ENV: 'development', ALLOW_DEVELOPMENT_SETTINGS: 'true', ...process.env },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
