// Waiting for a spawned agent, as every door's spawn does: until discovery finds the engine's
// process in the new pane, then until its label is live on the roster, or the time limit. While
// it waits it reports each step (and every few seconds that it still waits) to whoever shows
// progress; when the limit ends the wait, it says what was seen: whether the engine's process
// started, what the pane runs or whether it exited, and the engine's own state where the engine
// reports one before it joins (Claude Code's session registry).
import { holderOf } from "@muster/core";
import { recordSignal } from "@muster/core/internal";
import { processStart } from "@muster/node";
import type { FoundAgent } from "@muster/reconciler";
import type { Roster } from "@muster/roster";
import { listPanes, type SpawnRecord, type TmuxRunner } from "@muster/tmux";
import { claudeRegistry } from "./activity.ts";
import { lookForTrouble, type SpawnTrouble } from "./spawn-look.ts";
import { engineInPane } from "./spawned.ts";

/** How far the new agent got: each state includes the ones before it. */
export type SpawnState = "opened" | "started" | "joined";

/** One step of the wait, for a door that shows progress. */
export type SpawnProgress = {
  state: SpawnState;
  label: string;
  engine: string;
  pane: string;
  /** The engine's process, once found. */
  pid?: number | undefined;
  /** How long it has waited, and at most. */
  waitedMs: number;
  timeoutMs: number;
};

/** What the pane showed when the time limit ended the wait. */
export type SpawnSeen = {
  /** `running`: the pane is there and runs `command`; `exited`: its process ended; `gone`: closed. */
  pane: "running" | "exited" | "gone";
  /** tmux's foreground command in the pane. */
  command?: string | undefined;
  /** The engine's own state of its process, where it reports one before joining (Claude Code). */
  activity?: string | undefined;
};

export type WaitEffects = {
  roster: Roster;
  run: TmuxRunner;
  exclude?: readonly number[] | undefined;
  progress?: ((step: SpawnProgress) => void) | undefined;
  env?: NodeJS.ProcessEnv | undefined;
};

/** A line of "still waiting" at most this often. */
const STILL_WAITING_MS = 5_000;

/** A look at the pane's text (for an engine that says it cannot work, or ended) at most this often. */
const LOOK_EVERY_MS = 300;

/**
 * After the agent joined with a task on its command line, how long the pane is still watched for
 * the first turn's trouble: measured offline, pi's "No API key found" shows within a second of
 * its start, Codex's "Reconnecting..." and Claude Code's "Not logged in" and "Connection refused"
 * within two of the turn's start.
 */
export const FIRST_TURN_LOOK_MS = 3_000;

/** What the wait reached: the state, the engine's process, when, and any trouble the pane showed. */
export type Waited = {
  state: SpawnState;
  agent: FoundAgent | undefined;
  startedMs?: number | undefined;
  joinedMs?: number | undefined;
  trouble?: SpawnTrouble | undefined;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wait until the agent is proven in the pane and on the roster, or `timeoutMs` is over: the state
 * reached, the engine's process, and `since()` at each step (the spawn's own clock). All along, the
 * pane is looked at: an engine that says it cannot work, or whose program ended, ends the wait at
 * once with that trouble; once joined, a first turn (`firstTurnMs`) is watched a little longer.
 */
export async function waitForMember(
  effects: WaitEffects,
  record: SpawnRecord,
  timeoutMs: number,
  since: () => number,
  firstTurnMs = 0,
): Promise<Waited> {
  const began = Date.now();
  const deadline = began + timeoutMs;
  let told = began;
  const tell = (state: SpawnState, pid?: number) => {
    told = Date.now();
    effects.progress?.({
      state,
      label: record.label,
      engine: record.engine,
      pane: record.pane,
      pid,
      waitedMs: told - began,
      timeoutMs,
    });
  };
  let looked = 0;
  const look = async (force = false) => {
    if (!force && Date.now() - looked < LOOK_EVERY_MS) return undefined;
    looked = Date.now();
    return lookForTrouble(effects.run, record);
  };
  tell("opened");
  let agent: FoundAgent | undefined;
  while (!agent && Date.now() < deadline) {
    agent = await engineInPane(effects.run, record, effects.exclude);
    if (!agent) {
      const trouble = await look();
      if (trouble) return { state: "opened", agent, trouble };
      if (Date.now() - told >= STILL_WAITING_MS) tell("opened");
      await sleep(100);
    }
  }
  if (!agent) return { state: "opened", agent, trouble: await look(true) };
  const startedMs = since();
  tell("started", agent.pid);
  while (Date.now() < deadline) {
    const read = await effects.roster.read();
    if (read.ok && holderOf(read.members, record.label)?.state === "live") {
      const joinedMs = since();
      tell("joined", agent.pid);
      const trouble = await watchFirstTurn(look, firstTurnMs);
      return { state: "joined", agent, startedMs, joinedMs, trouble };
    }
    const trouble = await look();
    if (trouble) return { state: "started", agent, startedMs, trouble };
    if (Date.now() - told >= STILL_WAITING_MS) tell("started", agent.pid);
    await sleep(150);
  }
  return { state: "started", agent, startedMs, trouble: await look(true) };
}

/** One look at once, then looks for `firstTurnMs` more: the first trouble seen, if any. */
async function watchFirstTurn(
  look: (force?: boolean) => Promise<SpawnTrouble | undefined>,
  firstTurnMs: number,
): Promise<SpawnTrouble | undefined> {
  const until = Date.now() + firstTurnMs;
  let trouble = await look(true);
  while (!trouble && Date.now() < until) {
    await sleep(LOOK_EVERY_MS);
    trouble = await look(true);
  }
  return trouble;
}

/** What the pane shows now, and the engine's own state where it reports one before joining. */
export async function whatWasSeen(
  effects: WaitEffects,
  record: SpawnRecord,
  agent: FoundAgent | undefined,
): Promise<SpawnSeen> {
  const listed = await listPanes(effects.run, { socket: record.server });
  const pane = listed.ok
    ? listed.inventory.panes.find((entry) => entry.id === record.pane)
    : undefined;
  const seen: SpawnSeen = !pane
    ? { pane: "gone" }
    : { pane: pane.dead ? "exited" : "running", command: pane.command };
  if (agent && record.engine === "claude") {
    const pidStart = processStart(agent.pid);
    const report = claudeRegistry(
      { agent: "claude", state: "live", pid: agent.pid, pidStart },
      effects.env ?? process.env,
    );
    const step = report ? recordSignal(undefined, report, Date.now()) : undefined;
    if (step?.write) seen.activity = step.activity.state;
  }
  return seen;
}

/**
 * What the wait saw, in words, when the time limit ended it: "codex started (pid 42) and ran 30 s
 * without joining as codex-oak", "pi never started in pane %7, which runs sh", "… exited".
 */
export function notJoinedLine(
  record: SpawnRecord,
  state: SpawnState,
  pid: number,
  seen: SpawnSeen,
  timeoutMs: number,
): string {
  const limit = `${timeoutMs / 1000} s`;
  const pane =
    seen.pane === "gone"
      ? `pane ${record.pane} is gone`
      : seen.pane === "exited"
        ? `the process in pane ${record.pane} exited`
        : `pane ${record.pane} runs ${seen.command || "nothing tmux can name"}`;
  if (state === "opened") return `${record.engine} did not start in ${limit}: ${pane}`;
  const said = seen.activity ? `; ${record.engine} says it is ${seen.activity}` : "";
  const still = seen.pane === "running" ? "" : `; ${pane}`;
  return `${record.engine} started (pid ${pid}) but did not join as ${record.label} in ${limit}${said}${still}`;
}
