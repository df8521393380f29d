// `muster hook codex notify [-- <program> <args>…] <json>`: what Codex's `notify` runs after every
// turn (`muster install codex` writes it). First the user's own notify program, when the install
// chained one, with the same argument, untouched; then, for the thread's member, one wake sweep:
// mail that came during the turn and still waits is queued to the thread now. A claim per message
// (the roster's `wakes` space) keeps it to one wake however many muster processes look. Both only
// when Codex ran it for that thread (core's notifyOrigin: under the thread's Codex process, or
// under the Codex daemon of the member's home): a thread id is no proof, anyone can name one.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { type ChainProcess, codexMemberId, isCodexDaemon, notifyOrigin } from "@muster/core";
import { processEnviron, processPlace, readProcessAncestry } from "@muster/node";
import type { Roster } from "@muster/roster";
import { alertAbout, engineHome, openTeam, reportSignal } from "@muster/wiring";
import { type CodexRunner, codexFor, wakeCodexMember } from "./_codex-wake.js";

export type NotifyOptions = {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Runs Codex (tests pass their own). */
  run?: CodexRunner;
};

export type NotifyOutcome = {
  /** The user's program that was started, if one was chained. */
  chained: string | undefined;
  /** The member whose turn ended, when the argument names a Codex thread. */
  member: string | undefined;
  /** 1 when its waiting mail was queued to the thread. */
  woken: number;
};

/** The notify argument, as Codex writes it; anything else is no turn of ours. */
function turnOf(
  payload: string | undefined,
): { member: string; cwd: string | undefined } | undefined {
  if (payload === undefined || payload.length > 1 << 20) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.type !== "agent-turn-complete") return undefined;
  const member = codexMemberId(record["thread-id"]);
  if (!member) return undefined;
  const cwd =
    typeof record.cwd === "string" && path.isAbsolute(record.cwd) && !record.cwd.includes("\0")
      ? record.cwd
      : undefined;
  return { member, cwd };
}

/** Start the chained program with the same argument; muster does not wait for it. */
function runChained(program: readonly string[], payload: string): string | undefined {
  const [command, ...args] = program;
  if (!command) return undefined;
  try {
    const child = spawn(command, [...args, payload], { detached: true, stdio: "ignore" });
    child.once("error", () => {});
    child.unref();
    return command;
  } catch {
    return undefined;
  }
}

/** A process's environment (`KEY=value\0…`) as an env object. */
const envOf = (environ: string): NodeJS.ProcessEnv =>
  Object.fromEntries(
    environ
      .split("\0")
      .filter((entry) => entry.includes("="))
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
  );

/** This process's chain of parents, itself first, each Codex daemon with the home it serves. */
async function ownChain(): Promise<ChainProcess[]> {
  const table = await readProcessAncestry(process.pid);
  if (!table.ok) return [];
  return table.processes.map((row) => {
    if (!isCodexDaemon(row)) return row;
    const read = processEnviron(row.pid);
    // The home counts only when the environment read is the same process's (its start unchanged).
    const home =
      read.ok && read.start === row.start ? engineHome("codex", envOf(read.environ)) : undefined;
    return { ...row, home };
  });
}

/** Whether Codex ran this notify for `member`: its record, this host, this process's chain. */
async function fromCodex(roster: Roster, member: string): Promise<boolean> {
  const read = await roster.read();
  const record = read.ok ? read.members.find((entry) => entry.id === member) : undefined;
  if (!record) return false;
  return notifyOrigin(record, processPlace(), await ownChain()).ok;
}

/**
 * `argv` is what follows `muster hook codex notify`: the chained program and its arguments (after
 * `--`, which the CLI's parser has taken away), then the JSON argument Codex appended.
 */
export async function codexNotify(
  argv: readonly string[],
  options: NotifyOptions,
): Promise<NotifyOutcome> {
  const payload = argv.at(-1);
  const chained = payload === undefined ? undefined : runChained(argv.slice(0, -1), payload);
  const turn = turnOf(payload);
  if (!turn) return { chained, member: undefined, woken: 0 };
  const opened = await openTeam({ cwd: turn.cwd ?? options.cwd, env: options.env }).catch(
    () => undefined,
  );
  if (!opened?.ok) return { chained, member: turn.member, woken: 0 };
  if (!(await fromCodex(opened.roster, turn.member).catch(() => false)))
    return { chained, member: turn.member, woken: 0 };
  // The turn ended: the member is idle (core's signal table, codex/turn-complete), and the person
  // is told when that ends a long turn.
  const ended = await reportSignal(opened.roster, turn.member, {
    engine: "codex",
    signal: "turn-complete",
    at: Date.now(),
  }).catch(() => undefined);
  if (ended?.attention)
    await alertAbout(opened.roster, turn.member, ended.attention, {
      env: options.env,
      detail: { turnMs: ended.before && ended.after && ended.after.at - ended.before.since },
    });
  // Codex ran this hook for this very thread, from its own home: the member's own door.
  const woken = await wakeCodexMember(opened.roster, turn.member, {
    env: options.env,
    codexFor: codexFor(options.env),
    ...(options.run ? { run: options.run } : {}),
    // Unique per run: a claim this holder already has would read as its own, free to take again.
    holder: `notify-${process.pid}-${randomBytes(4).toString("hex")}`,
  });
  return { chained, member: turn.member, woken };
}
