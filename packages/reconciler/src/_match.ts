// Which tracked agent a found one continues: same identity first; else, for an agent never bound
// (or bound with no process known yet), the same placement and engine, unless its own process is
// still seen elsewhere.
//
// Linear, and sparing with hash tables: past about 4,000 entries a Map's backing store is
// allocated in V8's large-object space, fresh pages each time, so one Map of 10,000 identities
// built per scan made a pass over 10,000 agents 16× the cost of one over 1,000. The identity
// index is therefore kept from scan to scan while the registry has not changed, and the
// placement index and the set of found identities are built only when some agent needs them.
import type { FoundAgent } from "./_discover.js";
import type { TrackedAgent } from "./_tracked.js";

export type Matcher = {
  /** The index (in `candidates`) of the tracked agent `agent` continues, or -1. */
  take(agent: FoundAgent): number;
  isTaken(index: number): boolean;
};

/**
 * Where each identity sits in `candidates`: `previous` itself when it still says exactly that
 * (checked with one lookup per agent, no allocation), else a new index.
 */
export function identityIndex(
  candidates: readonly TrackedAgent[],
  previous?: ReadonlyMap<string, number>,
): ReadonlyMap<string, number> {
  if (previous) {
    let count = 0;
    let valid = true;
    for (let index = 0; valid && index < candidates.length; index += 1) {
      const identity = candidates[index]!.identity;
      if (identity === undefined) continue;
      count += 1;
      valid = previous.get(identity) === index;
    }
    if (valid && count === previous.size) return previous;
  }
  const index = new Map<string, number>();
  for (let at = 0; at < candidates.length; at += 1) {
    const identity = candidates[at]!.identity;
    if (identity !== undefined) index.set(identity, at);
  }
  return index;
}

/**
 * @param byIdentity `identityIndex(candidates)`
 * @param found the identities of every agent the scan found (asked for only when needed)
 * @param excluded candidates that may not be matched (their index set to 1)
 */
export function matcher(
  candidates: readonly TrackedAgent[],
  byIdentity: ReadonlyMap<string, number>,
  found: () => ReadonlySet<string>,
  excluded?: Uint8Array,
): Matcher {
  const taken = new Uint8Array(candidates.length);
  let bySeatKey: Map<string, number | number[]> | undefined;
  let seen: ReadonlySet<string> | undefined;
  const placements = () => {
    const seatKeys = new Map<string, number | number[]>();
    for (let index = 0; index < candidates.length; index += 1) {
      const tracked = candidates[index]!;
      if (excluded?.[index] || (tracked.bound && tracked.identity !== undefined)) continue;
      const list = seatKeys.get(tracked.seatKey);
      if (list === undefined) seatKeys.set(tracked.seatKey, index);
      else if (Array.isArray(list)) list.push(index);
      else seatKeys.set(tracked.seatKey, [list, index]);
    }
    return seatKeys;
  };
  const fits = (index: number, agent: FoundAgent) => {
    const candidate = candidates[index]!;
    if (taken[index] || candidate.engine !== agent.engine) return false;
    if (candidate.identity === undefined) return true;
    seen ??= found();
    return !seen.has(candidate.identity);
  };
  return {
    take(agent) {
      let index = byIdentity.get(agent.identity) ?? -1;
      if (index >= 0 && (taken[index] || excluded?.[index])) index = -1;
      if (index < 0) {
        bySeatKey ??= placements();
        const placed = bySeatKey.get(agent.seatKey);
        if (Array.isArray(placed)) index = placed.find((at) => fits(at, agent)) ?? -1;
        else if (placed !== undefined && fits(placed, agent)) index = placed;
      }
      if (index >= 0) taken[index] = 1;
      return index;
    },
    isTaken: (index) => taken[index] === 1,
  };
}
