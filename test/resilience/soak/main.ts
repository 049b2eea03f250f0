import { parseArgs } from 'node:util';
import { runSoak } from './driver';
import { formatReport } from './report';

/** `npm run soak -- --minutes N --seed S [--until I] [--settle-minutes M]`: exit 1 on any violation. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '3' },
      seed: { type: 'string' },
      until: { type: 'string' },
      'settle-minutes': { type: 'string', default: '10' },
    },
    strict: true,
  });
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  const minutes = Number(values.minutes);
  if (!Number.isInteger(seed) || seed < 0 || !(minutes > 0))
    throw new Error('usage: npm run soak -- --minutes N --seed S [--until OP] [--settle-minutes M]');
  const report = await runSoak({
    seed,
    minutes,
    ...(values.until === undefined ? {} : { until: Number(values.until) }),
    settleMinutes: Number(values['settle-minutes']),
    log: (line) => process.stderr.write(`[soak] ${line}\n`),
  });
  process.stdout.write(`${formatReport(report)}\n`);
  process.exitCode = report.violations.length > 0 ? 1 : 0;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  });
}
