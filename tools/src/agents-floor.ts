// The floor of `muster agents`: what any scanner of the panes' agents does at least, in one bare
// Node process (`node -e AGENTS_FLOOR '<tmux arguments as JSON>'`): tmux's inventory call, then a
// read of every process's stat and cmdline in /proc. The benchmarks (cli.ts, starts.ts) hold
// `agents --json` against it.
export const AGENTS_FLOOR = `
const { execFileSync } = require("node:child_process");
const { readdirSync, readFileSync } = require("node:fs");
execFileSync("tmux", JSON.parse(process.argv[1]));
for (const pid of readdirSync("/proc")) {
  if (!/^\\d+$/.test(pid)) continue;
  try { readFileSync("/proc/" + pid + "/stat"); readFileSync("/proc/" + pid + "/cmdline"); } catch {}
}`;
