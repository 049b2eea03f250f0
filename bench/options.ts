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
  /** ingest and pgbench: seconds of each load run. */
  loadSeconds: number;
  /** Which Temporal the stack runs on (scripts/bench.mjs starts it). */
  temporal: 'dev' | 'postgres';
}

const NUMBER_FLAGS = {
  rate: 'rate',
  minutes: 'minutes',
  'step-minutes': 'stepMinutes',
  burst: 'burst',
  entries: 'entries',
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
    loadSeconds: 20,
    temporal: 'dev',
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const flag = arg.replace(/^--/, '');
    if (arg === '--search') options.search = true;
    else if (arg === '--temporal') {
      const value = argv[++i];
      if (value !== 'dev' && value !== 'postgres') throw new Error('--temporal takes dev or postgres');
      options.temporal = value;
    } else if (arg.startsWith('--') && flag in NUMBER_FLAGS) {
      const value = Number(argv[++i]);
      if (!Number.isFinite(value) || value < 0) throw new Error(`${arg} takes a non-negative number`);
      options[NUMBER_FLAGS[flag as keyof typeof NUMBER_FLAGS]] = value;
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.names.push(arg);
  }
  if (!options.search && options.rate <= 0) throw new Error('--rate must be positive');
  return options;
}
