import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Row {
  benchmark: string;
  measure: string;
  value: string;
  target: string;
  meets: boolean | null;
}

const RESULTS_DIR = path.resolve(__dirname, '../../bench/results');

export function writeResult(name: string, data: unknown): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    path.join(RESULTS_DIR, `${name}.json`),
    `${JSON.stringify({ name, at: new Date().toISOString(), ...(data as object) }, null, 2)}\n`,
  );
}

export function printTable(rows: Row[]): void {
  const header: Row = { benchmark: 'benchmark', measure: 'measure', value: 'figure', target: 'target', meets: null };
  const cells = (row: Row) => [
    row.benchmark,
    row.measure,
    row.value,
    row.target,
    row === header ? 'meets' : row.meets === null ? '-' : row.meets ? 'yes' : 'NO',
  ];
  const all = [header, ...rows].map(cells);
  const widths = all[0]!.map((_cell, column) => Math.max(...all.map((line) => line[column]!.length)));
  const format = (line: string[]) => `| ${line.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  process.stdout.write(
    `\n${format(all[0]!)}\n|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|\n${all.slice(1).map(format).join('\n')}\n\n`,
  );
}

export const fixed = (value: number, digits = 1): string => value.toFixed(digits);
