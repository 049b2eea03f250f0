import autocannon from 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/** The q-th quantile of sorted samples (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/**
 * autocannon against `baseUrl` for `durationS` seconds or `amount` requests; `next()` supplies every request (so bodies can be unique).
 * Percentiles
 * come from each 2xx response's own timing (autocannon measures it with hrtime), because autocannon's
 * histogram keeps whole milliseconds, too coarse for pages answered in one or two.
 */
export async function runLoad(
  baseUrl: string,
  options: { connections: number; next: () => LoadRequest } & ({ durationS: number } | { amount: number }),
): Promise<LoadResult> {
  const latencies: number[] = [];
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    ...('amount' in options ? { amount: options.amount } : { duration: options.durationS }),
    setupClient: (client) => {
      client.on('response', (statusCode: number, _bytes: number, responseTimeMs: number) => {
        if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
      });
    },
    requests: [
      {
        setupRequest: (request) => {
          const next = options.next();
          return {
            ...request,
            method: next.method,
            path: next.path,
            headers: next.headers,
            ...(next.body !== undefined ? { body: next.body } : {}),
          };
        },
      },
    ],
  });
  const ok = result['2xx'];
  latencies.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    durationS: result.duration,
    rps: ok / result.duration,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}
