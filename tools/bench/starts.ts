// The short-lived starts of muster, each against a bare `node -e 0` start, all interleaved in one
// run (every round runs every command once, in turn): tmux's status job (`status --line`), the
// CLI an agent runs (`roster --json`, `agents --json`), Claude Code's hooks (the guard on a
// repository where another member holds a lease, user-prompt-submit, stop), Codex's notify and
// `muster mcp` until its answer to tools/list (after initialize; then it is ended).
// Each row is split into its parts: Node's own start (the bare start), loading muster (the same
// bundle's --help, which reads nothing, over the bare start) and muster's work (the command over
// its --help), so a regression says where it came from. `agents --json` has a main of its own that
// hands --help to the full CLI, so its row is split against its floor instead (list-panes and a
// read of /proc in a bare Node, interleaved with the rest: its own row): what any scanner pays,
// and what muster adds over it.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startPrivateTmux } from "@muster/test-support";
import { inventoryArgs } from "@muster/tmux";
import { AGENTS_FLOOR } from "../src/agents-floor.ts";
import { type BenchRow, median } from "../src/bench-kit.ts";
import { MCP_HANDSHAKE } from "../src/mcp-handshake.ts";

const MUSTER = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "packages",
  "cli",
  "dist",
  "muster.js",
);
const ROUNDS = 21;
const WARMUP = 3;

/** `answers`: end it once it has written this many lines (a server), not at its exit. */
type Start = { args: string[]; cwd?: string; input?: string; answers?: number };
type Row = { name: string; start: Start; load: string };

/** One start, to its end; its output checked by the caller once, before the timing. */
const start = (env: NodeJS.ProcessEnv, { args, cwd, input }: Start) =>
  execFileSync(process.execPath, args, { env, cwd, input: input ?? "", stdio: "pipe" });

/**
 * One start, timed from spawn to its exit, or to its `answers`-th line of output (then it is
 * killed). A hook's answer may be an exit status (the guard's 2): timed all the same.
 */
function timed(env: NodeJS.ProcessEnv, { args, cwd, input, answers }: Start): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ["pipe", "pipe", "ignore"] });
    let lines = 0;
    child.once("error", reject);
    child.stdout.on("data", (chunk: Buffer) => {
      if (answers === undefined) return;
      lines += chunk.toString().split("\n").length - 1;
      if (lines < answers) return;
      resolve(performance.now() - started);
      child.kill();
    });
    child.once("exit", () => resolve(performance.now() - started));
    child.stdin.end(input ?? "");
  });
}

/** The median of each start, every round running every start once, in turn. */
async function interleaved(env: NodeJS.ProcessEnv, starts: Record<string, Start>) {
  const times: Record<string, number[]> = {};
  for (const name of Object.keys(starts)) times[name] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round += 1)
    for (const [name, one] of Object.entries(starts)) {
      const ms = await timed(env, one);
      if (round >= WARMUP) times[name]!.push(ms);
    }
  return Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)]));
}

const FLOOR_LOAD = "the floor: list-panes + /proc in a bare Node";

/**
 * mcp's load: the server started with its input closed at once, answering nothing (its --help is
 * the whole CLI's, not the server's bundle).
 */
const MCP_LOAD = "mcp, its input closed at once";
const MCP_LINES = MCP_HANDSHAKE.map((line) => `${JSON.stringify(line)}\n`);

