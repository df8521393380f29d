// Wake latency of *spawned* members, per engine, in one run: `muster spawn pi|codex|claude` from a
// shell window of a private tmux server (each engine its own throwaway HOME and team, set up by
// muster's installers, offline against scripted models), then mail from a member this process
// keeps live → the spawned engine's turn starting: pi's agent loop starting (the test extension's
// MUSTER_FAUX_TURNS log), Codex's and Claude Code's first model request of the woken turn. The
// core wake policy allows 6 wakes a minute per member: each engine's samples come from two
// spawned members, 6 wakes each, the first a warm-up; each mail waits for its recipient to be idle.
// The two Codex members are spawned into two HOMEs: a second Codex spawned into the HOME whose
// daemon already serves one joins under a generated label, not the spawn's (the daemon's MCP
// servers all see the first TUI's environment), and spawn waits for its label in vain.

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
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { type BenchRow, median, percentile } from "../src/bench-kit.ts";

const PACKAGES = path.resolve(import.meta.dirname, "..", "..", "packages");
const CLI = path.join(PACKAGES, "cli");
const MUSTER = path.join(CLI, "dist", "muster.js");
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
const MEMBERS = 2;
const WAKES = 6;

const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** One engine's set-up: its server, where to spawn from, and how its turns are seen. */
type Engine = {
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

/** Run `muster spawn …` from a new shell window of the engine's server, to its end. */
async function spawnFrom(engine: Engine, label: string) {
  const out = path.join(engine.scratch, `spawn-${label}`);
  const quoted = [process.execPath, MUSTER, ...engine.spawnArgs(label)]
    .map((arg) => `'${arg}'`)
    .join(" ");
  const script = `${quoted} > ${out}.json 2> ${out}.err; echo $? > ${out}.status; sleep 3600\n`;
  execFileSync("sh", ["-c", `cat > ${out}.sh`], { input: script });
  engine.server.tmux("new-window", "-d", "-c", engine.repo, `sh ${out}.sh`);
  await eventually(() => readOr(`${out}.status`).trim(), Boolean, `${label}'s spawn`, {
    attempts: 1800,
    intervalMs: 100,
  });
  const result = JSON.parse(readOr(`${out}.json`) || "{}");
  if (result.state !== "joined") {
    const pane = typeof result.pane === "string" ? result.pane : "main";
    const screen = engine.server.tmux("capture-pane", "-p", "-t", pane);
    throw new Error(`spawn ${label}: ${readOr(`${out}.err`)}; its pane:\n${screen}`);
  }
  await engine.ready?.(label);
}

async function piEngine(): Promise<Engine> {
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

async function codexEngine(members: number): Promise<Engine> {
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

async function claudeEngine(): Promise<Engine> {
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

/** Spawn the engine's members and wake each; the latencies after each member's warm-up. */
async function measureEngine(
  engine: Engine,
  members: number,
): Promise<{ times: number[]; missed: number }> {
  const labels = Array.from({ length: members }, (_, index) => `spawned-${index}`);
  for (const label of labels) await spawnFrom(engine, label);
  const roster = await openTestTeam(engine.teamDir);
  await joinAsThisProcess(roster, "bench", "bench-sender");
  const member = async (label: string) => {
    const read = await roster.read();
    return read.ok ? read.members.find((entry) => entry.label === label) : undefined;
  };
  const times: number[] = [];
  let missed = 0;
  for (let round = 0; round < WAKES; round += 1) {
    for (const label of labels) {
      const recipient = (await eventually(
        () => member(label),
        (record) => record?.activity?.state === "idle",
        `${label} to be idle`,
        { attempts: 600 },
      ))!;
      // A moment for the engine to settle after its turn (Claude Code's Stop hook).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const body = `bench mail ${round}.${label}`;
      const turn = engine.turnFor(body);
      const sent = await roster.send({ from: "bench-sender", to: label, body });
      if (!sent.ok) throw new Error(sent.error);
      // A wake not seen within its wait is counted, not measured: a benchmark reports, never fails.
      const at = await turn().catch(async (error: Error) => {
        // What its receipt says of it (a failed wake is named there; a rate-limited one is not).
        const receipt = await roster.receipt(sent.id).catch(() => undefined);
        console.error(
          `spawn-wake: ${engine.name} ${label} round ${round}: ${error.message}; receipt: ${JSON.stringify(receipt)}`,
        );
        return undefined;
      });
      if (at === undefined) missed += 1;
      else if (round > 0) times.push(at - Date.parse(sent.sentAt));
      await engine.read?.(roster, recipient.id, sent.id);
    }
  }
  return { times, missed };
}

/** Each engine's set-ups, and how many members each spawns. */
const RUNS: [string, () => Promise<Engine>, number][] = [
  ["pi", piEngine, MEMBERS],
  ["Codex", () => codexEngine(1), 1],
  ["Codex", () => codexEngine(1), 1],
  ["Claude Code", claudeEngine, MEMBERS],
];

export async function run(): Promise<BenchRow[]> {
  const samples = new Map<string, { times: number[]; missed: number }>();
  for (const [name, start, members] of RUNS) {
    const engine = await start();
    try {
      const measured = await measureEngine(engine, members);
      const before = samples.get(name) ?? { times: [], missed: 0 };
      samples.set(name, {
        times: [...before.times, ...measured.times],
        missed: before.missed + measured.missed,
      });
    } finally {
      await engine.close();
    }
  }
  return [...samples].map(([name, { times, missed }]) => ({
    name: `spawn-wake: ${name}, mail written → a spawned member's turn starting, p50`,
    medianMs: median(times),
    note: `p95 ${percentile(times, 95).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms; ${times.length} wakes over ${MEMBERS} members started by muster spawn, ${missed} not seen within its wait`,
  }));
}
