// The team as the MCP server sees it: one roster, and each caller joined on its first tool call
// through the core join rules (asked only while it is not on the team). Wiring only: decisions are
// calls into @muster/core, files are @muster/roster's.
import {
  chooseLabel,
  heldLabels,
  joinFailureLine,
  joinTeam,
  leftBehind,
  mailSetting,
  ownHeld,
  type Standing,
  type StartedLabel,
  shownMembers,
  type TookOver,
  type Watching,
} from "@muster/core";
import type { Roster, Member as RosterMember, TeamRead } from "@muster/roster";
import { engineHome, keepBeating, memberActivity } from "@muster/wiring";
import type { Caller, Member } from "./_identity.js";

export type TeamOptions = {
  roster: () => Promise<Roster>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** This server's pid: a guest sends under an id made from it. */
  pid: number;
  /**
   * The label `muster spawn` recorded for the caller's own launch (its pane and process), if any:
   * a Codex daemon gives every thread's server the first window's MUSTER_LABEL.
   */
  launchLabel?: ((caller: Member) => Promise<string | undefined>) | undefined;
  /**
   * The label the caller's own engine process was started with (its environment at start): the
   * server's MUSTER_LABEL is the first window's for every thread a Codex daemon serves. Asked only
   * for those (`via: "codex-thread"`); an ancestry caller's server has its own environment.
   */
  startedLabel?: ((caller: Member) => Promise<StartedLabel>) | undefined;
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
      error: string;
      reason: string;
      /** `join` when the caller is an agent whose join the core join rules refused. */
      cause: "identity" | "join";
    };

/**
 * The mail mode the server's configured environment asks for its members (core's `mailSetting`:
 * MUSTER_MAIL, or the older MUSTER_WAKE=1 that `muster install codex --wake` writes). A value it
 * does not know asks for nothing: the member's mail stays quiet, never wakes by a guess.
 */
function wakeChoice(env: NodeJS.ProcessEnv): Watching | undefined {
  const setting = mailSetting(env);
  return setting.ok ? setting.watching : undefined;
}

export function createTeam(options: TeamOptions) {
  const standings = new Map<string, Standing>();

  return {
    /** Join the caller if it is not on the team yet; a guest stays a guest and says why. */
    standpoint: (caller: Caller, known?: TeamRead) =>
      standpoint({ options, standings }, caller, known),
    roster: options.roster,
    cwd: options.cwd,
    guestId: `guest-mcp-${options.pid}`,
  };
}

/** What the team's joins share: its options, and each caller's standing since its last join. */
type Joins = { options: TeamOptions; standings: Map<string, Standing> };

async function join(
  { options, standings }: Joins,
  caller: Member,
  roster: Roster,
  read: TeamRead,
  label: string,
  left?: { id: string; watching: Watching },
) {
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
        // The whole seat, as pi's and the CLI's joins write it (the session's name shows).
        seat: caller.seat,
        liveness: "process" as const,
        engineHome: engineHome(caller.engine, options.env),
        leaves: left?.id,
      },
      // The session this process left listened as it chose: its successor listens the same.
      watching: wakeChoice(options.env) ?? left?.watching,
    },
    label,
  );
  standings.set(caller.id, outcome.standing);
  return outcome;
}

/** Join the caller if it is not on the team yet; a guest stays a guest and says why. */
async function standpoint(joins: Joins, caller: Caller, known?: TeamRead): Promise<Standpoint> {
  if (caller.kind === "guest")
    return { kind: "guest", error: caller.error, reason: caller.reason, cause: "identity" };
  const { options, standings } = joins;
  const roster = await options.roster();
  const read = known ?? (await roster.read());
  const members = read.ok ? read.members : [];
  const own = ownHeld(members, caller.id);
  const taken = heldLabels(members);
  // A Codex TUI's /new: the thread this process left gives its label (and mail) to this one.
  const left = own
    ? undefined
    : leftBehind(members, {
        id: caller.id,
        agent: caller.engine,
        pid: caller.pid,
        pidStart: caller.start,
      });
  const asked =
    own?.label ??
    standings.get(caller.id)?.label ??
    left?.label ??
    (await options.launchLabel?.(caller)) ??
    chooseLabel({
      // Only a daemon-served thread's server has another window's environment: one the caller
      // started itself (`codex exec`, `--no-daemon`) has its own, and its MUSTER_LABEL answers.
      started: caller.via === "codex-thread" ? await options.startedLabel?.(caller) : undefined,
      env: options.env.MUSTER_LABEL,
      taken,
      random: Math.random,
      prefix: caller.engine,
    }).label;
  let outcome = await join(joins, caller, roster, read, asked, left);
  // MUSTER_LABEL is one value for every thread a Codex daemon serves: the second gets its own.
  if (!outcome.standing.ok && outcome.standing.reason.startsWith("label-held") && !own) {
    const generated = chooseLabel({ taken, random: Math.random, prefix: caller.engine }).label;
    outcome = await join(joins, caller, roster, await roster.read(), generated);
  }
  const standing = outcome.standing;
  if (!standing.ok)
    return {
      kind: "guest",
      reason: standing.reason,
      error: joinFailureLine(standing),
      cause: "join",
    };
  // On NATS another host sees this member by its heartbeat only: this host's beater keeps it.
  await keepBeating(roster, { cwd: options.cwd, env: options.env });
  return {
    kind: "member",
    caller,
    label: standing.label,
    watching: standing.watching,
    joined: outcome.asked,
    took: outcome.took,
  };
}

export type Team = ReturnType<typeof createTeam>;

/** Members as a tool shows them. */
export function rosterRows(members: readonly RosterMember[], you: string | undefined) {
  return shownMembers(members).map((member) => ({
    label: member.label,
    agent: member.agent,
    state: member.state,
    why: member.reason, // the tool result keeps its `why`
    pane: member.seat?.pane ?? null,
    wake: member.watching.wake,
    you: member.id === you,
    // What its agent is doing: the facts every door reads (its record, Claude Code's registry).
    activity: memberActivity(member, Date.now()).state,
  }));
}
