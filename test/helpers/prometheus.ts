/** One sample of Prometheus' text format: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a scrape (comments skipped). */
export function parsePrometheusText(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) return [];
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!;
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The sum of a metric's samples whose labels include `where` (0 when there are none). */
export function total(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** The value of a gauge's one sample whose labels include `where`; throws when the scrape lacks it (a missing metric is no zero). */
export function gaugeValue(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(where).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length !== 1) throw new Error(`${name}${JSON.stringify(where)}: ${found.length} samples in the scrape, expected 1`);
  return found[0]!.value;
}

/** A histogram's cumulative buckets (upper bound → count), summed over its other labels. */
export function buckets(samples: Sample[], name: string): Array<{ le: number; count: number }> {
  const byBound = new Map<number, number>();
  for (const sample of samples.filter((candidate) => candidate.name === `${name}_bucket`)) {
    const le = sample.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(sample.labels.le);
    byBound.set(le, (byBound.get(le) ?? 0) + sample.value);
  }
  return [...byBound.entries()].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count }));
}

/**
 * The q-quantile of the observations between two scrapes of a cumulative histogram, interpolated
 * linearly inside the bucket it falls in (as Prometheus' histogram_quantile does); NaN without observations.
 */
export function quantileBetween(
  before: Array<{ le: number; count: number }>,
  after: Array<{ le: number; count: number }>,
  q: number,
): number {
  const earlier = new Map(before.map((bucket) => [bucket.le, bucket.count]));
  const delta = after.map((bucket) => ({ le: bucket.le, count: bucket.count - (earlier.get(bucket.le) ?? 0) }));
  const count = delta.at(-1)?.count ?? 0;
  if (count <= 0) return Number.NaN;
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const bucket of delta) {
    if (bucket.count >= rank) {
      if (!Number.isFinite(bucket.le)) return lower;
      const inBucket = bucket.count - below;
      return inBucket <= 0 ? bucket.le : lower + ((bucket.le - lower) * (rank - below)) / inBucket;
    }
    lower = bucket.le;
    below = bucket.count;
  }
  return lower;
}

export async function scrape(url: string, token?: string): Promise<Sample[]> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw new Error(`scrape of ${url} answered ${response.status}`);
  return parsePrometheusText(await response.text());
}
