// Listening to Codex's app-server control socket (`<Codex home>/app-server-control/
// app-server-control.sock`, JSON-RPC over a WebSocket on a unix socket): every connected client
// hears `thread/status/changed` for every thread of that home, which is each Codex member's
// activity (core's `codexStatusChange`: working, needs-you, idle). Every muster MCP server runs
// this, but only the holder of the team's claim for the home (`listeners/codex-<home>`, judged by
// the holder's pid and start time) connects: one listener per home and team, taken over within
// `retryMs` when its process ends. Recording goes through `reportSignal` under the member's lock,
// so two listeners (a takeover in flight) would still record and alert once. A muster tool call
// inside a Codex turn says the same of its caller (`recordToolCall`).
import { createHash, randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import { canDeliverWake, codexMemberId, codexStatusChange, codexStatusSignal } from "@muster/core";
import { processPlace, processStart } from "@muster/node";
import type { Claim, Roster } from "@muster/roster";
import { alertAbout, engineHome, reportSignal } from "@muster/wiring";
import type { CallMeta } from "./_identity.js";
import type { Standpoint } from "./_team.js";

/** The control socket of a Codex home. */
export const controlSocket = (home: string) =>
  path.join(home, "app-server-control", "app-server-control.sock");

/** The claim's key for a home: one listener per home. */
export const listenerKey = (home: string) =>
  `codex-${createHash("sha256").update(home).digest("hex").slice(0, 12)}`;

export type CodexListenerOptions = {
  roster: () => Promise<Roster>;
  env: NodeJS.ProcessEnv;
  /** How often a process that is not the listener asks for the claim, and a lost socket is retried. */
  retryMs?: number;
  /** Told of each status change once it is recorded (tests and the benchmark read it). */
  onRecorded?: (change: { member: string; signal: string; recorded: boolean }) => void;
};

/** The part of a `ws` WebSocket this file uses. */
type Socket = {
  on(event: "open" | "close" | "error", listener: (...args: unknown[]) => void): void;
  on(event: "message", listener: (data: Buffer) => void): void;
  send(text: string): void;
  close(): void;
};

/** A JSON-RPC message, or undefined for text that is not one. */
function parseMessage(data: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data.toString("utf8"));
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

type Here = { engine: string; engineHome: string; place: string | undefined };

/** Record one status change of a thread: only for a live member of this team whose Codex runs here. */
async function recordStatus(
  options: CodexListenerOptions,
  here: Here,
  change: { threadId: string; signal: string; at: number },
) {
  const member = codexMemberId(change.threadId);
  if (!member) return;
  const roster = await options.roster();
  const read = await roster.read();
  const found = read.ok ? read.members.find((entry) => entry.id === member) : undefined;
  // Only a member of this team whose Codex runs from this home, on this host.
  if (found?.state !== "live" || !canDeliverWake(found, here)) return;
  const { signal, at } = change;
  const outcome = await reportSignal(roster, member, { engine: "codex", signal, at });
  if (outcome.attention)
    await alertAbout(roster, member, outcome.attention, {
      env: options.env,
      detail: {
        turnMs: outcome.before && outcome.after && outcome.after.at - outcome.before.since,
      },
    });
  options.onRecorded?.({ member, signal, recorded: outcome.recorded });
}

/**
 * Connect to a home's control socket, if its daemon runs: each status change is handed to
 * `heard`, after the loaded threads' status now (what was missed while nobody listened).
 */
async function openSocket(
  home: string,
  heard: (threadId: string, signal: string, at: number) => void,
  lost: (socket: Socket) => void,
): Promise<Socket | undefined> {
  const file = controlSocket(home);
  try {
    // Codex 0.171.0 makes this path a symlink to /tmp/codex-daemon-<uid>/<hash> (a unix socket's
    // path has ~108 bytes): what it points at must be a socket.
    if (!statSync(file).isSocket()) return undefined;
  } catch {
    return undefined; // no daemon (yet), or `codex --no-daemon`: nothing to hear
  }
  const { default: WebSocket } = await import("ws");
  const opened = new WebSocket(`ws+unix://${file}:/`, { maxPayload: 16 << 20 }) as Socket;
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  const ask = (method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      id += 1;
      pending.set(id, resolve);
      opened.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  opened.on("message", (data) => {
    const message = parseMessage(data);
    if (!message) return;
    if (typeof message.id === "number" && pending.has(message.id)) {
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
      return;
    }
    const change = codexStatusChange(message, Date.now());
    if (change) heard(change.threadId, change.signal, change.at);
  });
  opened.on("close", () => lost(opened));
  opened.on("error", () => lost(opened));
  opened.on("open", () => {
    void (async () => {
      await ask("initialize", { clientInfo: { name: "muster", version: "0.1.0" } });
      // What was missed while nobody listened: each loaded thread's status now.
      const listed = (await ask("thread/loaded/list", {})) as { data?: unknown } | undefined;
      const threads = Array.isArray(listed?.data) ? listed.data : [];
      for (const threadId of threads.filter((entry) => typeof entry === "string")) {
        const read = (await ask("thread/read", { threadId })) as
          | { thread?: { status?: unknown } }
          | undefined;
        const signal = codexStatusSignal(read?.thread?.status);
        if (signal) heard(threadId, signal, Date.now());
      }
    })().catch(() => undefined);
  });
  return opened;
}

/** Start listening for this team; the answer stops it and gives the claim back. */
export function startCodexListener(options: CodexListenerOptions): () => Promise<void> {
  const home = engineHome("codex", options.env);
  if (!home) return async () => {};
  const here = { engine: "codex", engineHome: home, place: processPlace() };
  const key = listenerKey(home);
  const holder = `listen-${process.pid}-${randomBytes(6).toString("hex")}`;
  let held = false;
  let socket: Socket | undefined;
  let stopped = false;
  // Status changes are recorded one after another, in the order the socket sent them.
  let queue: Promise<unknown> = Promise.resolve();
  const enqueue = (threadId: string, signal: string, at: number) => {
    queue = queue
      .then(() => recordStatus(options, here, { threadId, signal, at }))
      .catch(() => undefined);
  };

  async function claim(roster: Roster): Promise<boolean> {
    const claimed = await roster.claim<Claim>({
      space: "listeners",
      key,
      holder,
      data: { home },
      // Held while this process lives: the roster judges it by its own process facts.
      heldBy: { pid: process.pid, start: processStart(process.pid) },
    });
    return claimed.ok;
  }

  async function tick() {
    if (stopped || socket) return;
    const roster = await options.roster();
    held ||= await claim(roster);
    if (held && !stopped)
      socket = await openSocket(home!, enqueue, (lost) => {
        if (socket === lost) socket = undefined;
      });
  }
  let ticking: Promise<void> | undefined;
  const run = () => {
    ticking ??= tick()
      .catch(() => undefined)
      .finally(() => {
        ticking = undefined;
      });
  };
  const timer = setInterval(run, options.retryMs ?? 5_000);
  timer.unref();
  run();

  return async () => {
    stopped = true;
    clearInterval(timer);
    await ticking;
    socket?.close();
    await queue;
    if (held)
      await (await options.roster()).releaseClaim("listeners", key, holder).catch(() => false);
  };
}

/**
 * A muster tool call that Codex made inside a turn (its `_meta` carries `x-codex-turn-metadata`):
 * its member is working (core's codex/tool-call). Never fails the call it rides on.
 */
export async function recordToolCall(
  roster: Roster,
  standpoint: Standpoint,
  meta: CallMeta,
): Promise<void> {
  if (standpoint.kind !== "member" || standpoint.caller.engine !== "codex") return;
  const turn = meta?.["x-codex-turn-metadata"];
  if (!standpoint.caller.threadId || typeof turn !== "object" || turn === null) return;
  await reportSignal(roster, standpoint.caller.id, {
    engine: "codex",
    signal: "tool-call",
    at: Date.now(),
  }).catch(() => undefined);
}
