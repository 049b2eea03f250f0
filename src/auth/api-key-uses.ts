/** How stale a key's last-used time may be: a process writes it at most once in this long per key. */
export const API_KEY_USE_NOTE_INTERVAL_MS = 60_000;

/** The most keys a process remembers writing the use of; beyond it the oldest is forgotten (and may be written again early). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * A key's last-used time without a write per request: the first use a process sees is written at once,
 * later ones only once `intervalMs` has passed since its last write for that key. The write runs beside
 * the request, never in its way; a failed one is logged and tried again at the next use.
 */
export function createApiKeyUseNotes(deps: {
  intervalMs: number;
  write: (keyId: string, at: Date) => Promise<void>;
  onError: (error: unknown) => void;
  now?: () => number;
}) {
  const { intervalMs, write, onError, now = Date.now } = deps;
  const writtenAt = new Map<string, number>();

  return {
    note(keyId: string): void {
      const at = now();
      const last = writtenAt.get(keyId);
      if (last !== undefined && at - last < intervalMs) return;
      writtenAt.delete(keyId);
      if (writtenAt.size >= MAX_REMEMBERED_KEYS) writtenAt.delete(writtenAt.keys().next().value!);
      writtenAt.set(keyId, at);
      write(keyId, new Date(at)).catch((error: unknown) => {
        if (writtenAt.get(keyId) === at) writtenAt.delete(keyId);
        onError(error);
      });
    },
  };
}
