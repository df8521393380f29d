// Spawning a teammate from pi: the `team_spawn` tool and `/team spawn`. The caller is this pi
// process, its seat the tmux pane among its ancestors; the spawn itself (pane, launch, waiting, the
// task's mail) is the shared wiring's spawnAgent. This file parses, wires and words the answer.
import { errorLine } from "@muster/core";
import { createTmuxRunner } from "@muster/node";
import {
  findMySeat,
  hostFolder,
  type SpawnRequest,
  spawnAgent,
  spawnedLine,
  spawnWorks,
} from "@muster/wiring";
import { Type } from "typebox";
import type { TeamSession } from "./_team.js";
import { tool } from "./_tool.js";

export type SpawnAsk = Omit<SpawnRequest, "cwd" | "timeoutMs"> & { timeoutMs?: number | undefined };

/** Spawn beside this pi's own pane: a line saying the state reached, or why nothing was opened. */
export async function spawnBeside(
  session: TeamSession | undefined,
  ask: SpawnAsk,
): Promise<{ ok: boolean; text: string; details: Record<string, unknown> }> {
  if (!session?.roster)
    return { ok: false, text: "Not spawned: muster has no team folder here.", details: {} };
  const run = createTmuxRunner();
  const seat = await findMySeat({ pid: process.pid, run });
  const spawned = await spawnAgent(
    { ...ask, cwd: session.options.cwd, timeoutMs: ask.timeoutMs ?? 30_000 },
    { seat, id: session.options.id, pid: process.pid },
    {
      roster: session.roster,
      teamDir: await hostFolder(session.roster, { cwd: session.options.cwd }),
      run,
    },
  );
  if (!spawned.ok)
    return {
      ok: false,
      text: `Not spawned: ${errorLine(spawned)}`,
      details: { reason: spawned.reason },
    };
  const warnings = spawned.warnings.map((warning) => `\n${warning}`).join("");
  return {
    ok: spawnWorks(spawned),
    text: `${spawnedLine(spawned)}.${warnings}`,
    details: {
      label: spawned.record.label,
      engine: spawned.record.engine,
      pane: spawned.record.pane,
      pid: spawned.pid,
      state: spawned.state,
      task: spawned.task,
      mail: spawned.mail,
    },
  };
}

/** `/team spawn <engine> [--label L] [--window] [--worktree] [--quiet] [task…]`, parsed; or the usage. */
export function parseSpawnWords(words: readonly string[]): SpawnAsk | undefined {
  const [engine, ...rest] = words;
  if (!engine || engine.startsWith("--")) return undefined;
  const ask: SpawnAsk = { engine };
  let index = 0;
  for (; index < rest.length && rest[index]!.startsWith("--"); index += 1) {
    const flag = rest[index];
    if (flag === "--window") ask.window = true;
    else if (flag === "--worktree") ask.worktree = {};
    else if (flag === "--quiet") ask.quiet = true;
    else if (flag === "--label" && rest[index + 1] !== undefined) {
      index += 1;
      ask.label = rest[index];
    } else return undefined;
  }
  if (index < rest.length) ask.task = rest.slice(index).join(" ");
  return ask;
}

export const SPAWN_USAGE = "spawn <engine> [--label L] [--window] [--worktree] [--quiet] [task…]";

/** The `team_spawn` tool for pi's model. */
export const SPAWN_TOOLS = [
  tool({
    name: "team_spawn",
    label: "Spawn a teammate",
    description:
      "Start another coding agent (pi, codex, claude, gemini, opencode or aider) in a new tmux pane beside yours, as a new member of this repository's team (muster). It joins under the label you give (or a generated one) and gets the task as its first prompt and as its first mail from you. Answers once it is on the team, or with the state it reached within the time limit. Use it to hand a separate piece of work to a helper; stop it later with `muster stop <label>`.",
    parameters: Type.Object({
      engine: Type.String({ description: 'The agent to start, e.g. "pi" or "codex"' }),
      label: Type.Optional(
        Type.String({ description: 'Its label on the team, e.g. "reviewer" (default: generated)' }),
      ),
      task: Type.Optional(
        Type.String({ description: "What it should do: self-contained, with paths and ids" }),
      ),
      window: Type.Optional(
        Type.Boolean({ description: "true for a new tmux window instead of a split of yours" }),
      ),
      worktree: Type.Optional(
        Type.Boolean({
          description: "true to start it in a new git worktree beside the repository",
        }),
      ),
      quiet: Type.Optional(
        Type.Boolean({
          description:
            "true if mail should not wake it (by default a spawned member wakes for its mail)",
        }),
      ),
    }),
    serves: { spawn: true },
    async run(params, { team }) {
      const answer = await spawnBeside(team(), {
        engine: params.engine,
        label: params.label,
        task: params.task,
        window: params.window === true,
        worktree: params.worktree ? {} : undefined,
        quiet: params.quiet === true,
      });
      return { text: answer.text, details: answer.details };
    },
  }),
];
