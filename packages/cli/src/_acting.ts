// A command that works as its caller's member, by core's identity rule (`actAsMember`): a caller
// not on the team joins once, after its input passed, for a command that acts; it is refused for
// one that holds or reads its own. A refusal from any step comes back as a value (`Refused`).
import {
  type ActingRefusal,
  actAsMember,
  chooseLabel,
  heldLabels,
  type MemberUse,
  membershipLine,
  printable,
} from "@muster/core";
import type { Member } from "@muster/roster";
import { type Context, isRefused, Refusal, type Refused, refused, unreadable } from "./_context.js";
import { type IdentifiedCaller as Caller, notMember } from "./_identity.js";
import { joinAsCaller } from "./_membership.js";

/** The caller as the member it acts as: its label and session id. */
export type Actor = { label: string; id: string };

export type AsMemberCommand<Result> = {
  /** The label to join under when the caller is not on the team (`--as`; else MUSTER_LABEL or generated). */
  as?: string | undefined;
  /** What a join is for, in the line that names the label: "to claim c1". */
  purpose: string;
  /**
   * The command's own input, judged as if by `wouldBe` before a caller not on the team joins: a
   * refusal answered or thrown (a Refusal with the command's own line) ends it with nobody joined.
   */
  check: (wouldBe: Actor) => Promise<ActingRefusal | Refused | undefined>;
  /**
   * What the command does as `actor`; `joined` names the label when it joined for this; `members`
   * is the team as read to find the caller (none once it joined: that read is older than the join).
   */
  act: (
    actor: Actor,
    joined: string | null,
    members: readonly Member[] | undefined,
  ) => Promise<Result | Refused>;
};

/**
 * Run a command as the caller's member by core's identity rule (`actAsMember`): a caller not on
 * the team joins once, after its input passed, for a command that acts; it is refused for one
 * that holds or reads its own. A join is said in one line naming the label.
 */
export async function actAsCaller<Result>(
  context: Context,
  caller: Caller,
  use: MemberUse,
  command: AsMemberCommand<Result>,
): Promise<{ ok: true; result: Result; actor: Actor; joined: string | null } | Refused> {
  const roster = await context.roster();
  const read = await roster.read();
  if (!read.ok) throw unreadable("roster-unknown", read);
  const own = read.members.find((member) => member.id === caller.id && member.state === "live");
  const wouldBe = {
    id: caller.id,
    label: chooseLabel({
      flag: command.as,
      env: context.io.env.MUSTER_LABEL,
      taken: heldLabels(read.members),
      random: Math.random,
      prefix: caller.engine ?? "shell",
    }).label,
  };
  let joined: string | null = null;
  const outcome = await actAsMember<Actor, Result | Refused>(use, {
    member: own ? { label: own.label, id: own.id } : undefined,
    check: () => command.check(wouldBe),
    join: async () => {
      const answer = await joinAsCaller(context, caller, { label: wouldBe.label }).catch(
        (error: unknown) => {
          if (error instanceof Refusal) return error.refused;
          throw error;
        },
      );
      if (isRefused(answer)) return answer;
      const label = answer.standing.label;
      joined = label;
      if (!context.json)
        context.out(printable(membershipLine({ kind: "joined", label, purpose: command.purpose })));
      return { ok: true, actor: { label, id: caller.id } };
    },
    act: (actor) => command.act(actor, joined, joined === null ? read.members : undefined),
    notMember: () => notMember(caller).refused,
  });
  // A refusal the command's own steps made travels as it is; core's own gets the caller's facts.
  if (isRefused(outcome)) return outcome;
  if (outcome.ok && isRefused(outcome.result)) return outcome.result;
  if (!outcome.ok) {
    // A refusal's own facts (the label refused, a suggestion) travel with it to the edge.
    const {
      ok: _ok,
      reason,
      error: _error,
      fix: _fix,
      ...facts
    } = outcome as typeof outcome & Record<string, unknown>;
    return refused(reason, outcome, { ...facts, id: caller.id, joined: null });
  }
  return { ok: true, result: outcome.result as Result, actor: outcome.actor, joined };
}
