// What `muster status`, `roster`, `agents`, the dashboard and the status line read: the members as
// the roster shows them, one scan of the tmux server (one list-panes -a plus one process table),
// and the agents joined with the members. Rendering is _status.ts.
import { errorLine, isPerson, memberOfAgent } from "@muster/core";
import { insideTeam, readProcessTable, type TeamFolder } from "@muster/node";
import { BUILTIN_ENGINES, type FoundAgent, type ScanResult, scanResult } from "@muster/reconciler";
import { type Member, plantedRecord } from "@muster/roster";
import { listPanes } from "@muster/tmux";
import { type ActivityJson, activityView, type EndJson, endView } from "./_activity-view.js";
import { type Context, unreadable } from "./_context.js";

export type MemberView = {
  id: string;
  label: string;
  agent: string;
  state: Member["state"];
  why: string;
  pid: number;
  seat: { server: string; session: string; pane: string; sessionName?: string } | null;
  heartbeatAgeMs: number;
  watching: { armed: boolean; wake: boolean };
  unread: number;
  /** How long the oldest unread message has waited; null when none waits. */
  oldestUnreadAgeMs: number | null;
  holdsLabel: boolean;
  /** What its agent is doing, as its engine's signals said and core believes now. */
  activity: ActivityJson;
  /** A member joined from a shell: the person. */
  person: boolean;
  /** How it ended, once its process is proven dead (crashed, stopped, down); null while it lives. */
  end: EndJson | null;
};

export type AgentView = {
  engine: string;
  pid: number;
  pane: string;
  session: string;
  sessionName: string;
  cwd: string;
  state: "live" | "dormant";
  label: string | null;
  inRepository: boolean;
  /** The label muster spawned it under, when status --watch adopted it from a spawn record. */
  spawned: string | null;
};

export type Scan = {
  server: string | null;
  available: boolean;
  result: ScanResult;
  note?: string | undefined;
  /** Pane lines tmux printed that could not be read (those panes were skipped). */
  warnings: string[];
};

/** One scan of the tmux server: its panes and the process table. */
export async function scanTmux(context: Context): Promise<Scan> {
  const [listed, processes] = await Promise.all([
    // Asked first: a runner that starts tmux at its call has it answer during the /proc read.
    listPanes(context.run, context.target),
    // Only the panes' processes are matched by their argv: the rest's is never read.
    readProcessTable({ argvLater: true }),
  ]);
  const server = listed.ok
    ? listed.inventory.server.socket
    : context.target && "socket" in context.target
      ? context.target.socket
      : "default";
  const result = scanResult(
    {
      servers: [{ server, panes: listed.ok ? listed.inventory.panes : "unavailable" }],
      processes: processes.ok ? processes.processes : { error: processes.error },
      exclude: [process.pid],
    },
    BUILTIN_ENGINES,
  );
  return {
    server: listed.ok ? listed.inventory.server.socket : null,
    available: listed.ok,
    result,
    note: listed.ok ? undefined : errorLine(listed),
    warnings: listed.ok ? (listed.inventory.warnings ?? []) : [],
  };
}

/**
 * The members as every view shows them. `mailOf` says whose mailboxes are read (default every
 * member's): the status line shows the person's mail only, and a teammate's flood of another
 * member's mailbox is not read to draw it. Mail not read counts as none.
 */
export async function readMembers(
  context: Context,
  all = false,
  mailOf: (member: Member) => boolean = () => true,
): Promise<{ members: MemberView[]; warnings: string[] }> {
  const roster = await context.roster();
  const read = await roster.read({ all });
  if (!read.ok) throw unreadable("roster-unknown", read);
  const warnings = [...read.warnings];
  // A planted record (the roster's rule: a label or id join would refuse) is reported, not shown.
  const valid: Member[] = [];
  for (const member of read.members) {
    const planted = plantedRecord(member);
    if (planted) warnings.push(planted);
    else valid.push(member);
  }
  const now = Date.now();
  // A few members' mailboxes at a time: a team of 1,000 read with every mailbox listed at once
  // holds them all at the same moment (the dashboard's memory at rest).
  const members: MemberView[] = [];
  for (let first = 0; first < valid.length; first += MAILBOXES_IN_FLIGHT) {
    const batch = valid.slice(first, first + MAILBOXES_IN_FLIGHT);
    members.push(
      ...(await Promise.all(
        batch.map((member) => memberView(roster, member, now, context, mailOf(member))),
      )),
    );
  }
  return { members, warnings };
}

/** How many members' mailboxes `readMembers` lists at once. */
const MAILBOXES_IN_FLIGHT = 32;

/** A member as every view shows it, with its unread mail counted now (when `mail`). */
async function memberView(
  roster: Awaited<ReturnType<Context["roster"]>>,
  member: Member,
  now: number,
  context: Context,
  mail: boolean,
): Promise<MemberView> {
  const waiting = mail ? await roster.waiting(member.id) : { count: 0, oldestAt: undefined };
  return {
    id: member.id,
    label: member.label,
    agent: member.agent,
    state: member.state,
    why: member.reason, // `why` is the --json name (common.schema.json)
    pid: member.pid,
    seat: member.seat ?? null,
    heartbeatAgeMs: member.heartbeatAgeMs,
    watching: member.watching,
    unread: waiting.count,
    oldestUnreadAgeMs:
      waiting.oldestAt === undefined ? null : Math.max(0, now - Date.parse(waiting.oldestAt)),
    holdsLabel: member.holdsLabel,
    activity: activityView(member, now, context.io.env),
    person: isPerson(member),
    end: endView(member, now),
  };
}

/** Agents as shown: a member's label where its pid (or its seat) matches. */
export function agentViews(
  agents: readonly (FoundAgent & { state?: "live" | "dormant" })[],
  members: readonly MemberView[],
  team: TeamFolder | undefined,
  spawned: ReadonlyMap<string, string> = new Map(),
): AgentView[] {
  return agents.map((agent) => {
    const member = memberOfAgent(
      { pid: agent.pid, pane: agent.pane, server: agent.server },
      members,
    );
    return {
      engine: agent.engine,
      pid: agent.pid,
      pane: agent.pane,
      session: agent.session,
      sessionName: agent.sessionName,
      cwd: agent.cwd,
      state: agent.state ?? "live",
      label: member?.label ?? null,
      inRepository: team ? insideTeam(team, agent.cwd) : true,
      spawned: spawned.get(agent.identity) ?? null,
    };
  });
}
