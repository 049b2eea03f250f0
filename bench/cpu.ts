import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** Which part of the stack a process is, from its command line. */
function roleOf(cmdline: string): string | null {
  if (cmdline.includes('dist/src/main/api.js')) return 'api';
  if (cmdline.includes('dist/src/main/worker.js')) return 'worker';
  if (cmdline.includes('dist/src/main/sandbox.js')) return 'sandbox';
  if (cmdline.includes('dist/bench/run.js')) return 'load generator';
  if (cmdline.includes('temporal') && cmdline.includes('start-dev')) return 'temporal';
  if (cmdline.startsWith('postgres')) return 'postgres';
  return null;
}

/** CPU seconds used so far by each part of the stack (Linux /proc). */
export function cpuByRole(): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const role = roleOf(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
      if (!role) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      totals[role] = (totals[role] ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // the process ended while being read
    }
  }
  return totals;
}

/** Share of one core each part used between two readings. */
export function cpuShare(before: Record<string, number>, after: Record<string, number>, seconds: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((role) => [role, Math.round((((after[role] ?? 0) - (before[role] ?? 0)) / seconds) * 100)]));
}

export function formatShare(share: Record<string, number>): string {
  return Object.entries(share)
    .sort(([, a], [, b]) => b - a)
    .map(([role, percent]) => `${role} ${percent}%`)
    .join(', ');
}
