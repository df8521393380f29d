// Many small reads at once, a few at a time: a team of 1,000 records and 10,000 cards read with
// every read in flight at once holds every read's buffers, handles and promises at the same
// moment (the dashboard's memory at rest was twice a small team's), for no gain in speed: the
// file system's thread pool runs four at a time.

/** How many reads of one listing are in flight at once. */
export const READS_IN_FLIGHT = 32;

/** `each` over `items`, at most `limit` at a time; the results in the items' order. */
export async function mapBounded<Item, Result>(
  items: readonly Item[],
  each: (item: Item) => Promise<Result>,
  limit = READS_IN_FLIGHT,
): Promise<Result[]> {
  const results: Result[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await each(items[index] as Item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
