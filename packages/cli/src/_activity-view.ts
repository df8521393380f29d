// A member's activity as every CLI view shows it (status, roster, send, the dashboard): core's
// the wiring's `memberActivity` (every door's one view), with how long and why for --json; and
// how a member whose process is proven dead ended (core's `memberEnd`): crashed, stopped or down.
import {
  type ActivityReason,
  type ActivityState,
  bringBack,
  type LastState,
  type MemberEnd,
  memberEnd,
  printable,
} from "@muster/core";
import type { Member } from "@muster/roster";
import { memberActivity } from "@muster/wiring";
import { age } from "./_render.js";

/** The activity as `--json` carries it: the state, for how long, by which signal, and why. */
export type ActivityJson = {
  state: ActivityState;
  /** How long it has been in this state; null when that is not known. */
  ageMs: number | null;
  signal: string | null;
  reason: ActivityReason;
  /** For `trouble`: why, and its engine's own words (another process's text: printable() them). */
  trouble?: { kind: string; words: string };
};

/** The member's activity as far as core believes it now (with Claude Code's registry's word). */
export function activityView(member: Member, now: number, env: NodeJS.ProcessEnv): ActivityJson {
  const view = memberActivity(member, now, env);
  return {
    state: view.state,
    ageMs: view.since === undefined ? null : Math.max(0, now - view.since),
    signal: view.signal ?? null,
    reason: view.reason,
    ...(view.trouble ? { trouble: { kind: view.trouble.kind, words: view.trouble.words } } : {}),
  };
}

/** The words of an activity in a table's cell: `idle 5m (stale)`, `trouble: no-model 2m`. */
export function activityWords(activity: ActivityJson, elapsedMs = 0): string {
  const how = activity.ageMs === null ? "" : ` ${age(activity.ageMs + elapsedMs)}`;
  const why =
    activity.reason === "person" ? " (a person)" : activity.reason === "stale" ? " (stale)" : "";
  const state = activity.trouble ? `trouble: ${activity.trouble.kind}` : activity.state;
  return printable(`${state}${how}${why}`);
}

/** A line per member whose engine said it cannot run a turn: its words, and what ends it. */
export const troubleLines = (
  members: readonly { label: string; agent: string; activity: ActivityJson }[],
) =>
  members.flatMap(({ label, agent, activity }) =>
    activity.trouble
      ? [
          `  ${printable(label)} cannot run a turn: ${printable(agent)} says "${printable(activity.trouble.words)}"; see its pane, or end it with muster stop ${printable(label)}`,
        ]
      : [],
  );

/** How a member ended, as `--json` carries it, with what brings it back. */
export type EndJson = {
  kind: MemberEnd["kind"];
  /** How long ago: since it was found dead (`found`), else since it was last seen alive. */
  ageMs: number;
  found: boolean;
  /** What it was doing when it crashed; null for a stop or a down. */
  last: LastState | null;
  fix: string;
};

/** How the member ended, when its process is proven dead; null while it lives. */
export function endView(member: Member, now: number): EndJson | null {
  const end = memberEnd(member);
  if (!end) return null;
  return {
    kind: end.kind,
    ageMs: Math.max(0, now - Date.parse(end.at)),
    found: end.kind === "crashed" ? end.found : true,
    last: end.kind === "crashed" ? end.last : null,
    fix: bringBack(member.label),
  };
}

/** How a member ended in a few words: `crashed 3m ago (was working)`, `stopped 1h ago`. */
export function endWords(end: EndJson): string {
  const last = end.last && end.last !== "unknown" ? end.last : undefined;
  if (end.kind !== "crashed") return `${end.kind} ${age(end.ageMs)} ago`;
  return end.found
    ? `crashed ${age(end.ageMs)} ago${last ? ` (was ${last})` : ""}`
    : `crashed (last seen ${age(end.ageMs)} ago${last ? `, ${last}` : ""})`;
}

/** A line per crashed or down member: what brings it back. */
export const endLines = (members: readonly { label: string; end: EndJson | null }[]) =>
  members.flatMap((member) =>
    member.end && member.end.kind !== "stopped"
      ? [
          `  ${printable(member.label)} ${member.end.kind === "down" ? "is down" : "crashed"}: ${printable(member.end.fix)}`,
        ]
      : [],
  );
