import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** Which part of the stack a process is, from its command line. */
function roleOf(cmdline: string): string | null {
  if (cmdline.includes('dist/src/main/api.js')) return 'api';
  if (cmdline.includes('dist/src/main/worker.js')) return 'worker';
  if (cmdline.includes('dist/src/main/sandbox.js')) return 'sandbox';
  if (cmdline.includes('dist/bench/run.js')) return 'load generator';
  if (cmdline.includes('temporal') && cmdline.includes('start-dev')) return 'temporal';
  if (cmdline.includes('temporal-server') && cmdline.includes(' start')) return 'temporal';
  if (cmdline.startsWith('postgres')) return 'postgres';
  return null;
}

export type CpuReading = Map<string, { role: string; seconds: number }>;

/** CPU seconds used so far by each process of the stack, by pid (Linux /proc). */
export function cpuByRole(): CpuReading {
  const reading: CpuReading = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const role = roleOf(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
      if (!role) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      reading.set(pid, { role, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
    } catch {
      // the process ended while being read
    }
  }
  return reading;
}

/**
 * CPU seconds each part used between two readings. Compared process by process, because Postgres
 * backends come and go: a process that started in between counts from zero; one that ended in between
 * is missed (its last moments are lost, a slight undercount).
 */
export function cpuSecondsBetween(before: CpuReading, after: CpuReading): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [pid, { role, seconds }] of after) used[role] = (used[role] ?? 0) + seconds - (before.get(pid)?.seconds ?? 0);
  return used;
}

/** Share of one core each part used between two readings, in %. */
export function cpuShare(before: CpuReading, after: CpuReading, seconds: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(cpuSecondsBetween(before, after)).map(([role, cpuSeconds]) => [role, Math.round((cpuSeconds / seconds) * 100)]),
  );
}

export function formatShare(share: Record<string, number>): string {
  return Object.entries(share)
    .sort(([, a], [, b]) => b - a)
    .map(([role, percent]) => `${role} ${percent}%`)
    .join(', ');
}
