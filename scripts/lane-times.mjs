// `node scripts/lane-times.mjs <output of a full npm test>`: rewrites scripts/test-lane-times.json from a run on a
// quiet machine: each layer's time from the run's summary line, each integration file's time as the sum of its
// tests' times (its root describe titles mapped to the file) plus 2 s for its hooks. The lanes are split by it.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LANE_TIMES_FILE } from './lib/lane-split.mjs';
import { repoRoot } from './lib/paths.mjs';

const HOOKS_SECONDS = 2;
const output = readFileSync(process.argv[2], 'utf8').split('\n');
const directory = join(repoRoot(), 'test', 'integration');
const fileOfTitle = new Map();
for (const file of readdirSync(directory, { recursive: true }).filter((name) => name.endsWith('.test.ts'))) {
  for (const match of readFileSync(join(directory, file), 'utf8').matchAll(/^describe\((['"`])(.*?)\1/gm)) fileOfTitle.set(match[2], file);
}

const milliseconds = new Map();
// The lanes' lines interleave: each lane (its line prefix) is in a file of its own at a time.
const currentOfLane = new Map();
for (const line of output) {
  const [, lane = '', text] = /^(\[[^\]]*\] )?(.*)$/.exec(line);
  const root = /^ {2}(\S.*)$/.exec(text);
  if (root) currentOfLane.set(lane, fileOfTitle.get(root[1]) ?? null);
  const current = currentOfLane.get(lane);
  const took = /\((\d+)ms\)\s*$/.exec(text);
  if (current && took) milliseconds.set(current, (milliseconds.get(current) ?? 0) + Number(took[1]));
  else if (current && !milliseconds.has(current)) milliseconds.set(current, 0);
}

const summary = output.find((line) => line.startsWith('[test] lint: '));
if (!summary) throw new Error('no summary line ("[test] lint: passed (…)") in that output: give the output of a full run');
const layers = Object.fromEntries(
  [...summary.matchAll(/(\w[\w-]*): passed \((\d+) s\)/g)]
    .filter(([, layer]) => layer !== 'lint')
    .map(([, layer, s]) => [layer, Number(s)]),
);
const integrationFiles = Object.fromEntries(
  [...milliseconds].sort(([a], [b]) => a.localeCompare(b)).map(([file, ms]) => [file, Math.round(ms / 1000) + HOOKS_SECONDS]),
);
const measured = `${new Date().toISOString().slice(0, 10)}: each layer's time, and each integration file's tests plus ${HOOKS_SECONDS} s for its hooks`;
writeFileSync(join(repoRoot(), LANE_TIMES_FILE), `${JSON.stringify({ measured, layers, integrationFiles }, null, 2)}\n`);
console.log(`${Object.keys(integrationFiles).length} integration files and ${Object.keys(layers).length} layers timed`);
