// How the integration layer's test files are spread over the lanes: by their times on a quiet machine
// (scripts/test-lane-times.json), so every lane, with its other layers, takes about as long as the others.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';

export const LANE_TIMES_FILE = join('scripts', 'test-lane-times.json');

function laneTimes() {
  return JSON.parse(readFileSync(join(repoRoot(), LANE_TIMES_FILE), 'utf8'));
}

/**
 * The files (paths relative to the layer's directory, as `.test.js` or `.test.ts`) of each part of a layer that runs
 * in parts, one part per lane: the longest file first, each to the lane that would finish first, a lane starting
 * from the times of the other layers it runs (`otherLayers[i]`, the layers of part i's lane being run now). A file
 * not timed yet counts as the median of the timed ones.
 */
export function splitByTime(files, otherLayers) {
  const times = laneTimes();
  const fileTimes = times.integrationFiles;
  const known = Object.values(fileTimes).sort((a, b) => a - b);
  const median = known[Math.floor(known.length / 2)] ?? 1;
  const timeOf = (file) => fileTimes[file.replace(/\.js$/, '.ts')] ?? median;
  const loads = otherLayers.map((layers) => layers.reduce((sum, layer) => sum + (times.layers[layer] ?? 0), 0));
  const parts = otherLayers.map(() => []);
  const longestFirst = [...files].sort((a, b) => timeOf(b) - timeOf(a) || a.localeCompare(b));
  for (const file of longestFirst) {
    const lane = loads.indexOf(Math.min(...loads));
    parts[lane].push(file);
    loads[lane] += timeOf(file);
  }
  return parts.map((part) => part.sort());
}
