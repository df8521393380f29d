// The shapes the reconcile loop and one scan share: an agent as the caller's registry holds it,
// and the evidence one scan brings. Types only.
import type { FoundAgent } from "./_discover.js";

/** An agent as the caller's registry holds it. */
export type TrackedAgent = {
  /** The registry's own key for this agent. */
  key: string;
  engine: string;
  seatKey: string;
  /** The server (socket path) the seat key is on; undefined when the registry does not know it. */
  server?: string | undefined;
  /** engine:pid:start of the process last seen; undefined when never seen with one. */
  identity?: string | undefined;
  /**
   * Bound to a session: from then on the process identity decides, never the placement (until a
   * process is known: a bound agent without an identity is matched by its pane).
   */
  bound: boolean;
  state: "live" | "dormant";
  /**
   * Bumped by the registry on every change of identity, seat key or binding. Optional: without it
   * those fields themselves are compared, so a change and its undoing during one scan go unseen.
   */
  generation?: number | undefined;
};

export type ScanResult =
  | { ok: false; error: string }
  | {
      ok: true;
      agents: readonly FoundAgent[];
      ambiguous: readonly { seatKey: string }[];
      /** Every seat key (pane) that exists now, on the servers that answered. */
      seatKeys: ReadonlySet<string>;
      /** Servers that did not answer: their seat keys are no evidence either way. */
      unavailable: readonly string[];
      /**
       * Servers that answered. When given, an agent on a server not listed is no evidence
       * either way; when not, only `unavailable` says which did not.
       */
      answered?: readonly string[] | undefined;
      /** Seat keys whose per-pane check answered "unknown". */
      unknown?: readonly string[] | undefined;
      /** `pid:start` of every process alive now: suppressions end when theirs is gone. */
      processes: ReadonlySet<string>;
    };

export const processKey = (agent: { pid: number; start: string }) => `${agent.pid}:${agent.start}`;

/** Did identity, seat key or binding change between two reads of one agent? */
export const sameTracked = (before: TrackedAgent, after: TrackedAgent) =>
  before.generation === after.generation &&
  before.identity === after.identity &&
  before.seatKey === after.seatKey &&
  before.bound === after.bound &&
  before.engine === after.engine;

/** A copy of what a scan compares, taken before its scan starts (registries may mutate theirs). */
export const copyTracked = (tracked: TrackedAgent): TrackedAgent => ({
  key: tracked.key,
  engine: tracked.engine,
  seatKey: tracked.seatKey,
  server: tracked.server,
  identity: tracked.identity,
  bound: tracked.bound,
  state: tracked.state,
  generation: tracked.generation,
});
