import { distinct, keywordListBytes, SEARCH_ATTRIBUTE_BUDGET_BYTES } from '../contracts/search-attributes';
/**
 * How queued confirmations are cut into batches. Pure: no I/O.
 *
 * A batch workflow lists its payments' provider transaction references and account references in two
 * keyword-list search attributes, so each payment stays findable in the Temporal UI. Temporal caps one
 * search attribute value at 2 KB by default (`limit.searchAttributeSizeOfValueLimit`), so a batch is cut
 * where either list, as the JSON Temporal stores, would pass that with a margin; and at `maxSize`
 * payments, which keeps a round's history events (one marker with every payment's result) small.
 */

export interface QueuedConfirmation {
  entryId: string;
  tenantId: string;
  accountRef: string;
  providerTxnRef: string;
}

/**
 * Batches of one tenant each, the tenants taking turns: every tenant's first batch (in the order the
 * tenants first appear in the queue), then every tenant's second, and so on, so whoever cuts the list
 * short keeps one batch of each tenant before a second of anyone's. Within a tenant the queue's order
 * holds: its payments go together until a batch is full (`maxSize`, or either search attribute list at
 * its byte budget). A single payment whose own reference passes the budget goes alone (its workflow then
 * carries no reference list; see the batcher).
 */
export function cutBatches<T extends QueuedConfirmation>(queued: readonly T[], maxSize: number): T[][] {
  const byTenant = new Map<string, T[][]>();
  for (const item of queued) {
    const batches = byTenant.get(item.tenantId) ?? [];
    byTenant.set(item.tenantId, batches);
    const current = batches.at(-1);
    if (current && fits(current, item, maxSize)) current.push(item);
    else batches.push([item]);
  }
  const tenants = [...byTenant.values()];
  const turns = Math.max(0, ...tenants.map((batches) => batches.length));
  return Array.from({ length: turns }, (_unused, turn) =>
    tenants.flatMap((batches) => (turn < batches.length ? [batches[turn]!] : [])),
  ).flat();
}

function fits<T extends QueuedConfirmation>(batch: readonly T[], item: T, maxSize: number): boolean {
  if (batch.length >= maxSize) return false;
  const refs = distinct([...batch.map((queued) => queued.providerTxnRef), item.providerTxnRef]);
  const accounts = distinct([...batch.map((queued) => queued.accountRef), item.accountRef]);
  return keywordListBytes(refs) <= SEARCH_ATTRIBUTE_BUDGET_BYTES && keywordListBytes(accounts) <= SEARCH_ATTRIBUTE_BUDGET_BYTES;
}
