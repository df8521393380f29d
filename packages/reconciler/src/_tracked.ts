// The shapes the reconcile loop and one scan share: an agent as the caller's registry holds it,
// and the evidence one probe brings. Types only.
import type { FoundAgent } from "./_discover.js";

/** An agent as the caller's registry holds it. */
export type TrackedAgent = {
  /** The registry's own key for this agent. */
  key: string;
  engine: string;
  route: string;
  /** The server (socket path) the route is on; undefined when the registry does not know it. */
  backend?: string | undefined;
  /** engine:pid:start of the process last seen; undefined when never seen with one. */
  identity?: string | undefined;
  /**
   * Bound to a session: from then on the process identity decides, never the placement (until a
   * process is known: a bound agent without an identity is matched by its pane).
   */
  bound: boolean;
  state: "live" | "dormant";
  /**
   * Bumped by the registry on every change of identity, route or binding. Optional: without it
   * those fields themselves are compared, so a change and its undoing during one probe go unseen.
   */
  generation?: number | undefined;
};

export type ProbeResult =
  | { ok: false; error: string }
  | {
      ok: true;
      agents: readonly FoundAgent[];
      ambiguous: readonly { route: string }[];
      /** Every route (pane) that exists now, on the backends that answered. */
      routes: ReadonlySet<string>;
      /** Backends (servers) that did not answer: their routes are no evidence either way. */
      unavailable: readonly string[];
      /**
       * Backends that answered. When given, an agent on a backend not listed is no evidence
       * either way; when not, only `unavailable` says which did not.
       */
      answered?: readonly string[] | undefined;
      /** Routes whose per-pane check answered "unknown". */
      unknown?: readonly string[] | undefined;
      /** `pid:start` of every process alive now: suppressions end when theirs is gone. */
      processes: ReadonlySet<string>;
    };

export const processKey = (agent: { pid: number; start: string }) => `${agent.pid}:${agent.start}`;

/** Did identity, route or binding change between two looks at one agent? */
export const sameLook = (before: TrackedAgent, after: TrackedAgent) =>
  before.generation === after.generation &&
  before.identity === after.identity &&
  before.route === after.route &&
  before.bound === after.bound &&
  before.engine === after.engine;

/** A copy of what a scan compares, taken before its probe starts (registries may mutate theirs). */
export const lookAt = (tracked: TrackedAgent): TrackedAgent => ({
  key: tracked.key,
  engine: tracked.engine,
  route: tracked.route,
  backend: tracked.backend,
  identity: tracked.identity,
  bound: tracked.bound,
  state: tracked.state,
  generation: tracked.generation,
});
