// Who is calling, per tool call. Codex runs one MCP server per thread from a shared daemon outside
// every pane, so its caller is named by `_meta.threadId`: the pane whose title shows that thread,
// confirmed by the process table (the pane runs Codex). An engine that spawns the server as its own
// child (Claude Code, `codex --no-daemon`, Gemini CLI, …) is found by ancestry. Anyone else is a
// guest, told why. Owns the resolution only; joining is the team's (see _team.ts).
import { callerId, errorLine, isCodexDaemon, isSessionId } from "@muster/core";
import type { ProcessRow } from "@muster/node";
import { BUILTIN_ENGINES, discoverAgents } from "@muster/reconciler";
import {
  listPanes,
  type Seat,
  type ServerTarget,
  seatByCodexThread,
  type TmuxRunner,
} from "@muster/tmux";
import { findMyAgent, findMySeat, paneRuns } from "@muster/wiring";
import { titleFix } from "./_engine-checks.js";

type Row = ProcessRow;

/** The effects identification reads; each is a parameter so tests can run it against real ones. */
export type IdentityEffects = {
  run: TmuxRunner;
  target: ServerTarget;
  processes: () => Promise<Row[]>;
  alive: (pid: number, start: string) => "alive" | "dead" | "unknown";
  /** This server's own pid and its parent's. */
  self: { pid: number; ppid: number };
};

export type Member = {
  kind: "member";
  /** The member id: `codex-<thread id>`, or `<engine>-<pid>-<start>` as `muster join` makes it. */
  id: string;
  engine: string;
  pid: number;
  start: string;
  seat: Seat | undefined;
  via: "codex-thread" | "ancestry";
  threadId?: string | undefined;
};

export type GuestReason =
  | "bad-meta"
  | "no-pane"
  | "ambiguous-pane"
  | "not-codex"
  | "no-tmux"
  | "codex-daemon"
  | "no-engine";

export type Guest = { kind: "guest"; reason: GuestReason; error: string };

export type Caller = Member | Guest;

/** What Codex (or a client pretending to be it) put in a call's `_meta`. */
export type CallMeta = Record<string, unknown> | undefined;

/** The Codex thread id a call names, `undefined` when it names none, or why its `_meta` is bad. */
export function threadOf(meta: CallMeta): { ok: true; threadId: string | undefined } | Guest {
  const bad = (error: string): Guest => ({ kind: "guest", reason: "bad-meta", error });
  if (!meta || !("threadId" in meta)) return { ok: true, threadId: undefined };
  const threadId = meta.threadId;
  if (!isSessionId(threadId)) return bad("the call's _meta.threadId is not a Codex thread id");
  const turn = meta["x-codex-turn-metadata"];
  if (turn !== undefined && turn !== null && typeof turn === "object") {
    const named = (turn as Record<string, unknown>).thread_id;
    if (named !== undefined && named !== threadId)
      return bad("the call's _meta names two different Codex threads");
  }
  return { ok: true, threadId };
}

/** A seat refusal, as the guest reason a call is answered with. */
const GUEST_REASON = { ambiguous: "ambiguous-pane", "not-codex": "not-codex" } as const;

/** Resolve callers, remembering each answer while its process lives (a title is read once). */
export function createIdentifier(effects: IdentityEffects) {
  const byThread = new Map<string, Member>();
  let byAncestry: Caller | undefined;

  const stillAlive = (member: Member) => effects.alive(member.pid, member.start) !== "dead";

  async function byCodexThread(threadId: string): Promise<Caller> {
    const known = byThread.get(threadId);
    if (known && stillAlive(known)) return known;
    byThread.delete(threadId);
    const found = await codexThreadCaller(effects, threadId);
    if (found.kind === "member") byThread.set(threadId, found);
    return found;
  }

  async function byParent(): Promise<Caller> {
    if (byAncestry && (byAncestry.kind === "guest" || stillAlive(byAncestry))) return byAncestry;
    const found = await parentCaller(effects);
    // The shared Codex daemon is not remembered: a later call may name its thread.
    if (found.kind === "member" || found.reason === "no-engine") byAncestry = found;
    return found;
  }

  return {
    /** The caller of one tool call, from its `_meta` and, failing that, this server's ancestry. */
    async identify(meta: CallMeta): Promise<Caller> {
      const thread = threadOf(meta);
      if ("kind" in thread) return thread;
      if (thread.threadId === undefined) return byParent();
      const seated = await byCodexThread(thread.threadId);
      if (seated.kind === "member" || (seated.reason !== "no-pane" && seated.reason !== "no-tmux"))
        return seated;
      // `codex exec` and `codex --no-daemon` start the server as their own child: no pane needed.
      const parent = await byParent();
      if (parent.kind === "member" && parent.engine === "codex")
        return { ...parent, id: `codex-${thread.threadId}`, threadId: thread.threadId };
      return seated;
    },
  };
}

