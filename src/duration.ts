const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/** Parses "500ms", "20s", "2m", "1h", "1d" into milliseconds; null when malformed. */
export function parseDuration(text: string): number | null {
  const match = DURATION_RE.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as string]!;
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

/** Parses "2m,5m,11m" into milliseconds; null when any item is malformed or the list is empty. */
export function parseDurationList(text: string): number[] | null {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  if (items.length === 0) return null;
  const parsed = items.map(parseDuration);
  return parsed.every((ms): ms is number => ms !== null) ? parsed : null;
}
