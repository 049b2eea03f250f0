import { startBenchContext } from './context';
import { ingestBenchmark } from './ingest.bench';
import { reconcileBenchmark } from './reconcile.bench';
import { printTable, type Row } from './report';
import { settleBenchmark } from './settle.bench';
import { statementBenchmark } from './statement.bench';

/**
 * Ingest first, before the statement benchmark seeds its million entries (on this machine's stock
 * Postgres they cost the ingest path about a tenth of its rate); reconcile needs the worker, which
 * settle stops and the statement benchmark does not need.
 */
const BENCHMARKS = { ingest: ingestBenchmark, reconcile: reconcileBenchmark, settle: settleBenchmark, statement: statementBenchmark };

async function main(): Promise<void> {
  const asked = process.argv.slice(2).map((name) => (name === 'baseline' ? 'statement' : name));
  const unknown = asked.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}, baseline`);
  const chosen = Object.entries(BENCHMARKS).filter(([name]) => asked.length === 0 || asked.includes(name));
  const ctx = await startBenchContext();
  const rows: Row[] = [];
  try {
    for (const [name, benchmark] of chosen) {
      process.stderr.write(`[bench] ${name}…\n`);
      rows.push(...(await benchmark(ctx)));
    }
  } finally {
    await ctx.close();
  }
  printTable(rows);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
