// How a member's end is told: crashed, or ended on purpose. A member whose process is proven dead
// (by pid and start time: a reused pid is another process, never this one alive) crashed unless
// `muster stop` or `muster down` left their mark on its record before ending it. A person's shell
// that closed did not crash, and a member nothing is proven of (another host's, stale, expired) is
// not judged. Pure: the roster keeps the record and the mark; the doors show what this says.
import { isPerson } from "./_activity.js";

/** What the rule reads of a member (a roster member is one). */
export type EndFacts = {
  agent: string;
  id?: string | undefined;
  state: string;
  reason: string;
  heartbeatAt: string;
  /** The mark `muster stop` / `muster down` leave before they end the member's process. */
  ended?: { at: string; by: "stop" | "down" } | undefined;
  activity?:
    | { state: string; since: string; at: string; signal?: string; was?: string | undefined }
    | undefined;
};

/** What the agent was doing when it ended, as far as its signals said. */
export type LastState = "working" | "idle" | "needs-you" | "unknown";

export type MemberEnd =
  | {
      kind: "crashed";
      /** When its process was found dead, else when it was last seen alive (`found: false`). */
      at: string;
      found: boolean;
      last: LastState;
    }
  | { kind: "stopped" | "down"; at: string };

const lastState = (state: string | undefined): LastState =>
  state === "working" || state === "idle" || state === "needs-you" ? state : "unknown";

/** The later of two times (an unreadable one loses). */
const later = (left: string, right: string | undefined) =>
  right !== undefined && Date.parse(right) > Date.parse(left) ? right : left;

/** How the member ended: crashed, stopped or down; undefined while it lives or nothing is proven. */
export function memberEnd(member: EndFacts): MemberEnd | undefined {
  if (member.state !== "gone" || member.reason !== "process-dead") return undefined;
  if (member.ended)
    return { kind: member.ended.by === "down" ? "down" : "stopped", at: member.ended.at };
  if (isPerson(member)) return undefined;
  const { activity } = member;
  // A watcher that found it dead recorded when, and what it was doing then (`was`).
  if (activity?.state === "gone")
    return { kind: "crashed", at: activity.since, found: true, last: lastState(activity.was) };
  return {
    kind: "crashed",
    at: later(member.heartbeatAt, activity?.at),
    found: false,
    last: lastState(activity?.state),
  };
}

/** What brings an ended member back, in the words every door shows. */
export const bringBack = (label: string) => `muster up ${label} brings it back`;

/**
 * The members that are down: each one the team file declares, or muster took down (its spawn
 * record's `down`), that no live member holds now, with when it went down where that is known.
 * Crashed members are not among them (`memberEnd` says so of those on the roster).
 */
export function absentMembers(
  declared: readonly { label: string; engine: string }[],
  spawned: readonly { label: string; engine: string; down?: string | undefined }[],
  members: readonly { label: string; state: string }[],
): { label: string; engine: string; at: string | undefined }[] {
  const key = (label: string) => label.toLowerCase();
  const taken = new Set(
    members.filter((member) => member.state !== "expired").map((member) => key(member.label)),
  );
  const down = new Map<string, { label: string; engine: string; at: string | undefined }>();
  for (const record of spawned)
    if (record.down !== undefined)
      down.set(key(record.label), { label: record.label, engine: record.engine, at: record.down });
  for (const member of declared)
    if (!down.has(key(member.label)))
      down.set(key(member.label), { label: member.label, engine: member.engine, at: undefined });
  return [...down.values()].filter((member) => !taken.has(key(member.label)));
}
