// The context every step of the roster takes: the folder's layout, the injected effects and the
// policy. It stays inside the package: `Roster` holds it privately, callers never see it.
import type { RosterFs } from "./_fs.js";
import type { Layout } from "./_layout.js";
import type { ProcessFacts, RosterPolicy } from "./_liveness.js";

export type Team = {
  paths: Layout;
  fs: RosterFs;
  /** Milliseconds since the epoch. */
  clock: () => number;
  processes: ProcessFacts;
  policy: RosterPolicy;
  /** Waits a little (a lock held by another process); a yield when the host gave no timer. */
  sleep: (ms: number) => Promise<void>;
};

export const iso = (ms: number) => new Date(ms).toISOString();
