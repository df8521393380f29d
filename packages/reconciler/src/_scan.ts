// One scan as a pure function: what the reconciler remembers, the tracked agents as read before
// the probe started and after it answered, and the probe's result in; observed, dormant, removed
// and discovered out. The loop around it (_reconcile.ts) only serialises, times and calls back.
import type { FoundAgent } from "./_discover.js";
import { identityIndex, matcher } from "./_match.js";
import { type ProbeResult, processKey, sameLook, type TrackedAgent } from "./_tracked.js";

/** Misses counted against one look at an agent (its identity and route). */
export type Miss = { against: string; dormant: number; gone: number };

/** What the reconciler carries from one scan to the next. */
export type ScanMemory = {
  readonly misses: ReadonlyMap<string, Miss>;
  /** Backends that did not answer at the last scan with evidence. */
  readonly down: ReadonlySet<string>;
  /** `pid:start` of processes not to rediscover until a probe proves them gone. */
  readonly suppressed: ReadonlySet<string>;
  /**
   * Where each identity sat among the tracked agents at the last scan: reused while still exact,
   * so a scan of an unchanged registry builds no index. A cache: it never changes an outcome.
   */
  readonly identities?: ReadonlyMap<string, number> | undefined;
};

export const emptyMemory = (): ScanMemory => ({
  misses: new Map(),
  down: new Set(),
  suppressed: new Set(),
});

export type ScanInput = {
  memory: ScanMemory;
  result: ProbeResult;
  /** The tracked agents as read before the probe started. */
  before: readonly TrackedAgent[];
  /** The tracked agents as read after the probe answered. */
  after: readonly TrackedAgent[];
  /** Routes held at any moment since the probe started: skipped by both halves. */
  held: ReadonlySet<string>;
  /** Suppressions made since the probe started: this probe cannot prove their process gone. */
  freshSuppressions?: ReadonlySet<string> | undefined;
  /** Confirmed scans before dormant and before removed. */
  misses: number;
};

export type ScanOutcome = {
  memory: ScanMemory;
  availability: { backend: string; available: boolean }[];
  observed: { tracked: TrackedAgent; agent: FoundAgent }[];
  dormant: TrackedAgent[];
  removed: TrackedAgent[];
  discovered: FoundAgent[];
  /** Keys of tracked agents this probe could not judge: changed during it, held, or unseen. */
  unjudged: string[];
};

/** What changed while the probe ran: those agents, routes and identities it may not judge. */
function fences(input: ScanInput) {
  const { before, after } = input;
  const routes = new Set(input.held);
  const identities = new Set<string>();
  const changed = new Uint8Array(after.length);
  const fence = (tracked: TrackedAgent) => {
    routes.add(tracked.route);
    if (tracked.identity !== undefined) identities.add(tracked.identity);
  };
  // Registries keep their order, so the two reads are compared by position; a key map is built
  // only when they disagree.
  let byKey: Map<string, TrackedAgent> | undefined;
  for (let index = 0; index < after.length; index += 1) {
    const tracked = after[index]!;
    let earlier = before[index];
    if (earlier?.key !== tracked.key) {
      byKey ??= new Map(before.map((look) => [look.key, look]));
      earlier = byKey.get(tracked.key);
    }
    if (earlier && sameLook(earlier, tracked)) continue;
    changed[index] = 1;
    fence(tracked);
    if (earlier) fence(earlier);
  }
  if (byKey || before.length !== after.length) {
    // Agents the registry dropped while the probe ran.
    const present = new Set(after.map((tracked) => tracked.key));
    for (const earlier of before) if (!present.has(earlier.key)) fence(earlier);
  }
  const isFenced = (route: string, identity: string | undefined) =>
    routes.has(route) || (identity !== undefined && identities.has(identity));
  // Only changed agents' and held routes are fenced: usually none, so this pass is cheap.
  if (routes.size > 0 || identities.size > 0) {
    for (let index = 0; index < after.length; index += 1) {
      const tracked = after[index]!;
      if (isFenced(tracked.route, tracked.identity)) changed[index] = 1;
    }
  }
  return { changed, isFenced };
}

/** Is there evidence about this agent's server: did it answer? */
function serverAnswered(result: ProbeResult & { ok: true }, tracked: TrackedAgent) {
  if (tracked.backend === undefined) return result.unavailable.length === 0;
  if (result.unavailable.includes(tracked.backend)) return false;
  return result.answered === undefined || result.answered.includes(tracked.backend);
}

