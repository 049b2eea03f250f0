// Provision Debian's Chromium for the browser test layer. Plain Node ESM, no npm dependencies.
//
//   ensureChromium({ log }) -> { path }
//
// CHROMIUM_PATH, when set, wins. Otherwise /usr/bin/chromium, installed with apt when missing. A
// browser that cannot be had is an error with the reason, never a skipped layer.
import { quietLog, isExecutable, isRoot, run, runSync, tail } from '../lib/util.mjs';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

function version(path) {
  const probe = runSync(path, ['--version']);
  return probe.ok ? probe.stdout.trim() : null;
}

async function aptInstallChromium(log) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log('installing Debian chromium (apt-get install -y chromium)...');
  let result = await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env, timeoutMs: 20 * 60_000 });
  if (!result.ok) {
    log('apt-get install failed; running apt-get update and retrying');
    await run('apt-get', ['update'], { env, timeoutMs: 10 * 60_000 });
    result = await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env, timeoutMs: 20 * 60_000 });
  }
  if (!result.ok) throw new Error(`apt-get install -y chromium failed:\n${tail(result.stderr || result.stdout, 30)}`);
}

export async function ensureChromium({ log = quietLog } = {}) {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (!isExecutable(chosen)) throw new Error(`CHROMIUM_PATH=${chosen} is not an executable file`);
    log(`using CHROMIUM_PATH (${version(chosen) ?? 'version unknown'})`);
    return { path: chosen };
  }
  if (!isExecutable(DEBIAN_CHROMIUM)) {
    if (!isRoot()) {
      throw new Error(
        'The browser tests need Chromium and installing it needs root (apt-get install -y chromium). ' +
          'Install it, or set CHROMIUM_PATH to a Chromium or Chrome executable, and run again.',
      );
    }
    await aptInstallChromium(log);
    if (!isExecutable(DEBIAN_CHROMIUM)) throw new Error(`apt-get reported success but ${DEBIAN_CHROMIUM} is missing`);
  }
  const found = version(DEBIAN_CHROMIUM);
  if (!found) throw new Error(`${DEBIAN_CHROMIUM} is installed but does not run (chromium --version failed)`);
  log(`ready: ${found}`);
  return { path: DEBIAN_CHROMIUM };
}
