/** What `npm run bench -- [names] [--flag value]` asks for; every size has a default that makes the full run. */
export interface BenchOptions {
  names: string[];
  /** sustained: payments a second (in search mode, the first rate tried). */
  rate: number;
  /** sustained: minutes at that rate. */
  minutes: number;
  /** sustained: step rates up until the lag or the backlog stops being flat. */
  search: boolean;
  /** sustained, search mode: minutes per step. */
  stepMinutes: number;
  /** fairness: payments in the other tenant's burst. */
  burst: number;
  /** sustained and statement: entries of the big statement account. */
  entries: number;
  /** statement: the months (ending now) the big account's entries are spread over, each in its month's partition. */
  historyMonths: number;
  /** ingest and pgbench: seconds of each load run. */
  loadSeconds: number;
  /** Which Temporal the stack runs on (scripts/bench.mjs starts it). */
  temporal: 'dev' | 'postgres';
  /**
   * ingest: how many Postgres clusters hold the tenants (scripts/bench.mjs brings up the second and sets
   * DATABASE_CLUSTERS): 1, or 2 with a tenant on each and the load spread over both.
   */
  clusters: 1 | 2;
}

const NUMBER_FLAGS = {
  rate: 'rate',
  minutes: 'minutes',
  'step-minutes': 'stepMinutes',
  burst: 'burst',
  entries: 'entries',
  'history-months': 'historyMonths',
  'load-seconds': 'loadSeconds',
} as const;

export function parseBenchOptions(argv: string[]): BenchOptions {
  const options: BenchOptions = {
    names: [],
    rate: 150,
    minutes: 10,
    search: false,
    stepMinutes: 3,
    burst: 15_000,
    entries: 1_000_000,
    historyMonths: 1,
    loadSeconds: 20,
    temporal: 'dev',
    clusters: 1,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const flag = arg.replace(/^--/, '');
    if (arg === '--search') options.search = true;
    else if (arg === '--temporal') {
      const value = argv[++i];
      if (value !== 'dev' && value !== 'postgres') throw new Error('--temporal takes dev or postgres');
      options.temporal = value;
    } else if (arg === '--clusters') {
      const value = argv[++i];
      if (value !== '1' && value !== '2') throw new Error('--clusters takes 1 or 2');
      options.clusters = value === '2' ? 2 : 1;
    } else if (arg.startsWith('--') && flag in NUMBER_FLAGS) {
      const value = Number(argv[++i]);
      if (!Number.isFinite(value) || value < 0) throw new Error(`${arg} takes a non-negative number`);
      options[NUMBER_FLAGS[flag as keyof typeof NUMBER_FLAGS]] = value;
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.names.push(arg);
  }
  if (!options.search && options.rate <= 0) throw new Error('--rate must be positive');
  if (!Number.isInteger(options.historyMonths) || options.historyMonths < 1)
    throw new Error('--history-months takes a whole number, 1 or more');
  // The other benchmarks seed and read their tenant on one database: their figures would not say what two clusters do.
  if (options.clusters === 2 && options.names.join(' ') !== 'ingest')
    throw new Error('--clusters 2 runs the ingest benchmark alone: npm run bench -- ingest --clusters 2');
  return options;
}
