// schemathesis (PyPI) in a Python venv of its own under the per-user cache, for the contract layer.
// Plain Node ESM, no npm dependencies.
//
//   ensureSchemathesis({ log }) -> { bin } | null
//
// pip installs exactly tools/schemathesis-requirements.txt: every package pinned, with its hashes
// (--require-hashes), and wheels only, so no build step fetches tools of its own. The venv's folder is
// named for a hash of that file, so changing a pin makes a new venv and a stale one is never reused.
// null when no Python with a working venv module can be found (or installed with apt-get); the
// contract test then skips itself and says why.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, repoRoot } from '../lib/paths.mjs';
import { isExecutable, isRoot, pidAlive, quietLog, run, tail, which } from '../lib/util.mjs';

export function schemathesisRequirements() {
  return join(repoRoot(), 'tools', 'schemathesis-requirements.txt');
}

/** The schemathesis version and a short hash of the whole requirements file, which names the venv's folder. */
export function schemathesisLock() {
  const text = readFileSync(schemathesisRequirements(), 'utf8');
  const version = /^schemathesis==(\S+)/m.exec(text)?.[1];
  if (!version) throw new Error(`no schemathesis==<version> line in ${schemathesisRequirements()}`);
  return { version, hash: createHash('sha256').update(text).digest('hex').slice(0, 12) };
}

export function schemathesisCacheDir({ version, hash } = schemathesisLock()) {
  return join(cacheRoot(), `schemathesis-${version}-${hash}`);
}

/** `<dir>/current` is a symlink to a finished venv; it only appears once pip has succeeded. */
function currentBin(dir) {
  return join(dir, 'current', 'bin', 'st');
}

const hasVenv = (python) => run(python, ['-c', 'import venv, ensurepip'], { timeoutMs: 30_000 }).then((probe) => probe.ok);

/** A python3 whose venv module can bootstrap pip (Debian ships ensurepip separately, in python3-venv). */
async function findPython(log) {
  const candidates = [...new Set([which('python3'), '/usr/bin/python3'].filter((path) => path && isExecutable(path)))];
  for (const python of candidates) if (await hasVenv(python)) return python;
  if (!isRoot() || !which('apt-get')) return null;
  log('no python3 with a working venv module: installing python3-venv with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const args = ['install', '-y', '--no-install-recommends', 'python3-venv'];
  if (!(await run('apt-get', args, { env, timeoutMs: 15 * 60_000 })).ok) {
    await run('apt-get', ['update'], { env, timeoutMs: 10 * 60_000 });
    await run('apt-get', args, { env, timeoutMs: 15 * 60_000 });
  }
  return (await hasVenv('/usr/bin/python3')) ? '/usr/bin/python3' : null;
}

/**
 * pip installs into a venv named for this process (its scripts name that path, so it is never moved);
 * `current` is then pointed at it with an atomic rename. A killed install leaves only a venv that
 * nothing points to, removed by the next install once its process is gone.
 */
async function install(python, dir, version, log) {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    const owner = /^venv-(\d+)-/.exec(name)?.[1];
    if (owner && !pidAlive(Number(owner))) rmSync(join(dir, name), { recursive: true, force: true });
  }
  const venv = join(dir, `venv-${process.pid}-${Date.now()}`);
  log(
    `installing schemathesis ${version} and its pinned dependencies (${schemathesisRequirements()}) with pip into ${dir} (first run only)...`,
  );
  const steps = [
    [python, ['-m', 'venv', venv], 5 * 60_000],
    [
      join(venv, 'bin', 'pip'),
      [
        'install',
        '--disable-pip-version-check',
        '--no-input',
        '--quiet',
        '--require-hashes',
        '--only-binary',
        ':all:',
        '--requirement',
        schemathesisRequirements(),
      ],
      15 * 60_000,
    ],
  ];
  for (const [cmd, args, timeoutMs] of steps) {
    const result = await run(cmd, args, { timeoutMs });
    if (!result.ok) {
      rmSync(venv, { recursive: true, force: true });
      log(`${cmd} ${args.join(' ')} failed:\n${tail(`${result.stdout}\n${result.stderr}`, 30)}`);
      return false;
    }
  }
  const link = join(dir, `current.tmp-${process.pid}`);
  symlinkSync(venv, link);
  renameSync(link, join(dir, 'current'));
  return true;
}

export async function ensureSchemathesis({ log = quietLog } = {}) {
  const lock = schemathesisLock();
  const dir = schemathesisCacheDir(lock);
  if (!isExecutable(currentBin(dir))) {
    const python = await findPython(log);
    if (!python) {
      log('no python3 with a working venv module: schemathesis unavailable');
      return null;
    }
    if (!(await install(python, dir, lock.version, log))) return null;
  }
  const bin = currentBin(dir);
  const version = await run(bin, ['--version'], { timeoutMs: 60_000 });
  if (!version.ok) {
    log(`${bin} does not run:\n${tail(version.stderr || version.stdout, 10)}`);
    return null;
  }
  log(`${version.stdout.trim()} at ${bin}`);
  return { bin };
}
