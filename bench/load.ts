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

/** autocannon against `baseUrl`; `next()` supplies every request (so bodies can be unique). */
export async function runLoad(baseUrl: string, options: { connections: number; durationS: number; next: () => LoadRequest }): Promise<LoadResult> {
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.durationS,
    requests: [
      {
        setupRequest: (request) => {
          const next = options.next();
          return { ...request, method: next.method, path: next.path, headers: next.headers, ...(next.body !== undefined ? { body: next.body } : {}) };
        },
      },
    ],
  });
  const ok = result['2xx'];
  return {
    requests: result.requests.total,
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    durationS: result.duration,
    rps: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