function availability(memory: ScanMemory, unavailable: readonly string[]) {
  const events: ScanOutcome["availability"] = [];
  const down = new Set(unavailable);
  for (const backend of down)
    if (!memory.down.has(backend)) events.push({ backend, available: false });
  for (const backend of memory.down)
    if (!down.has(backend)) events.push({ backend, available: true });
  return { down, events };
}

/** One scan: pure, linear in tracked plus found agents. */
export function reconcileScan(input: ScanInput): ScanOutcome {
  const { memory, result } = input;
  const outcome: ScanOutcome = {
    memory,
    availability: [],
    observed: [],
    dormant: [],
    removed: [],
    discovered: [],
    unjudged: [],
  };
  // No process table, no evidence: every agent stays as it is.
  if (!result.ok) return outcome;
  const servers = availability(memory, result.unavailable);
  outcome.availability = servers.events;
  const fenced = fences(input);
  const identities = identityIndex(input.after, memory.identities);
  const match = matcher(
    input.after,
    identities,
    () => new Set(result.agents.map((agent) => agent.identity)),
    fenced.changed,
  );
  const suppressed = memory.suppressed;
  for (const agent of result.agents) {
    if (fenced.isFenced(agent.route, agent.identity)) continue;
    const index = match.take(agent);
    if (index >= 0) outcome.observed.push({ tracked: input.after[index]!, agent });
    else if (!suppressed.has(processKey(agent))) outcome.discovered.push(agent);
  }
  const misses = new Map<string, Miss>();
  const noEvidence = new Set(result.unknown);
  for (const entry of result.ambiguous) noEvidence.add(entry.route);
  for (let index = 0; index < input.after.length; index += 1) {
    if (match.isTaken(index)) continue;
    const tracked = input.after[index]!;
    const previous = memory.misses.get(tracked.key);
    if (
      fenced.changed[index] ||
      !serverAnswered(result, tracked) ||
      noEvidence.has(tracked.route)
    ) {
      outcome.unjudged.push(tracked.key);
      if (previous) misses.set(tracked.key, previous);
      continue;
    }
    // A count against another identity or place does not carry over.
    const against = `${tracked.identity ?? ""}\u0000${tracked.route}`;
    const count =
      previous && previous.against === against ? previous : { against, dormant: 0, gone: 0 };
    if (result.routes.has(tracked.route)) {
      const dormant = count.dormant + 1;
      misses.set(tracked.key, { against, dormant, gone: 0 });
      if (dormant === input.misses && tracked.state !== "dormant") outcome.dormant.push(tracked);
    } else {
      const gone = count.gone + 1;
      if (gone >= input.misses) outcome.removed.push(tracked);
      else misses.set(tracked.key, { against, dormant: count.dormant, gone });
    }
  }
  outcome.memory = {
    misses,
    down: servers.down,
    suppressed: endSuppressions(suppressed, result.processes, input.freshSuppressions),
    identities,
  };
  return outcome;
}

/** Suppressions end when the probe proves their process gone (unless made after it started). */
function endSuppressions(
  suppressed: ReadonlySet<string>,
  alive: ReadonlySet<string>,
  fresh: ReadonlySet<string> | undefined,
): ReadonlySet<string> {
  if (suppressed.size === 0) return suppressed;
  const kept = new Set<string>();
  for (const key of suppressed) if (alive.has(key) || fresh?.has(key)) kept.add(key);
  return kept;
}

/** An agent the caller proved itself: the tracked agent it continues, or a discovery. */
export function adoptAgent(
  memory: ScanMemory,
  current: readonly TrackedAgent[],
  agent: FoundAgent,
): { memory: ScanMemory; observed?: TrackedAgent; discovered?: FoundAgent } {
  const identities = identityIndex(current, memory.identities);
  const index = matcher(current, identities, () => new Set([agent.identity])).take(agent);
  const tracked = current[index];
  if (tracked) {
    const misses = new Map(memory.misses);
    misses.delete(tracked.key);
    return { memory: { ...memory, misses, identities }, observed: tracked };
  }
  if (memory.suppressed.has(processKey(agent))) return { memory: { ...memory, identities } };
  return { memory: { ...memory, identities }, discovered: agent };
}
