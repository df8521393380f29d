// The one identity rule every door keeps for a command that works as its caller's member. A command
// that acts as a member (send, board add, claim, hand-off, ask, lease) asks to join once when its
// caller is not on the team, but only after its own input was judged, as if by the member it
// would join as: a command refused on its input (no such card, a bad glob, an unknown label)
// leaves nobody behind. A command on what a member holds (done, drop, release, lead) or that only
// reads a member's own state (inbox) refuses a caller that is not on the team. Also the words a
// door says whenever a command joins, leaves or renames.
import type { BoardView } from "./_board-decision.js";
import type { Capability } from "./_capabilities.js";

/**
 * How a capability stands to its caller's membership: `acts` (a non-member joins first), `holds`
 * (works on what the member holds: a non-member holds nothing), `reads-own` (reads the member's own
 * state: a non-member has none). Capabilities not listed need no membership.
 */
export type MemberUse = "acts" | "holds" | "reads-own";

/** The capabilities that work as the caller's member, and how. */
export const MEMBER_USE: Readonly<Partial<Record<Capability, MemberUse>>> = {
  send: "acts",
  "board-add": "acts",
  "board-claim": "acts",
  "board-handoff": "acts",
  "board-ask": "acts",
  lease: "acts",
  "board-done": "holds",
  "board-drop": "holds",
  "board-lead": "holds",
  release: "holds",
  inbox: "reads-own",
};

/** A refusal, as every step may answer one. */
export type ActingRefusal = {
  ok: false;
  reason: string;
  error: string;
  fix?: string | undefined;
};

/** The steps of a command that works as a member; the rule decides which run, in what order. */
export type ActingSteps<Actor, Result> = {
  /** The caller as a live member of the team; undefined when it is not on the team. */
  member: Actor | undefined;
  /**
   * The command's own input, judged before anything is written; for a caller not on the team, as
   * if by the member it would join as. A refusal here ends the command with nothing joined.
   */
  check: () => Promise<ActingRefusal | undefined>;
  /** Join the caller (asked once); only for `acts`, only once `check` passed. */
  join: () => Promise<{ ok: true; actor: Actor } | ActingRefusal>;
  /** What the command does, as `actor`. */
  act: (actor: Actor) => Promise<Result>;
  /** The refusal for a caller not on the team, where the command may not join it. */
  notMember: () => ActingRefusal;
};

export type Acted<Actor, Result> = {
  ok: true;
  actor: Actor;
  /** The caller joined for this command. */
  joined: boolean;
  result: Result;
};

/**
 * Run a command by the identity rule: a member acts at once (its input is judged by the act
 * itself); a caller not on the team is refused unless the command `acts`, in which case its input
 * is checked first, then it joins, then it acts.
 */
export async function actAsMember<Actor, Result>(
  use: MemberUse,
  steps: ActingSteps<Actor, Result>,
): Promise<Acted<Actor, Result> | ActingRefusal> {
  if (steps.member !== undefined) {
    const result = await steps.act(steps.member);
    return { ok: true, actor: steps.member, joined: false, result };
  }
  if (use !== "acts") return steps.notMember();
  const refused = await steps.check();
  if (refused) return refused;
  const joined = await steps.join();
  if (!joined.ok) return joined;
  const result = await steps.act(joined.actor);
  return { ok: true, actor: joined.actor, joined: true, result };
}

/**
 * The board as it would be once `actor` joined: the view a caller not on the team has its board
 * change judged over before it joins (a card that is not there is refused the same either way).
 */
export function asIfMember(view: BoardView, actor: { label: string; id: string }): BoardView {
  if (view.members === "unknown") return view;
  const others = view.members.members.filter((member) => member.id !== actor.id);
  return {
    ...view,
    members: { ...view.members, members: [...others, { ...actor, state: "live" }] },
  };
}

/** A change of membership a command made, for the one line that names the label. */
export type MembershipChange =
  | { kind: "joined"; label: string /** what the join was for: "to claim c1" */; purpose?: string }
  | { kind: "renamed"; from: string; to: string }
  | { kind: "left"; label: string };

/** "Joined the team as carol to claim c1." / "Renamed shell-juniper to carol." / "Left the team as carol." */
export function membershipLine(change: MembershipChange): string {
  switch (change.kind) {
    case "joined":
      return `Joined the team as ${change.label}${change.purpose ? ` ${change.purpose}` : ""}.`;
    case "renamed":
      return `Renamed ${change.from} to ${change.to}.`;
    case "left":
      return `Left the team as ${change.label}.`;
  }
}
