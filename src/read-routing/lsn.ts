/** A WAL position as a number that compares: Postgres writes it as two 32-bit halves in hex ("16/B374D848"). */
export type Lsn = bigint;

const LSN_TEXT = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** The position `text` names, or undefined when it is not one. */
export function parseLsn(text: string): Lsn | undefined {
  const match = LSN_TEXT.exec(text.trim());
  if (!match) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** Postgres's own spelling of a position, as `pg_current_wal_lsn()::text` gives it. */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
