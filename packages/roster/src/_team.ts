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
  /** The labels kept for members that are down (see HeldLabel); none when the host gave none. */
  held: () => Promise<readonly HeldLabel[]>;
};

/**
 * A label kept for a member that is down (a team file declares it; core's downMembers decides):
 * nobody else joins under it, and mail to it is delivered to `id`'s mailbox, the member id it
 * comes back as (or whose unread mail its return takes over).
 */
export type HeldLabel = { label: string; id: string; since: string };

/** The label kept for a down member, if `label` is one (a host that cannot tell: none). */
export async function heldLabel(team: Team, label: string): Promise<HeldLabel | undefined> {
  const held = await team.held().catch(() => []);
  return held.find((entry) => entry.label.toLowerCase() === label.toLowerCase());
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** "cannot write the team folder /x: EACCES …": a failure of the store, in one line. */
export const cannot = (team: Team, verb: "read" | "write", error: unknown) =>
  `cannot ${verb} ${team.store.where}: ${error instanceof Error ? error.message : String(error)}`;