export async function run(): Promise<BenchRow[]> {
  const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-bench-starts-")));
  const server = startPrivateTmux({ for: "bench", command: "sleep 3600" });
  try {
    const env = { ...server.env, MUSTER_TEAM_DIR: path.join(scratch, "team"), HOME: scratch };
    const socket = ["-L", server.name];
    for (let index = 0; index < 10; index += 1)
      start(env, { args: [MUSTER, "join", `member-${index}`, "--id", `m${index}`, ...socket] });
    const repo = path.join(scratch, "repo");
    execFileSync("git", ["init", "-q", repo]);
    start(env, { args: [MUSTER, "lease", "src/**", "--id", "m1", ...socket], cwd: repo });
    const hookInput = (fields: object) =>
      JSON.stringify({ cwd: repo, session_id: "s1", ...fields });
    const rows: Row[] = [
      {
        name: "muster status --line",
        start: { args: ["status", "--line", ...socket] },
        load: "status --line --help",
      },
      {
        name: "muster roster --json",
        start: { args: ["roster", "--json", ...socket] },
        load: "roster --help",
      },
      {
        name: "muster agents --json",
        start: { args: ["agents", "--json", ...socket] },
        load: FLOOR_LOAD,
      },
      {
        name: "hook claude pre-tool-use, an unleased edit beside a lease",
        start: {
          args: ["hook", "claude", "pre-tool-use"],
          cwd: repo,
          input: hookInput({
            hook_event_name: "PreToolUse",
            tool_name: "Edit",
            tool_input: {
              file_path: path.join(repo, "README.md"),
              old_string: "a",
              new_string: "b",
            },
          }),
        },
        load: "hook --help",
      },
      {
        name: "hook claude user-prompt-submit",
        start: {
          args: ["hook", "claude", "user-prompt-submit"],
          cwd: repo,
          input: hookInput({ hook_event_name: "UserPromptSubmit", prompt: "go on" }),
        },
        load: "hook --help",
      },
      {
        name: "hook claude stop",
        start: {
          args: ["hook", "claude", "stop"],
          cwd: repo,
          input: hookInput({ hook_event_name: "Stop" }),
        },
        load: "hook --help",
      },
      {
        name: "muster mcp, until its answer to tools/list",
        start: { args: ["mcp"], input: MCP_LINES.join(""), answers: 2 },
        load: MCP_LOAD,
      },
      {
        name: "hook codex notify",
        start: {
          args: ["hook", "codex", "notify", JSON.stringify({ type: "agent-turn-complete" })],
          cwd: repo,
        },
        load: "hook --help",
      },
    ];
    const starts: Record<string, Start> = { bare: { args: ["-e", "0"] } };
    for (const row of rows) starts[row.name] = { ...row.start, args: [MUSTER, ...row.start.args] };
    for (const load of new Set(rows.map((row) => row.load)))
      starts[load] =
        load === MCP_LOAD
          ? { args: [MUSTER, "mcp"] }
          : load === FLOOR_LOAD
            ? { args: ["-e", AGENTS_FLOOR, JSON.stringify(inventoryArgs({ name: server.name }))] }
            : { args: [MUSTER, ...load.split(" "), ...socket] };
    const guard = start(env, starts[rows[3]!.name]!).toString();
    if (guard !== "") throw new Error(`the guard did not let the unleased edit go on: ${guard}`);
    const listed = start(env, starts["muster mcp, until its answer to tools/list"]!).toString();
    if (!listed.includes('"team_roster"'))
      throw new Error(`no tools listed by muster mcp: ${listed}`);
    const medians = await interleaved(env, starts);
    const bare = medians.bare!;
    const floor = medians[FLOOR_LOAD]!;
    const floorRow: BenchRow = {
      name: "start: muster agents --json's floor, list-panes + /proc in a bare Node",
      medianMs: floor,
      reference: { name: "node -e 0", medianMs: bare },
      note: `Node ${bare.toFixed(1)} ms + tmux and /proc ${(floor - bare).toFixed(1)} ms; ${ROUNDS} rounds, interleaved`,
    };
    return rows.flatMap((row): BenchRow[] => {
      const figure = medians[row.name]!;
      const load = medians[row.load]!;
      const split =
        row.load === FLOOR_LOAD
          ? `Node ${bare.toFixed(1)} ms + its floor's tmux and /proc ${(floor - bare).toFixed(1)} ms + muster (its load and its own work) ${(figure - floor).toFixed(1)} ms; ${ROUNDS} rounds, interleaved`
          : `Node ${bare.toFixed(1)} ms + loading muster ${(load - bare).toFixed(1)} ms (${row.load}) + muster's work ${(figure - load).toFixed(1)} ms; ${ROUNDS} rounds, interleaved`;
      const measured: BenchRow = {
        name: `start: ${row.name}`,
        medianMs: figure,
        reference: { name: "node -e 0", medianMs: bare },
        target: {
          text: "≤ 1.5× bare Node (aim 1.25×)",
          met: figure <= 1.5 * bare,
          whyMissed: `${split}.`,
        },
        note: split,
      };
      return row.load === FLOOR_LOAD ? [measured, floorRow] : [measured];
    });
  } finally {
    server.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}