/** The Codex thread's caller: the one pane that shows the thread and runs Codex, or a guest. */
async function codexThreadCaller(effects: IdentityEffects, threadId: string): Promise<Caller> {
  const [listed, rows] = await Promise.all([
    listPanes(effects.run, effects.target),
    effects.processes(),
  ]);
  if (!listed.ok)
    return {
      kind: "guest",
      reason: "no-tmux",
      error: `${listed.error}, so Codex thread ${threadId} has no pane`,
    };
  // Only panes that run Codex count: a title in another pane (anything can write one) neither
  // answers nor makes the real caller ambiguous.
  const seated = seatByCodexThread(
    listed.inventory,
    threadId,
    paneRuns(rows, "codex", [effects.self.pid]),
  );
  if (!seated.ok) {
    const reason = GUEST_REASON[seated.reason as keyof typeof GUEST_REASON] ?? "no-pane";
    // The title is the one anchor: name the config line that puts the thread id in it.
    const error =
      seated.reason === "unresolved"
        ? `${errorLine(seated)} (the line that fixes the title: ${titleFix(undefined)} in ~/.codex/config.toml; muster install codex writes it)`
        : errorLine(seated);
    return { kind: "guest", reason, error };
  }
  const pane = listed.inventory.panes.find((candidate) => candidate.id === seated.seat.pane)!;
  const found = discoverAgents(
    { panes: [pane], processes: rows, exclude: [effects.self.pid] },
    BUILTIN_ENGINES,
  ).agents[0];
  // A title is written by anything in the pane: without Codex running there it proves nothing.
  if (found?.engine !== "codex")
    return {
      kind: "guest",
      reason: "not-codex",
      error: `pane ${pane.id} shows Codex thread ${threadId} in its title but runs ${found?.engine ?? "no coding agent"}`,
    };
  return {
    kind: "member",
    id: `codex-${threadId}`,
    engine: "codex",
    pid: found.pid,
    start: found.start,
    seat: seated.seat,
    via: "codex-thread",
    threadId,
  };
}

/** The caller found by ancestry: the coding agent among this server's parents, or a guest. */
async function parentCaller(effects: IdentityEffects): Promise<Caller> {
  const rows = await effects.processes();
  const agent = findMyAgent(rows, effects.self.ppid);
  if (!agent.ok || !agent.engine)
    return {
      kind: "guest",
      reason: "no-engine",
      error:
        "no coding agent among this server's parent processes, and the call named no Codex thread",
    };
  const row = rows.find((candidate) => candidate.pid === agent.pid);
  if (agent.engine === "codex" && row && isCodexDaemon(row)) {
    return {
      kind: "guest",
      reason: "codex-daemon",
      error:
        "this server runs under the shared Codex app-server, and the call named no Codex thread (_meta.threadId)",
    };
  }
  const seated = await findMySeat({
    pid: agent.pid,
    processes: rows,
    target: effects.target,
    run: effects.run,
    defaultServer: true,
  });
  return {
    kind: "member",
    id: callerId(agent),
    engine: agent.engine,
    pid: agent.pid,
    start: agent.start,
    seat: seated.ok ? seated.seat : undefined,
    via: "ancestry",
  };
}

export type Identifier = ReturnType<typeof createIdentifier>;
