// One scan as a pure function: what the reconciler remembers, the tracked agents as read before
// the scan started and after it answered, and the scan's result in; observed, dormant, removed
// and discovered out. The loop around it (_reconcile.ts) only serialises, times and calls back.
import type { FoundAgent } from "./_discover.js";
import { identityIndex, matcher } from "./_match.js";
import { processKey, type ScanResult, sameTracked, type TrackedAgent } from "./_tracked.js";

/** Misses counted against one sighting of an agent (its identity and seat key). */
export type Miss = { against: string; dormant: number; gone: number };

/** What the reconciler carries from one scan to the next. */
export type ScanMemory = {
  readonly misses: ReadonlyMap<string, Miss>;
  /** Servers that did not answer at the last scan with evidence. */
  readonly down: ReadonlySet<string>;
  /** `pid:start` of processes not to rediscover until a scan proves them gone. */
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
  result: ScanResult;
  /** The tracked agents as read before the scan started. */
  before: readonly TrackedAgent[];
  /** The tracked agents as read after the scan answered. */
  after: readonly TrackedAgent[];
  /** Seat keys held at any moment since the scan started: skipped by both halves. */
  held: ReadonlySet<string>;
  /** Suppressions made since the scan started: this scan cannot prove their process gone. */
  freshSuppressions?: ReadonlySet<string> | undefined;
  /** Confirmed scans before dormant and before removed. */
  misses: number;
};

export type ScanOutcome = {
  memory: ScanMemory;
  availability: { server: string; available: boolean }[];
  observed: { tracked: TrackedAgent; agent: FoundAgent }[];
  dormant: TrackedAgent[];
  removed: TrackedAgent[];
  discovered: FoundAgent[];
  /** Keys of tracked agents this scan could not judge: changed during it, held, or unseen. */
  unjudged: string[];
};

/** What changed while the scan ran: those agents, seat keys and identities it may not judge. */
function fences(input: ScanInput) {
  const { before, after } = input;
  const seatKeys = new Set(input.held);
  const identities = new Set<string>();
  const changed = new Uint8Array(after.length);
  const fence = (tracked: TrackedAgent) => {
    seatKeys.add(tracked.seatKey);
    if (tracked.identity !== undefined) identities.add(tracked.identity);
  };
  // Registries keep their order, so the two reads are compared by position; a key map is built
  // only when they disagree.
  let byKey: Map<string, TrackedAgent> | undefined;
  for (let index = 0; index < after.length; index += 1) {
    const tracked = after[index]!;
    let earlier = before[index];
    if (earlier?.key !== tracked.key) {
      byKey ??= new Map(before.map((earlier) => [earlier.key, earlier]));
      earlier = byKey.get(tracked.key);
    }
    if (earlier && sameTracked(earlier, tracked)) continue;
    changed[index] = 1;
    fence(tracked);
    if (earlier) fence(earlier);
  }
  if (byKey || before.length !== after.length) {
    // Agents the registry dropped while the scan ran.
    const present = new Set(after.map((tracked) => tracked.key));
    for (const earlier of before) if (!present.has(earlier.key)) fence(earlier);
  }
  const isFenced = (seatKey: string, identity: string | undefined) =>
    seatKeys.has(seatKey) || (identity !== undefined && identities.has(identity));
  // Only changed agents' and held seat keys are fenced: usually none, so this pass is cheap.
  if (seatKeys.size > 0 || identities.size > 0) {
    for (let index = 0; index < after.length; index += 1) {
      const tracked = after[index]!;
      if (isFenced(tracked.seatKey, tracked.identity)) changed[index] = 1;
    }
  }
  return { changed, isFenced };
}

/** Is there evidence about this agent's server: did it answer? */
function serverAnswered(result: ScanResult & { ok: true }, tracked: TrackedAgent) {
  if (tracked.server === undefined) return result.unavailable.length === 0;
  if (result.unavailable.includes(tracked.server)) return false;
  return result.answered === undefined || result.answered.includes(tracked.server);
}

function availability(memory: ScanMemory, unavailable: readonly string[]) {
  const events: ScanOutcome["availability"] = [];
  const down = new Set(unavailable);
  for (const server of down)
    if (!memory.down.has(server)) events.push({ server, available: false });
  for (const server of memory.down) if (!down.has(server)) events.push({ server, available: true });
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
    if (fenced.isFenced(agent.seatKey, agent.identity)) continue;
    const index = match.take(agent);
    if (index >= 0) outcome.observed.push({ tracked: input.after[index]!, agent });
    else if (!suppressed.has(processKey(agent))) outcome.discovered.push(agent);
  }
  const misses = new Map<string, Miss>();
  const noEvidence = new Set(result.unknown);
  for (const entry of result.ambiguous) noEvidence.add(entry.seatKey);
  for (let index = 0; index < input.after.length; index += 1) {
    if (match.isTaken(index)) continue;
    const tracked = input.after[index]!;
    const previous = memory.misses.get(tracked.key);
    if (
      fenced.changed[index] ||
      !serverAnswered(result, tracked) ||
      noEvidence.has(tracked.seatKey)
    ) {
      outcome.unjudged.push(tracked.key);
      if (previous) misses.set(tracked.key, previous);
      continue;
    }
    // A count against another identity or place does not carry over.
    const against = `${tracked.identity ?? ""}\u0000${tracked.seatKey}`;
    const count =
      previous && previous.against === against ? previous : { against, dormant: 0, gone: 0 };
    if (result.seatKeys.has(tracked.seatKey)) {
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

/** Suppressions end when the scan proves their process gone (unless made after it started). */
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
