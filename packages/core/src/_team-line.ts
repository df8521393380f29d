// The team in one glance: how many members work, idle or start, who needs the person (longest
// waiting first), and how much mail waits for the person — what `muster status --line` shows in
// tmux's status bar — and which member `muster go` takes the person to.
import type { ActivityState } from "./_activity.js";
import { compareText } from "./_text-order.js";

/** As much of a member as the line reads. */
export type LineMember = {
  label: string;
  /** The state, and how long it has lasted (null: not known). */
  activity: { state: ActivityState; ageMs: number | null };
  /** Mail waiting unread. */
  unread: number;
  /** A member joined from a shell: the person's own mail counts. */
  person: boolean;
  seat?: { server: string; pane: string } | null | undefined;
};

export type TeamLine = {
  working: number;
  idle: number;
  starting: number;
  /** Waiting for the person, longest waiting first. */
  needsYou: { label: string; ageMs: number | null }[];
  /** Mail waiting for the person's own members. */
  mail: number;
};

/** Longest waiting first; a wait whose start is not known comes last. */
const byWait = (left: LineMember, right: LineMember) =>
  (right.activity.ageMs ?? -1) - (left.activity.ageMs ?? -1) ||
  compareText(left.label, right.label);

/** The members waiting for the person, longest waiting first. */
export const waitingForYou = <Member extends LineMember>(members: readonly Member[]): Member[] =>
  members.filter((member) => member.activity.state === "needs-you").sort(byWait);

export function teamLine(members: readonly LineMember[]): TeamLine {
  const count = (state: string) =>
    members.filter((member) => member.activity.state === state).length;
  return {
    working: count("working"),
    idle: count("idle"),
    starting: count("starting"),
    needsYou: waitingForYou(members).map(({ label, activity }) => ({
      label,
      ageMs: activity.ageMs,
    })),
    mail: members.filter((member) => member.person).reduce((sum, member) => sum + member.unread, 0),
  };
}
