// The context every step of the roster takes: the store, the injected effects and the policy. It
// stays inside the package: `Roster` holds it privately, callers never see it.
import type { ProcessFacts, RosterPolicy } from "./_liveness.js";
import type { RosterStore } from "./_store.js";

export type Team = {
  store: RosterStore;
  /** Milliseconds since the epoch. */
  clock: () => number;
  processes: ProcessFacts;
  policy: RosterPolicy;
  /** Waits a little (a lock held by another process); a yield when the host gave no timer. */
  sleep: (ms: number) => Promise<void>;
};

export const iso = (ms: number) => new Date(ms).toISOString();

/** "cannot write the team folder /x: EACCES …": a failure of the store, in one line. */
export const cannot = (team: Team, verb: "read" | "write", error: unknown) =>
  `cannot ${verb} ${team.store.where}: ${error instanceof Error ? error.message : String(error)}`;
