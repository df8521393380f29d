// `muster spawn pi` until the new pi is on the roster, on a private tmux server with a real pi
// (the faux model, a throwaway home): median and p95 of the whole, and muster's own share of it.
// muster's share is what is not pi starting up: resolving the seat and opening the pane (until
// the record is written), and after the label is on the roster, mailing the task; the rest is pi
// starting, loading the extension and joining, seen through muster's polling.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, startPrivateTmux } from "@muster/test-support";
import { type BenchRow, median, percentile } from "../src/bench-kit.ts";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "packages");
const MUSTER = path.join(ROOT, "cli", "dist", "muster.js");
const PI = path.join(ROOT, "pi-extension");
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
const RUNS = 7;

type Timings = { openedMs: number; startedMs: number; joinedMs: number; doneMs: number };

export async function run(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-bench-spawn-"));
  const home = path.join(scratch, "home");
  for (const folder of [path.join(home, "bin"), path.join(home, "tmp"), path.join(scratch, "repo")])
    mkdirSync(folder, { recursive: true });
  symlinkSync(PI_CLI, path.join(home, "bin", "pi"));
  const server = startPrivateTmux({
    for: "bench",
    command: "sleep 600",
    env: {
      HOME: home,
      TMPDIR: path.join(home, "tmp"),
      PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      MUSTER_TEAM_DIR: path.join(scratch, "team"),
    },
  });
  const wall: number[] = [];
  const timings: Timings[] = [];
  try {
    for (let index = 0; index < RUNS; index += 1) {
      const out = path.join(scratch, `run-${index}`);
      const label = `bench-${index}`;
      const args = [
        MUSTER,
        "spawn",
        "pi",
        "--label",
        label,
        "--task",
        "hi",
        "--json",
        "--",
        ...PI_ARGS,
      ];
      const quoted = [process.execPath, ...args].map((arg) => `'${arg}'`).join(" ");
      writeFileSync(`${out}.sh`, `${quoted} > ${out}.json; echo $? > ${out}.status; sleep 600\n`);
      const started = performance.now();
      server.tmux(
        "new-window",
        "-d",
        "-t",
        "main",
        "-c",
        path.join(scratch, "repo"),
        `sh ${out}.sh`,
      );
      await eventually(
        () => {
          try {
            return readFileSync(`${out}.status`, "utf8").trim();
          } catch {
            return "";
          }
        },
        (status) => status !== "",
        "the spawn",
        { attempts: 1200, intervalMs: 25 },
      );
      wall.push(performance.now() - started);
      const result = JSON.parse(readFileSync(`${out}.json`, "utf8"));
      if (result.state !== "joined") throw new Error(`spawn ${index} reached ${result.state}`);
      if (!result.timings) throw new Error(`no timings: ${JSON.stringify(result)}`);
      timings.push(result.timings);
      execFileSync(process.execPath, [MUSTER, "stop", label, "-L", server.name], {
        env: { ...server.env, MUSTER_TEAM_DIR: path.join(scratch, "team") },
        stdio: "ignore",
      });
    }
  } finally {
    server.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
  const share = timings.map((timing) => timing.openedMs + (timing.doneMs - timing.joinedMs));
  const note = (values: number[]) => `p95 ${percentile(values, 95).toFixed(0)} ms, ${RUNS} runs`;
  return [
    {
      name: "spawn: muster spawn pi until it is on the roster (command start to exit)",
      medianMs: median(timings.map((timing) => timing.doneMs)),
      note: note(timings.map((timing) => timing.doneMs)),
    },
    {
      name: "spawn: the same, from the tmux window that runs it (node start included)",
      medianMs: median(wall),
      note: note(wall),
    },
    {
      name: "spawn: muster's share (seat + pane + record, then the task mail)",
      medianMs: median(share),
      note: note(share),
    },
    {
      name: "spawn: pi found in its pane (from command start)",
      medianMs: median(timings.map((timing) => timing.startedMs)),
      note: note(timings.map((timing) => timing.startedMs)),
    },
  ];
}
