// Route holds for in-place restarts. Holds overlap: each caller's hold ends by its own release
// (or its time limit), and a route stays held while any hold on it remains. A scan watches the
// holds from its probe's start, so a hold taken or released while the probe ran still fences it.

export type Holds = ReturnType<typeof createHolds>;

export function createHolds(clock: () => number) {
  const holds = new Map<string, Set<{ until: number }>>();
  const watchers = new Set<Set<string>>();
  const touch = (route: string) => {
    for (const touched of watchers) touched.add(route);
  };

  /** The routes held now; expired holds are dropped on the way. */
  const heldNow = () => {
    const now = clock();
    const routes = new Set<string>();
    for (const [route, set] of holds) {
      for (const hold of set) if (hold.until <= now) set.delete(hold);
      if (set.size === 0) holds.delete(route);
      else routes.add(route);
    }
    return routes;
  };

  return {
    /** Hold `route` for at most `ms`; the answer ends this hold only (again: nothing). */
    hold(route: string, ms: number): () => void {
      const hold = { until: clock() + ms };
      const set = holds.get(route) ?? new Set();
      set.add(hold);
      holds.set(route, set);
      touch(route);
      return () => {
        const current = holds.get(route);
        if (!current?.delete(hold)) return;
        if (current.size === 0) holds.delete(route);
        touch(route);
      };
    },
    heldNow,
    /** Start watching (at a probe's start); `end()` gives every route held at any time since. */
    watch() {
      const touched = heldNow();
      watchers.add(touched);
      return {
        end(): ReadonlySet<string> {
          watchers.delete(touched);
          for (const route of heldNow()) touched.add(route);
          return touched;
        },
      };
    },
  };
}
