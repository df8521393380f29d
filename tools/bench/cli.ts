// End-to-end figures of the `muster` command: one discovery scan (`muster agents --json`) on a
// private tmux server at 20, 200 and 1,000 panes against the floor (the same one tmux call,
// `display-message` + `list-panes -a`, plus one bare /proc read, in a Node process); the /proc reader against `ps`;
// CLI start (`muster roster --json`, team of 10) against `node -e ""`; and the hook Claude Code runs
// before every edit (`muster hook claude pre-tool-use`, an edit of an unleased file in a git
// repository where another member holds a lease) against `node -e 0`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readProcessTable } from "@muster/node";
import { startPrivateTmux } from "@muster/test-support";
import { inventoryArgs } from "@muster/tmux";
import { AGENTS_FLOOR } from "../src/agents-floor.ts";
import { type BenchRow, compare, startWhy } from "../src/bench-kit.ts";

const MUSTER = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "packages",
  "cli",
  "dist",
  "muster.js",
);
const node = (
  args: string[],
  env: NodeJS.ProcessEnv,
  more: { cwd?: string; input?: string } = {},
) => execFileSync(process.execPath, args, { env, ...more, stdio: ["pipe", "pipe", "pipe"] });

/** `ps -eo pid,ppid,lstart,args`, parsed in Node: the alternative to reading /proc. */
function psTable() {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,lstart=,args="], {
    encoding: "utf8",
    env: { ...process.env, LC_ALL: "C" },
  });
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const match = /^\s*(\d+)\s+(\d+)\s+(\w{3} \w{3}\s+\d+ [\d:]{8} \d{4})\s+(.*)$/.exec(line);
      return match
        ? {
            pid: Number(match[1]),
            ppid: Number(match[2]),
            start: match[3],
            argv: match[4]!.split(" "),
          }
        : undefined;
    });
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-bench-cli-"));
  const server = startPrivateTmux({ for: "bench", command: "sleep 3600" });
  try {
    const env = { ...server.env, MUSTER_TEAM_DIR: path.join(scratch, "team"), HOME: scratch };
    let panes = 1;
    for (const target of [20, 200, 1000]) {
      // Half the panes hold an agent-like process (argv "claude"), half a plain sleep.
      const batch: string[] = [];
      for (; panes < target; panes += 1) {
        batch.push(
          "new-window",
          "-d",
          "-t",
          "main",
          panes % 2 ? "bash -c 'exec -a claude sleep 3600'" : "sleep 3600",
          ";",
        );
        if (batch.length >= 300) server.tmux(...batch.splice(0).slice(0, -1));
      }
      if (batch.length > 0) server.tmux(...batch.slice(0, -1));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const check = JSON.parse(
        node([MUSTER, "agents", "--json", "-L", server.name], env).toString(),
      );
      if (check.agents.length < target / 2 - 1)
        throw new Error(`expected ${target / 2} agents, found ${check.agents.length}`);
      const scan = await compare(
        () => node([MUSTER, "agents", "--json", "-L", server.name], env),
        () => node(["-e", AGENTS_FLOOR, JSON.stringify(inventoryArgs({ name: server.name }))], env),
        { warmup: 2, runs: target >= 1000 ? 7 : 11 },
      );
      // The floor is a bare Node process: muster's own start is its bundle's load (--help).
      const load =
        target === 200
          ? await compare(
              () => node([MUSTER, "agents", "--help"], env),
              () => node(["-e", ""], env),
              { warmup: 2, runs: 11 },
            )
          : undefined;
      rows.push({
        name: `muster agents --json, ${target.toLocaleString("en")} panes`,
        medianMs: scan.figureMs,
        reference: { name: "floor: list-panes + /proc in Node", medianMs: scan.referenceMs },
        target: load && {
          text: "≤ 1.15× floor",
          met: scan.figureMs <= 1.15 * scan.referenceMs,
          whyMissed: `it is ${(scan.figureMs - scan.referenceMs).toFixed(1)} ms over the floor, and the load of muster's bundle alone (agents --help) is ${(load.figureMs - load.referenceMs).toFixed(1)} ms over a bare Node start in this run, which leaves ${(scan.figureMs - scan.referenceMs - (load.figureMs - load.referenceMs)).toFixed(1)} ms for muster's scan beyond the floor's (matching panes to agents, the roster); see the CLI start's row for the load.`,
        },
        note: `${check.agents.length} agents`,
      });
      if (target === 200) {
        const table = await readProcessTable();
        const count = table.ok ? table.processes.length : 0;
        const reader = await compare(
          () => readProcessTable(),
          () => psTable(),
          { warmup: 3, runs: 21 },
        );
        rows.push({
          name: `process table: /proc reader, ${count} processes`,
          medianMs: reader.figureMs,
          reference: { name: "ps -eo pid,ppid,lstart,args parsed", medianMs: reader.referenceMs },
          target: { text: "≥ 2× faster than ps", met: reader.referenceMs >= 2 * reader.figureMs },
        });
      }
    }
    for (let index = 0; index < 10; index += 1) {
      node([MUSTER, "join", `member-${index}`, "--id", `m${index}`, "-L", server.name], env);
    }
    const start = await compare(
      () => node([MUSTER, "roster", "--json"], env),
      () => node(["-e", ""], env),
      { warmup: 3, runs: 21 },
    );
    // The same bundle's start without the team: its --help loads it and reads no team.
    const load = await compare(
      () => node([MUSTER, "roster", "--help"], env),
      () => node(["-e", ""], env),
      { warmup: 2, runs: 11 },
    );
    rows.push({
      name: "CLI start: muster roster --json, team of 10",
      medianMs: start.figureMs,
      reference: { name: 'node -e ""', medianMs: start.referenceMs },
      target: {
        text: "≤ 1.5× bare Node",
        met: start.figureMs <= 1.5 * start.referenceMs,
        whyMissed: startWhy(load, start),
      },
    });
    const repo = path.join(scratch, "repo");
    execFileSync("git", ["init", "-q", repo]);
    node([MUSTER, "lease", "src/**", "--id", "m1", "-L", server.name], env, { cwd: repo });
    const edit = JSON.stringify({
      hook_event_name: "PreToolUse",
      tool_name: "Edit",
      tool_input: { file_path: path.join(repo, "README.md"), old_string: "a", new_string: "b" },
      cwd: repo,
    });
    const hook = () =>
      node([MUSTER, "hook", "claude", "pre-tool-use"], env, { cwd: repo, input: edit });
    if (hook().toString() !== "") throw new Error("the guard did not let the unleased edit go on");
    const guard = await compare(hook, () => node(["-e", "0"], env), { warmup: 3, runs: 21 });
    const hookLoad = await compare(
      () => node([MUSTER, "hook", "--help"], env),
      () => node(["-e", "0"], env),
      { warmup: 2, runs: 11 },
    );
    // The guard asks git where the repository is and whether it ignores case (two gits, at once).
    const git = await compare(
      () => execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: repo, stdio: "pipe" }),
      () => node(["-e", "0"], env),
      { warmup: 2, runs: 11 },
    );
    rows.push({
      name: "hook: muster hook claude pre-tool-use, one leased repository",
      medianMs: guard.figureMs,
      reference: { name: "node -e 0", medianMs: guard.referenceMs },
      target: {
        text: "≤ 1.5× bare Node",
        met: guard.figureMs <= 1.5 * guard.referenceMs,
        whyMissed: `${startWhy(hookLoad, guard, "the check")} The check starts git twice at once (rev-parse --show-toplevel, config core.ignorecase), one git start ${git.figureMs.toFixed(1)} ms in this run: doing without it means reading git's own config rules in muster, and a guard that misreads core.ignorecase lets a case-changed path past a lease.`,
      },
    });
    return rows;
  } finally {
    server.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}
