import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface SignedEvent {
  body: string;
  headers: Record<string, string>;
}

export interface PacedResult {
  sent: number;
  ok: number;
  failed: number;
  /** Sends the sender could not make on time because too many were still waiting for an answer. */
  behind: number;
  latenciesMs: number[];
}

/** Answers still awaited beyond which the sender stops adding more (and counts the shortfall as `behind`). */
const MAX_IN_FLIGHT = 512;

/**
 * Open loop: `ratePerSecond` webhooks a second for `seconds`, whatever the answers take (a client that
 * waits for each answer before sending the next would slow down with the service and hide its queueing).
 */
export async function sendAtRate(apiUrl: string, events: SignedEvent[], ratePerSecond: number, seconds: number): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const result: PacedResult = { sent: 0, ok: 0, failed: 0, behind: 0, latenciesMs: [] };
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let cursor = 0;
  const send = (event: SignedEvent): void => {
    const at = performance.now();
    const done = new Promise<void>((resolve) => {
      const call = http.request(
        `${apiUrl}/webhooks/provider`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', ...event.headers } },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode === 200) {
              result.ok += 1;
              result.latenciesMs.push(performance.now() - at);
            } else result.failed += 1;
            resolve();
          });
        },
      );
      call.on('error', () => {
        result.failed += 1;
        resolve();
      });
      call.end(event.body);
    }).finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  for (;;) {
    const elapsedS = (performance.now() - started) / 1000;
    if (elapsedS >= seconds) break;
    const due = Math.floor(elapsedS * ratePerSecond) - result.sent - result.behind;
    for (let i = 0; i < due; i += 1) {
      if (inFlight.size >= MAX_IN_FLIGHT || cursor >= events.length) result.behind += 1;
      else {
        send(events[cursor++]!);
        result.sent += 1;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return result;
}

/** The q-th quantile of samples (nearest rank). */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
