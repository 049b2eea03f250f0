import assert from 'node:assert/strict';
import { countOnce } from '../../src/http/count-once';
import type { AppContext } from '../../src/http/context';
import { replicaRead } from '../../src/http/middleware/read-routing';
import { createLogger } from '../../src/logger';
import type { ReadRouter } from '../../src/read-routing/read-router';

/** A router that sends every read to the replica, whose first read fails as a replica that went away does. */
function replicaFailingOnce(): ReadRouter & { replicaReads: number } {
  const router = {
    replicaReads: 0,
    db: undefined as never,
    replicated: true,
    choose: async () => ({ source: 'replica' as const, reason: 'replica_current' as const }),
    async onReplica<T>(work: () => Promise<T>): Promise<T> {
      router.replicaReads += 1;
      await work();
      throw Object.assign(new Error('terminating connection due to conflict with recovery'), { code: '40001' });
    },
    replicaFailed: () => true,
    wrote: async () => 0n as never,
  };
  return router;
}

function requestContext(): AppContext {
  const headers = new Map<string, string>();
  return {
    get: () => '',
    set: (name: string, value: string) => headers.set(name, value),
    state: { requestId: 'r', log: createLogger('silent', 'test'), tenant: { id: 't', name: 'T' } },
    headers,
  } as unknown as AppContext;
}

describe('a read the replica fails is made again on the primary', () => {
  it('runs the handler again, serving from the primary, and counts the request against its rate limit once', async () => {
    const router = replicaFailingOnce();
    const ctx = requestContext();
    let handled = 0;
    let counted = 0;
    await replicaRead(router)(ctx, async () => {
      handled += 1;
      await countOnce(ctx, 'exports', async () => {
        counted += 1;
      });
    });
    assert.equal(router.replicaReads, 1);
    assert.equal(handled, 2, 'made on the replica, then again on the primary');
    assert.equal((ctx as unknown as { headers: Map<string, string> }).headers.get('X-Read-From'), 'primary');
    assert.equal(counted, 1);
  });

  it('counts each limit a request names once each', async () => {
    const ctx = requestContext();
    const counts: string[] = [];
    for (const name of ['exports', 'overview', 'exports']) await countOnce(ctx, name, async () => void counts.push(name));
    assert.deepEqual(counts, ['exports', 'overview']);
  });
});
