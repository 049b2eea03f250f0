import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { keywordListBytes, keywordListGrowth, SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES } from '../../src/contracts/search-attributes';
import { cutBatches } from '../../src/payment-confirmation/batch-cutting';

describe('batch cutting: one tenant per batch, within the size and the search attribute limits', () => {
  const queued = (tenantId: string, count: number, accounts = 1) =>
    Array.from({ length: count }, (_unused, index) => ({
      entryId: `${tenantId}-${index}`,
      tenantId,
      accountRef: `va_${tenantId}_${index % accounts}`,
      providerTxnRef: `API-VACT_TRA-9A8B7-${randomUUID()}`,
    }));

  it("never mixes tenants, keeps each tenant's queue order, stops at the maximum size and gives every tenant a batch before anyone a second", () => {
    const [a, b, c] = [queued('a', 9), queued('b', 3), queued('c', 5)];
    const batches = cutBatches([...a.slice(0, 5), ...b, ...a.slice(5), ...c], 4);
    assert.deepEqual(
      batches.map((batch) => batch.map((item) => item.entryId)),
      [['a-0', 'a-1', 'a-2', 'a-3'], ['b-0', 'b-1', 'b-2'], ['c-0', 'c-1', 'c-2', 'c-3'], ['a-4', 'a-5', 'a-6', 'a-7'], ['c-4'], ['a-8']],
    );
  });

  it("cuts where the provider references would pass Temporal's 2 KB value limit: 34 of the provider's 55-character references", () => {
    const batches = cutBatches(queued('t', 100), 500);
    assert.deepEqual(
      batches.map((batch) => batch.length),
      [34, 34, 32],
    );
    for (const batch of batches) {
      assert.ok(keywordListBytes(batch.map((item) => item.providerTxnRef)) <= SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES);
      assert.ok(keywordListBytes(batch.map((item) => item.accountRef)) <= SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES);
    }
  });

  it('cuts on the account list too, and counts an account once however many of its payments a batch holds', () => {
    const long = queued('t', 60, 60).map((item) => ({
      ...item,
      providerTxnRef: `r${item.entryId}`,
      accountRef: `${item.accountRef}_${'x'.repeat(60)}`,
    }));
    assert.ok(
      cutBatches(long, 500).every((batch) => keywordListBytes(batch.map((item) => item.accountRef)) <= SEARCH_ATTRIBUTE_VALUE_LIMIT_BYTES),
    );
    assert.ok(cutBatches(long, 500).length > 1);
    const oneAccount = queued('t', 30, 1).map((item) => ({ ...item, providerTxnRef: `r${item.entryId}` }));
    assert.deepEqual(
      cutBatches(oneAccount, 500).map((batch) => batch.length),
      [30],
    );
  });

  it('grows a keyword list one value at a time to exactly the size measured whole, escapes, repeats and all', () => {
    const values = ['API-1', 'naïra-₦', 'API-1', 'quote"and\\slash', 'tab\there', 'API-2', 'naïra-₦'];
    const list = new Set<string>();
    let bytes = keywordListBytes([]);
    for (const value of values) {
      bytes += keywordListGrowth(list, value);
      list.add(value);
      assert.equal(bytes, keywordListBytes([...list]), value);
    }
  });
});
