// The team_spawn tool: start another coding agent in a pane beside the caller's own. The caller's
// seat is the one identification proved (Codex: the pane titled with its thread that runs Codex;
// an engine that started this server: ancestry); a guest has no proven seat and spawns nothing.
// The spawn itself is the shared wiring's spawnAgent; this row words the answer.
import { errorLine } from "@muster/core";
import { createTmuxRunner } from "@muster/node";
import { hostFolder, spawnAgent, spawnedLine, spawnWorks } from "@muster/wiring";
import * as z from "zod";
import { printableResult as answer } from "./_result.js";
import { tool } from "./_tool.js";

export const SPAWN_TOOLS = [
  tool({
    name: "team_spawn",
    title: "Spawn a teammate",
    description:
      "Start another coding agent (pi, codex, claude, gemini, opencode or aider) in a new tmux pane beside yours, as a new member of this repository's team (muster). It joins under the label you give (or a generated one) and gets the task as its first prompt where the engine takes one, and as its first mail from you. Answers once it is on the team, or with the state it reached when the time limit ends the wait. Use it to hand a separate piece of work to a helper.",
    input: {
      engine: z.string().max(64).describe('The agent to start, e.g. "pi" or "codex"'),
      label: z
        .string()
        .max(32)
        .optional()
        .describe('Its label on the team, e.g. "reviewer" (default: generated)'),
      task: z
        .string()
        .max(20_000)
        .optional()
        .describe("What it should do: self-contained, with the paths and ids it needs"),
      window: z.boolean().optional().describe("true for a new tmux window instead of a split"),
      quiet: z
        .boolean()
        .optional()
        .describe(
          "true if mail should not wake it (by default a spawned member wakes for its mail)",
        ),
      worktree: z
        .boolean()
        .optional()
        .describe("true to start it in a new git worktree beside the repository"),
      timeout_seconds: z
        .number()
        .min(1)
        .max(300)
        .optional()
        .describe("How long to wait for it to start and join (default 30)"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    serves: { spawn: true },
    async run(args, call) {
      const { roster, standpoint } = await call.begin();
      if (standpoint.kind !== "member")
        return answer(
          `Not spawned: you are not on the team (${standpoint.error}), so no pane of yours is proven to spawn beside.`,
          { ok: false, reason: "guest" },
          true,
        );
      const { caller } = standpoint;
      const seat = caller.seat
        ? { ok: true as const, seat: caller.seat }
        : {
            ok: false as const,
            reason: "unresolved",
            error: `your ${caller.engine} process (pid ${caller.pid}) sits in no tmux pane of this server`,
          };
      const spawned = await spawnAgent(
        {
          engine: args.engine,
          label: args.label,
          task: args.task,
          window: args.window === true,
          worktree: args.worktree ? {} : undefined,
          cwd: call.team.cwd,
          timeoutMs: (args.timeout_seconds ?? 30) * 1000,
          quiet: args.quiet === true,
        },
        { seat, id: caller.id, pid: caller.pid },
        {
          roster,
          teamDir: await hostFolder(roster, { cwd: call.team.cwd }),
          run: createTmuxRunner(),
        },
      );
      if (!spawned.ok)
        return answer(
          `Not spawned: ${errorLine(spawned)}`,
          { ok: false, reason: spawned.reason },
          true,
        );
      return answer([`${spawnedLine(spawned)}.`, ...spawned.warnings].join("\n"), {
        ok: spawnWorks(spawned),
        label: spawned.record.label,
        engine: spawned.record.engine,
        pane: spawned.record.pane,
        pid: spawned.pid,
        state: spawned.state,
        session: spawned.session,
        cwd: spawned.record.cwd,
        task: spawned.task,
        mail: spawned.mail,
        by: spawned.record.by,
      });
    },
  }),
];
