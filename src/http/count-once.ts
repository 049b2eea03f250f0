import type { AppContext } from './context';

/**
 * Counts `name` against a rate limit once per request. A read the replica fails is made again on the primary (the
 * read-routing middleware runs the handler a second time), and the caller asked once.
 */
export async function countOnce(ctx: AppContext, name: string, count: () => Promise<void>): Promise<void> {
  const counted = (ctx.state.counted ??= new Set<string>());
  if (counted.has(name)) return;
  await count();
  counted.add(name);
}
