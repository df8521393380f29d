// The team as the MCP server sees it: one roster, and each caller joined on its first tool call
// through the core join rules (asked only while it is not on the team). Wiring only: decisions are
// calls into @muster/core, files are @muster/roster's.
import {
  chooseLabel,
  joinFailureLine,
  joinTeam,
  type Standing,
  type TookOver,
  type Watching,
} from "@muster/core";
import type { Message, Roster, Member as RosterMember, TeamRead } from "@muster/roster";
import type { Caller, Member } from "./_identity.js";

export type TeamOptions = {
  roster: () => Promise<Roster>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** This server's pid: a guest sends under an id made from it. */
  pid: number;
};

/** Who the caller is on the team for this call: a joined member, or a guest and why. */
export type Standpoint =
  | {
      kind: "member";
      caller: Member;
      label: string;
      watching: Watching;
      joined: boolean;
      /** This call's join took the label over from a dead or expired holder. */
      took?: TookOver | undefined;
    }
  | {
      kind: "guest";
      why: string;
      reason: string;
      /** `join` when the caller is an agent whose join the core join rules refused. */
      cause: "identity" | "join";
    };

/** `MUSTER_WAKE=1` in the server's configured environment lets mail wake its members. */
function wakeChoice(env: NodeJS.ProcessEnv): Watching | undefined {
  if (env.MUSTER_WAKE === "1") return { armed: true, wake: true };
  if (env.MUSTER_WAKE === "0") return { armed: true, wake: false };
  return undefined;
}

export function createTeam(options: TeamOptions) {
  const standings = new Map<string, Standing>();

  async function join(caller: Member, roster: Roster, read: TeamRead, label: string) {
    const outcome = await joinTeam(
      {
        id: caller.id,
        pid: caller.pid,
        pidStart: caller.start,
        standing: standings.get(caller.id),
        now: Date.now,
        roster: read.ok ? read.members : "unknown",
      },
      { join: (input) => roster.join(input) },
      {
        input: {
          agent: caller.engine,
          pid: caller.pid,
          pidStart: caller.start,
          cwd: options.cwd,
          seat: caller.seat && {
            server: caller.seat.server,
            serverPid: caller.seat.serverPid,
            session: caller.seat.session,
            pane: caller.seat.pane,
          },
          liveness: "process" as const,
        },
        watching: wakeChoice(options.env),
      },
      label,
    );
    standings.set(caller.id, outcome.standing);
    return outcome;
  }

  /** Join the caller if it is not on the team yet; a guest stays a guest and says why. */
  async function standpoint(caller: Caller, known?: TeamRead): Promise<Standpoint> {
    if (caller.kind === "guest")
      return { kind: "guest", why: caller.why, reason: caller.reason, cause: "identity" };
    const roster = await options.roster();
    const read = known ?? (await roster.read());
    const members = read.ok ? read.members : [];
    const own = members.find((member) => member.id === caller.id && member.holdsLabel);
    const taken = members.filter((member) => member.holdsLabel).map((member) => member.label);
    const asked =
      own?.label ??
      standings.get(caller.id)?.label ??
      chooseLabel({
        env: options.env.MUSTER_LABEL,
        taken,
        random: Math.random,
        prefix: caller.engine,
      }).label;
    let outcome = await join(caller, roster, read, asked);
    // MUSTER_LABEL is one value for every thread a Codex daemon serves: the second gets its own.
    if (!outcome.standing.ok && outcome.standing.reason.startsWith("label-held") && !own) {
      const generated = chooseLabel({ taken, random: Math.random, prefix: caller.engine }).label;
      outcome = await join(caller, roster, await roster.read(), generated);
    }
    const standing = outcome.standing;
    if (!standing.ok)
      return {
        kind: "guest",
        reason: standing.reason,
        why: joinFailureLine(standing),
        cause: "join",
      };
    return {
      kind: "member",
      caller,
      label: standing.label,
      watching: standing.watching,
      joined: outcome.asked,
      took: outcome.took,
    };
  }

  // The hops of mail this server showed each member: a reply travels one hop further.
  const hops = new Map<string, number>();
  const shown = (memberId: string, messages: readonly Message[]) => {
    for (const message of messages) hops.set(`${memberId}/${message.id}`, message.hops);
  };
  const hopsOf = (memberId: string, messageId: string) => hops.get(`${memberId}/${messageId}`);

  return {
    standpoint,
    hopsOf,
    shown,
    roster: options.roster,
    cwd: options.cwd,
    guestId: `guest-mcp-${options.pid}`,
  };
}

export type Team = ReturnType<typeof createTeam>;

/** Members as a tool shows them. */
export function rosterRows(members: readonly RosterMember[], you: string | undefined) {
  return members
    .filter((member) => member.holdsLabel && member.state !== "expired")
    .map((member) => ({
      label: member.label,
      agent: member.agent,
      state: member.state,
      why: member.why,
      pane: member.seat?.pane ?? null,
      wake: member.watching.wake,
      you: member.id === you,
    }));
}
