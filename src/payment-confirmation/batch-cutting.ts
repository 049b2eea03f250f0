import { keywordListBytes, keywordListGrowth, SEARCH_ATTRIBUTE_BUDGET_BYTES } from '../contracts/search-attributes';
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
  const byTenant = new Map<string, Array<Cutting<T>>>();
  for (const item of queued) {
    const batches = byTenant.get(item.tenantId) ?? [];
    byTenant.set(item.tenantId, batches);
    const current = batches.at(-1);
    if (current && addIfFits(current, item, maxSize)) continue;
    const fresh = newCutting<T>();
    add(fresh, item, growthOf(fresh, item));
    batches.push(fresh);
  }
  const tenants = [...byTenant.values()];
  const turns = Math.max(0, ...tenants.map((batches) => batches.length));
  return Array.from({ length: turns }, (_unused, turn) =>
    tenants.flatMap((batches) => (turn < batches.length ? [batches[turn]!.items] : [])),
  ).flat();
}

/** A batch being cut, with its two search attribute lists as they grow (distinct values, JSON bytes). */
interface Cutting<T> {
  items: T[];
  refs: Set<string>;
  refBytes: number;
  accounts: Set<string>;
  accountBytes: number;
}

/** What an item would add to each of a batch's lists, in bytes. */
interface Growth {
  refBytes: number;
  accountBytes: number;
}

function newCutting<T>(): Cutting<T> {
  return { items: [], refs: new Set(), refBytes: keywordListBytes([]), accounts: new Set(), accountBytes: keywordListBytes([]) };
}

function growthOf<T extends QueuedConfirmation>(batch: Cutting<T>, item: T): Growth {
  return { refBytes: keywordListGrowth(batch.refs, item.providerTxnRef), accountBytes: keywordListGrowth(batch.accounts, item.accountRef) };
}

/** Adds the item when the batch has room for it and both lists stay within the budget; false, untouched, when not. */
function addIfFits<T extends QueuedConfirmation>(batch: Cutting<T>, item: T, maxSize: number): boolean {
  if (batch.items.length >= maxSize) return false;
  const growth = growthOf(batch, item);
  if (
    batch.refBytes + growth.refBytes > SEARCH_ATTRIBUTE_BUDGET_BYTES ||
    batch.accountBytes + growth.accountBytes > SEARCH_ATTRIBUTE_BUDGET_BYTES
  )
    return false;
  add(batch, item, growth);
  return true;
}

function add<T extends QueuedConfirmation>(batch: Cutting<T>, item: T, growth: Growth): void {
  batch.refBytes += growth.refBytes;
  batch.refs.add(item.providerTxnRef);
  batch.accountBytes += growth.accountBytes;
  batch.accounts.add(item.accountRef);
  batch.items.push(item);
}
