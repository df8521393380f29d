// Seat key holds for in-place restarts. Holds overlap: each caller's hold ends by its own release
// (or its time limit), and a seat key stays held while any hold on it remains. A scan watches the
// holds from its scan's start, so a hold taken or released while the scan ran still fences it.

export type Holds = ReturnType<typeof createHolds>;

export function createHolds(clock: () => number) {
  const holds = new Map<string, Set<{ until: number }>>();
  const watchers = new Set<Set<string>>();
  const touch = (seatKey: string) => {
    for (const touched of watchers) touched.add(seatKey);
  };

  /** The seat keys held now; expired holds are dropped on the way. */
  const heldNow = () => {
    const now = clock();
    const seatKeys = new Set<string>();
    for (const [seatKey, set] of holds) {
      for (const hold of set) if (hold.until <= now) set.delete(hold);
      if (set.size === 0) holds.delete(seatKey);
      else seatKeys.add(seatKey);
    }
    return seatKeys;
  };

  return {
    /** Hold `seatKey` for at most `ms`; the answer ends this hold only (again: nothing). */
    hold(seatKey: string, ms: number): () => void {
      const hold = { until: clock() + ms };
      const set = holds.get(seatKey) ?? new Set();
      set.add(hold);
      holds.set(seatKey, set);
      touch(seatKey);
      return () => {
        const current = holds.get(seatKey);
        if (!current?.delete(hold)) return;
        if (current.size === 0) holds.delete(seatKey);
        touch(seatKey);
      };
    },
    heldNow,
    /** Start watching (at a scan's start); `end()` gives every seat key held at any time since. */
    watch() {
      const touched = heldNow();
      watchers.add(touched);
      return {
        end(): ReadonlySet<string> {
          watchers.delete(touched);
          for (const seatKey of heldNow()) touched.add(seatKey);
          return touched;
        },
      };
    },
  };
}
