import type { AuthenticatedApiKey } from '../http/context';

/** The Postgres channel a change to any API key or tenant name is announced on (see its migration). */
export const API_KEYS_CHANGED_CHANNEL = 'api_keys_changed';

/**
 * Recently used API keys (tenant, scopes, allowed sources, expiry), by key hash, so an authenticated request costs no round trip
 * of its own. It only answers while the process hears every key change (`setLive(true)` from the
 * listener on `API_KEYS_CHANGED_CHANNEL`): a notification, a lost listener or a revocation in this
 * process forgets everything, so a revoked key stops working everywhere as soon as its notification
 * lands. `ttlMs` bounds an entry's life whatever happens (0 turns the cache off). Unknown keys are never
 * kept (anyone can send them), and at most `maxEntries` known ones.
 */
export function createApiKeyCache<Key = AuthenticatedApiKey>(options: { ttlMs: number; maxEntries: number; now?: () => number }) {
  const { ttlMs, maxEntries, now = Date.now } = options;
  const entries = new Map<string, { key: Key; storedAt: number }>();
  let live = false;
  /** Bumped on every change: a lookup that started before one may have read the old state, so it is not kept. */
  let generation = 0;

  function forget(): void {
    generation += 1;
    entries.clear();
  }

  return {
    async keyFor(keyHash: string, load: () => Promise<Key | null>): Promise<Key | null> {
      const usable = live && ttlMs > 0;
      const hit = usable ? entries.get(keyHash) : undefined;
      if (hit && now() - hit.storedAt < ttlMs) return hit.key;
      const startedIn = generation;
      const key = await load();
      // setLive bumps the generation too, so this also drops a lookup across the listener going down.
      if (key && usable && generation === startedIn) {
        entries.delete(keyHash);
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(keyHash, { key, storedAt: now() });
      }
      return key;
    },
    forget,
    setLive(next: boolean): void {
      live = next;
      forget();
    },
  };
}

export type ApiKeyCache = ReturnType<typeof createApiKeyCache<AuthenticatedApiKey>>;
