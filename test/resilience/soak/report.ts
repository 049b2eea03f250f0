import type { SoakOptions, SoakReport } from './driver';

function section(title: string, rows: Array<[string, string | number]>): string[] {
  const width = Math.max(title.length, ...rows.map(([name]) => name.length));
  return [title, ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`), ''];
}

/** The command that replays a run up to one operation. */
export function replayCommand(options: Pick<SoakOptions, 'seed' | 'minutes'>, opIndex?: number): string {
  return `npm run soak -- --minutes ${options.minutes} --seed ${options.seed}${opIndex === undefined ? '' : ` --until ${opIndex}`}`;
}

/** The report table the soak prints. */
export function formatReport(report: SoakReport): string {
  const lines = [
    `soak: seed ${report.seed}, ${report.minutes} min of operations, ${report.operations} operations scheduled, ${(report.durationMs / 60_000).toFixed(1)} min in all`,
    '',
    ...section(
      'faults injected',
      Object.entries(report.faults).map(([kind, { injected, skipped }]) => [
        kind,
        `${injected}${skipped ? ` (${skipped} failed to inject)` : ''}`,
      ]),
    ),
    ...section(
      'operations (done / nothing to act on or refused)',
      Object.entries(report.operations_by_kind).map(([kind, { done, skipped }]) => [kind, `${done} / ${skipped}`]),
    ),
    ...section('settlements by final status', Object.entries(report.settlements)),
    ...section('payments by outcome', Object.entries(report.payments)),
    ...section('races, batches, dynamic accounts and sweeps', Object.entries(report.products)),
    ...section('approvals, liens, freezes and velocity rules', Object.entries(report.controls)),
    ...section('reconciliation findings by kind', Object.entries(report.findings)),
    ...section('invariant checks run', Object.entries(report.checks)),
    ...(Object.keys(report.checksSkipped).length
      ? section('periodic passes skipped (a service unreachable just then)', Object.entries(report.checksSkipped))
      : []),
    `schedule, fault timeline and process logs: ${report.artifactsDir}`,
    '',
    `violations: ${report.violations.length}`,
    ...report.violations.map(
      (violation) => `  [${violation.check}] ${violation.detail}\n    replay: ${replayCommand(report, violation.opIndex)}`,
    ),
  ];
  return lines.join('\n');
}
