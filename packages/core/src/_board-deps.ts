// Dependencies between cards: the check a new card's dependencies pass (each known, no cycle) and
// which unfinished cards block a claim. The refusals these checks give, and their fixes, are here.
import { byCardNumber, type Card, parseCardId } from "./_board-card.js";

export type DependencyRefusal = {
  ok: false;
  reason: "bad-card-id" | "unknown-dependency" | "dependency-cycle";
  error: string;
  fix: string;
};

type Graph = ReadonlyMap<string, { deps: readonly string[] }>;

/**
 * A path that starts at `from` and comes back to a card already on it, following dependencies,
 * or undefined when every path from `from` ends. Cards the graph does not know end a path.
 */
export function findCycle(graph: Graph, from: string): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  // Iterative depth-first search: a hostile board of thousands of cards must not overflow the stack.
  const stack: { id: string; next: number }[] = [{ id: from, next: 0 }];
  path.push(from);
  onPath.add(from);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { id: string; next: number };
    const deps = graph.get(top.id)?.deps ?? [];
    const dep = deps[top.next];
    top.next += 1;
    if (dep === undefined) {
      stack.pop();
      path.pop();
      onPath.delete(top.id);
      done.add(top.id);
      continue;
    }
    if (onPath.has(dep)) return [...path.slice(path.indexOf(dep)), dep];
    if (done.has(dep) || !graph.has(dep)) continue;
    stack.push({ id: dep, next: 0 });
    path.push(dep);
    onPath.add(dep);
  }
  return undefined;
}

/**
 * The dependencies a new card `id` may have: ids as typed (`c3`, `3`, `#3`), each a known card,
 * listed once, and no cycle through them. A cycle cannot come from a new card alone, but a board
 * file edited by hand can hold one, and a card depending on it could never be claimed.
 */
export function checkDependencies(
  cards: ReadonlyMap<string, Card>,
  id: string,
  typed: readonly string[],
): { ok: true; deps: string[] } | DependencyRefusal {
  const deps: string[] = [];
  for (const text of typed) {
    const parsed = parseCardId(text);
    if (!parsed.ok) return { ...parsed, fix: "name dependencies by card id, such as c3 and c4" };
    if (parsed.id === id) return cycleRefusal([id, id]);
    if (!cards.has(parsed.id)) {
      return {
        ok: false,
        reason: "unknown-dependency",
        error: `there is no card ${parsed.id} to depend on`,
        fix: "add that card first, or list every card on the board to find it",
      };
    }
    if (!deps.includes(parsed.id)) deps.push(parsed.id);
  }
  const graph = new Map<string, { deps: readonly string[] }>(cards);
  graph.set(id, { deps });
  const cycle = findCycle(graph, id);
  return cycle ? cycleRefusal(cycle) : { ok: true, deps };
}

function cycleRefusal(cycle: readonly string[]): DependencyRefusal {
  return {
    ok: false,
    reason: "dependency-cycle",
    error: `the dependencies go round in a circle (${cycle.join(" → ")}), so none could ever be claimed`,
    fix: "drop one dependency from the circle",
  };
}

/** The dependencies of `card` not yet done, by number; a dependency with no card blocks too. */
export function blockers(card: Pick<Card, "deps">, cards: ReadonlyMap<string, Card>): string[] {
  return card.deps
    .filter((dep) => cards.get(dep)?.state !== "done")
    .map((id) => ({ id }))
    .sort(byCardNumber)
    .map((entry) => entry.id);
}

/** The blocked refusal: what blocks, who holds each, and what to do. */
export function blockedRefusal(
  card: Card,
  blocking: readonly string[],
  cards: ReadonlyMap<string, Card>,
) {
  const held = blocking
    .map((id) => cards.get(id))
    .filter((dep): dep is Card => dep?.state === "held")
    .map((dep) => `${dep.id} held by ${dep.owner?.label ?? "?"}`);
  return {
    ok: false as const,
    reason: "card-blocked" as const,
    error: `card ${card.id} is blocked by ${blocking.join(", ")}${held.length > 0 ? ` (${held.join(", ")})` : ""}`,
    fix: `finish ${blocking.join(", ")} first, or claim one of them`,
    blockers: [...blocking],
  };
}
