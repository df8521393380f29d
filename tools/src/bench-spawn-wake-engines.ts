// The engines of the spawn-wake benchmark (tools/bench/spawn-wake.ts; here, since every module in
// tools/bench is a benchmark), each set up as a newcomer's would be: a private tmux server with a
// shell window to spawn from, its own throwaway HOME and team set up by muster's installers, offline against scripted models, and how its woken turn is seen: pi's
// agent loop starting (the test extension's MUSTER_FAUX_TURNS log), Codex's and Claude Code's
// first model request of the woken turn. The two Codex members are spawned into two HOMEs: a
// second Codex spawned into the HOME whose daemon already serves one joins under a generated
// label, not the spawn's (the daemon's MCP servers all see the first TUI's environment), and spawn
// waits for its label in vain.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Roster } from "@muster/roster";
import {
  claudeHome,
  eventually,
  type PrivateTmux,
  realCodex,
  startPrivateTmux,
  startScriptedMessages,
  userTexts,
} from "@muster/test-support";

const PACKAGES = path.resolve(import.meta.dirname, "..", "..", "packages");
const CLI = path.join(PACKAGES, "cli");
export const MUSTER = path.join(CLI, "dist", "muster.js");
const CODEX = path.join(CLI, "node_modules", ".bin", "codex");
const CLAUDE = path.join(CLI, "node_modules", ".bin", "claude");
const PI = path.join(PACKAGES, "pi-extension");
const PI_CLI = path.join(PI, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const PI_ARGS = [
  ...[
    "-e",
    path.join(PI, "dist", "muster", "index.js"),
    "-e",
    path.join(PI, "test", "faux-extension.ts"),
  ],
  ...["--provider", "faux", "--model", "faux-1", "--offline"],
];

export const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** One engine's set-up: its server, where to spawn from, and how its turns are seen. */
export type Engine = {
  name: string;
  server: PrivateTmux;
  repo: string;
  teamDir: string;
  scratch: string;
  spawnArgs(label: string): string[];
  /** Resolves once the spawned member can be woken. */
  ready?(label: string): Promise<unknown>;
  /** Called just before a mail is sent; resolves with the time its woken turn started. */
  turnFor(body: string): () => Promise<number>;
  /** Read the mail as the engine's own tools would, where delivery does not. */
  read?(roster: Roster, memberId: string, messageId: string): Promise<unknown>;
  close(): Promise<void>;
};

export async function piEngine(): Promise<Engine> {
  const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-bench-spawn-wake-pi-")));
  const [home, repo, teamDir] = ["home", "repo", "team"].map((name) => path.join(scratch, name));
  for (const folder of [path.join(home!, "bin"), path.join(home!, "tmp"), repo!])
    mkdirSync(folder, { recursive: true });
  symlinkSync(PI_CLI, path.join(home!, "bin", "pi"));
  const turns = path.join(scratch, "turns.log");
  const server = startPrivateTmux({
    for: "bench",
    command: "sleep 3600",
    env: {
      HOME: home,
      TMPDIR: path.join(home!, "tmp"),
      PATH: `${path.join(home!, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      MUSTER_TEAM_DIR: teamDir,
      MUSTER_MAIL: "wakes",
      MUSTER_FAUX_TURNS: turns,
    },
  });
  return {
    name: "pi",
    server,
    repo: repo!,
    teamDir: teamDir!,
    scratch,
    spawnArgs: (label) => ["spawn", "pi", "--label", label, "--json", "--", ...PI_ARGS],
    turnFor: () => {
      const before = readOr(turns).split("\n").filter(Boolean).length;
      return async () => {
        const lines = await eventually(
          () => readOr(turns).split("\n").filter(Boolean),
          (all) => all.length > before,
          "pi's woken turn",
          { attempts: 600, intervalMs: 10 },
        );
        return Number(lines[before]);
      };
    },
    close: async () => {
      server.kill();
      rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

export async function codexEngine(members: number): Promise<Engine> {
  // Each spawned Codex's task turn joins it (a team_roster call), and so may the turn the task's
  // mail wakes (whichever comes first takes the next step): a roster call for each, to spare.
  const joins = Array.from({ length: 3 * members }, () => [
    { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
    { text: "Joined." },
  ]).flat();
  const codex = await realCodex({
    prefix: "muster-bench-spawn-wake-codex-",
    codex: CODEX,
    muster: MUSTER,
    install: ["--wake"],
    script: joins,
  });
  const { model } = codex;
  return {
    name: "Codex",
    server: codex.server,
    repo: codex.repo,
    teamDir: codex.teamDir,
    scratch: codex.home,
    spawnArgs: (label) => [
      "spawn",
      "codex",
      "--label",
      label,
      "--task",
      "join the team",
      "--timeout",
      "120",
      "--json",
    ],
    turnFor: (body) => async () => {
      const index = await eventually(
        () =>
          model.requests.findIndex((request) =>
            userTexts(request).some((text) => text.includes(body)),
          ),
        (found) => found >= 0,
        "Codex's woken turn",
        { attempts: 3000, intervalMs: 10 },
      );
      return model.receivedAt[index]!;
    },
    // Read it, as the model would with team_inbox, so the next wake carries one message.
    read: (roster, memberId, messageId) => roster.ack(memberId, [messageId]),
    close: codex.close,
  };
}

export async function claudeEngine(): Promise<Engine> {
  const model = await startScriptedMessages([]);
  const { home, repo, env } = claudeHome({ baseUrl: model.baseUrl, label: "unused" });
  const bin = path.join(home, "bin");
  mkdirSync(bin);
  symlinkSync(CLAUDE, path.join(bin, "claude"));
  const serverEnv = { ...env, PATH: `${bin}:${env.PATH}`, MUSTER_LABEL: undefined };
  execFileSync(process.execPath, [MUSTER, "install", "claude"], { cwd: repo, env: serverEnv });
  const server = startPrivateTmux({ for: "bench", command: "sleep 3600", env: serverEnv });
  const log = (label: string) => path.join(home, `claude-${label}.log`);
  return {
    name: "Claude Code",
    server,
    repo,
    teamDir: env.MUSTER_TEAM_DIR!,
    scratch: home,
    spawnArgs: (label) => [
      ...["spawn", "claude", "--label", label, "--timeout", "120", "--json", "--"],
      ...["--dangerously-skip-permissions", "--debug-file", log(label)],
    ],
    // Mail that lands before Claude Code watches the mailbox waits for its next prompt.
    ready: (label) =>
      eventually(
        () => readOr(log(label)),
        (text) => /FileChanged: watching \d+ paths/.test(text),
        "Claude Code to watch its mailbox",
        { attempts: 600 },
      ),
    turnFor: (body) => async () => {
      const request = await eventually(
        () =>
          model.requests.find(
            (entry) => entry.scripted && JSON.stringify(entry.body.messages ?? []).includes(body),
          ),
        Boolean,
        "Claude Code's woken turn",
        { attempts: 1000, intervalMs: 10 },
      );
      return request!.at;
    },
    close: async () => {
      server.kill();
      await model.close();
      // Claude Code writes its debug log as it exits.
      await new Promise((resolve) => setTimeout(resolve, 500));
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
