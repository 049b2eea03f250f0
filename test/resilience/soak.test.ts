import assert from 'node:assert/strict';
import { runSoak } from './soak/driver';
import { formatReport } from './soak/report';

/** The seed the resilience layer runs; any other seed is `npm run soak -- --seed S`. */
const SEED = 20261126;
const MINUTES = 3;

describe('resilience: seeded chaos soak', function () {
  // Three minutes of operations, then up to ten for every job to settle: money, not latency, is judged.
  this.timeout(20 * 60_000);

  it(`soak: ${MINUTES} minutes of seed ${SEED} with no invariant violated`, async () => {
    const report = await runSoak({
      seed: SEED,
      minutes: MINUTES,
      settleMinutes: 10,
      log: (line) => process.stderr.write(`[soak] ${line}\n`),
    });
    process.stderr.write(`${formatReport(report)}\n`);
    assert.ok(
      Object.values(report.faults).every(({ injected }) => injected > 0),
      `a process fault was never injected: ${JSON.stringify(report.faults)}`,
    );
    assert.deepEqual(
      ['race', 'batch', 'dynamic', 'sweep', 'approval', 'decide', 'lien', 'freeze', 'velocity'].filter(
        (kind) => !(report.operations_by_kind[kind]!.done > 0),
      ),
      [],
      `a product was never exercised: ${JSON.stringify(report.operations_by_kind)}`,
    );
    assert.deepEqual(
      report.violations.map(
        (violation) => `[${violation.check}] ${violation.detail} (replay: --seed ${violation.seed} --until ${violation.opIndex})`,
      ),
      [],
    );
  });
});
