// A real Codex 0.171.0 offline, for tests and benchmarks: the recipe from the field notes (a local
// Responses-API provider, a trusted project, an API-key login) added to a throwaway HOME's config,
// and the end of the app-server daemons such a Codex leaves behind (it re-parents them to pid 1),
// each by the pid its own pid file names and only when that process runs from this HOME.
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export type CodexHome = {
  /** The throwaway HOME (a real path); the caller removes it. */
  home: string;
  /** A git repository inside it: run Codex here. */
  repo: string;
  /** A folder holding `codex` (a link to `codex`), for the front of PATH. */
  bin: string;
  /** Where the team folder goes (not made). */
  teamDir: string;
};

/** A throwaway HOME for a real Codex: a git repository, `codex` on a bin folder, a team path. */
export function codexHome(prefix: string, codex: string): CodexHome {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const repo = path.join(home, "repo");
  const bin = path.join(home, "bin");
  mkdirSync(repo);
  mkdirSync(bin);
  execFileSync("git", ["init", "-q", repo]);
  symlinkSync(codex, path.join(bin, "codex"));
  return { home, repo, bin, teamDir: path.join(home, "team") };
}

/**
 * Add the offline recipe around what `muster install codex` wrote into `home`'s Codex config.
 *
 * It also makes a turn wait for muster's MCP server: Codex 0.171 starts a turn without an optional
 * MCP server still starting after about 1 s (`mcp_optional_startup_grace_ms`), and on a loaded
 * 2-core machine muster's server (about 230 ms idle) can take longer. Such a turn has no muster
 * tools, and its model's call is answered "unsupported call: mcp__musterteam_send".
 */
export function offlineCodex(options: {
  home: string;
  repo: string;
  baseUrl: string;
  /** Leave Codex's own grace (a test of what makes a turn wait). Default: wait up to 60 s. */
  codexGrace?: boolean;
}): void {
  const folder = path.join(options.home, ".codex");
  const config = path.join(folder, "config.toml");
  let installed = "";
  try {
    installed = readFileSync(config, "utf8");
  } catch {
    // no config yet: the recipe alone
  }
  writeFileSync(
    config,
    `model = "mock-model"\nmodel_provider = "mock"\n${options.codexGrace ? "" : "mcp_optional_startup_grace_ms = 60000\n"}\n${installed}
[model_providers.mock]
name = "mock"
base_url = "${options.baseUrl}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects."${options.repo}"]
trust_level = "trusted"
`,
  );
  writeFileSync(
    path.join(folder, "auth.json"),
    JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: "sk-fake" }),
  );
}

/** The start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat). */
function startTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  } catch {
    return undefined;
  }
}

function runsFrom(pid: number, home: string): boolean {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] ?? "";
    return argv0.startsWith(`${path.join(home, ".codex")}/`);
  } catch {
    return false;
  }
}

/**
 * End the Codex daemons of `home` (the app-server and its updater), by the pids their pid files
 * name, confirmed by start time and executable path. Returns the pids signalled.
 */
export async function endCodexDaemons(home: string): Promise<number[]> {
  const folder = path.join(home, ".codex", "app-server-daemon");
  const ended: number[] = [];
  for (const name of ["daemon.pid", "daemon-updater.pid"]) {
    let record: { pid?: unknown; processIdentity?: { startTicks?: unknown } };
    try {
      record = JSON.parse(readFileSync(path.join(folder, name), "utf8"));
    } catch {
      continue;
    }
    const pid = record.pid;
    if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 1) continue;
    const expected = record.processIdentity?.startTicks;
    if (typeof expected === "number" && startTicks(pid) !== expected) continue;
    if (!runsFrom(pid, home)) continue;
    try {
      process.kill(pid, "SIGTERM");
      ended.push(pid);
    } catch {
      // gone already
    }
  }
  for (let attempt = 0; attempt < 40 && ended.some((pid) => runsFrom(pid, home)); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
  for (const pid of ended)
    if (runsFrom(pid, home))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
  return ended;
}
