export interface Page {
  pagination: { nextCursor: string | null; hasMore: boolean };
}

/**
 * Every item of a cursor-paged list, fetching the next page only when the previous one is used up:
 * `for await (const customer of client.customers.list())`.
 */
export async function* paginate<P extends Page, Item>(
  fetchPage: (after: string | undefined) => Promise<P>,
  itemsOf: (page: P) => readonly Item[],
): AsyncGenerator<Item, void, undefined> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage(after);
    yield* itemsOf(page);
    if (!page.pagination.hasMore || page.pagination.nextCursor === null) return;
    after = page.pagination.nextCursor;
  }
}
