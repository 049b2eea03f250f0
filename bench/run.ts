import { balanceAtBenchmark } from './balance-at.bench';
import { startBenchContext } from './context';
import { fairnessBenchmark } from './fairness.bench';
import { ingestBenchmark } from './ingest.bench';
import { parseBenchOptions } from './options';
import { pgbenchBenchmark } from './pgbench.bench';
import { reconcileBenchmark } from './reconcile.bench';
import { printTable, type Row } from './report';
import { settleBenchmark } from './settle.bench';
import { settlementBatchBenchmark } from './settlement-batch.bench';
import { statementBenchmark } from './statement.bench';
import { sustainedBenchmark } from './sustained.bench';
import { tenantMoveBenchmark } from './tenant-move.bench';

/**
 * In this order when run together: fairness and sustained first, on a pipeline with nothing else waiting
 * (each also waits for earlier work to drain); ingest before settle (settle stops the worker) and before
 * pgbench (which compares against ingest's rates); reconcile and settlement-batch before settle (they need the worker);
 * statement after them, reusing the big account sustained seeded; balance-at, its million entries read by nothing else;
 * tenant-move last, its tenant fenced on the bench database once it has moved.
 */
const BENCHMARKS = {
  fairness: fairnessBenchmark,
  sustained: sustainedBenchmark,
  ingest: ingestBenchmark,
  pgbench: pgbenchBenchmark,
  reconcile: reconcileBenchmark,
  'settlement-batch': settlementBatchBenchmark,
  settle: settleBenchmark,
  statement: statementBenchmark,
  'balance-at': balanceAtBenchmark,
  'tenant-move': tenantMoveBenchmark,
};

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2));
  const asked = options.names.map((name) => (name === 'baseline' ? 'statement' : name));
  const unknown = asked.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0)
    throw new Error(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}, baseline`);
  const chosen = Object.entries(BENCHMARKS).filter(([name]) => asked.length === 0 || asked.includes(name));
  const ctx = await startBenchContext(options);
  const rows: Row[] = [];
  try {
    for (const [name, benchmark] of chosen) {
      process.stderr.write(`[bench] ${name}…\n`);
      rows.push(...(await benchmark(ctx)));
    }
  } finally {
    await ctx.close();
  }
  process.stdout.write(
    `\nTemporal: ${options.temporal === 'postgres' ? 'server with Postgres persistence' : 'dev server (SQLite in memory)'}; API processes ${process.env.API_PROCESSES ?? 1}, worker processes ${process.env.WORKER_PROCESSES ?? 1}\n`,
  );
  printTable(rows);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
