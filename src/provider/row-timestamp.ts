/** A ProviderRow's timestamp: one Postgres reads the same way whatever the provider's precision; null when unreadable. */
export function rowTimestamp(text: string): string | null {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
