// A ready-made in-memory registry for the reconcile loop: what a caller with no registry of its
// own (a status screen, a test) hands to createReconciler.
import type { FoundAgent } from "./_discover.js";
import type { TrackedAgent } from "./_reconcile.js";

export type RegistryEntry = TrackedAgent & { agent: FoundAgent };

export function createAgentRegistry() {
  const entries = new Map<string, RegistryEntry>();
  let next = 0;
  return {
    /** The agents, in discovery order. */
    entries: () => [...entries.values()],
    current: () => [...entries.values()],
    onDiscovered(agent: FoundAgent) {
      next += 1;
      const key = `agent-${next}`;
      entries.set(key, {
        key,
        engine: agent.engine,
        route: agent.route,
        backend: agent.backend,
        identity: agent.identity,
        bound: false,
        state: "live",
        agent,
      });
    },
    onObserved(tracked: TrackedAgent, agent: FoundAgent) {
      const entry = entries.get(tracked.key);
      if (entry)
        entries.set(tracked.key, {
          ...entry,
          route: agent.route,
          identity: agent.identity,
          state: "live",
          agent,
        });
    },
    onDormant(tracked: TrackedAgent) {
      const entry = entries.get(tracked.key);
      if (entry) entry.state = "dormant";
    },
    onRemoved(tracked: TrackedAgent) {
      entries.delete(tracked.key);
    },
    /** Mark an agent bound to a session: its process identity decides from now on. */
    bind(key: string) {
      const entry = entries.get(key);
      if (entry) entry.bound = true;
    },
  };
}
