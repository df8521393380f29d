// A ready-made in-memory registry for the reconcile loop: what a caller with no registry of its
// own (a status screen, a test) hands to createReconciler.
import type { FoundAgent } from "./_discover.js";
import type { TrackedAgent } from "./_tracked.js";

export type RegistryEntry = TrackedAgent & { agent: FoundAgent; generation: number };

export function createAgentRegistry() {
  const entries = new Map<string, RegistryEntry>();
  let next = 0;
  /** Identity or seat key changes bump the generation: a scan begun before it judges nothing. */
  const follow = (entry: RegistryEntry, agent: FoundAgent) => {
    if (entry.identity !== agent.identity || entry.seatKey !== agent.seatKey) entry.generation += 1;
    entry.identity = agent.identity;
    entry.seatKey = agent.seatKey;
    entry.server = agent.server;
    entry.agent = agent;
  };
  return {
    /** The agents, in discovery order. */
    entries: () => [...entries.values()],
    onDiscovered(agent: FoundAgent) {
      next += 1;
      const key = `agent-${next}`;
      entries.set(key, {
        key,
        engine: agent.engine,
        seatKey: agent.seatKey,
        server: agent.server,
        identity: agent.identity,
        bound: false,
        state: "live",
        generation: 0,
        agent,
      });
    },
    onObserved(tracked: TrackedAgent, agent: FoundAgent) {
      const entry = entries.get(tracked.key);
      if (!entry) return;
      follow(entry, agent);
      entry.state = "live";
    },
    onDormant(tracked: TrackedAgent) {
      const entry = entries.get(tracked.key);
      if (entry) entry.state = "dormant";
    },
    onRemoved(tracked: TrackedAgent) {
      entries.delete(tracked.key);
    },
    /**
     * Bind an agent to a session: its process identity decides from now on. With `agent`, the
     * session now runs in that process (after a restart in place, say).
     */
    bind(key: string, agent?: FoundAgent) {
      const entry = entries.get(key);
      if (!entry) return;
      if (!entry.bound) entry.generation += 1;
      entry.bound = true;
      if (agent) follow(entry, agent);
    },
  };
}
