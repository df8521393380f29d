// A real Codex 0.171.0 offline, for tests and benchmarks: the recipe from the field notes (a local
// Responses-API provider, a trusted project, an API-key login) added to a throwaway HOME's config,
// and the end of the app-server daemons such a Codex leaves behind (it re-parents them to pid 1),
// each by the pid its own pid file names and only when that process runs from this HOME; and
// `realCodex`, the whole set-up the real-Codex tests share (home, model, install, a tmux pane).
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type PrivateTmux, startPrivateTmux, tmuxEnv } from "./private-tmux.ts";
import { type ScriptedModel, type ScriptStep, startScriptedModel } from "./scripted-model.ts";
import { eventually } from "./wait.ts";

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
  /** Leave the grace as installed (a test of what makes a turn wait). Default: wait up to 60 s. */
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
  // `muster install codex` writes its own grace (10 s); the test's longer one takes its line.
  const grace = /^mcp_optional_startup_grace_ms = .*$/m;
  const longer = "mcp_optional_startup_grace_ms = 60000";
  if (!options.codexGrace && grace.test(installed)) installed = installed.replace(grace, longer);
  const extra = options.codexGrace || grace.test(installed) ? "" : `${longer}\n`;
  writeFileSync(
    config,
    `model = "mock-model"\nmodel_provider = "mock"\n${extra}\n${installed}
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

/** The pids of `home`'s Codex app-server daemons: its executable, `--managed-daemon` in its argv. */
export function managedDaemons(home: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    if (argv[0]?.startsWith(`${path.join(home, ".codex")}/`) && argv.includes("--managed-daemon"))
      pids.push(Number(name));
  }
  return pids;
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

type Input = { type?: string; role?: string; content?: { text?: string }[] };
/** The user messages' texts of one Responses-API request, in order. */
export const userTexts = (request: Record<string, unknown>): string[] =>
  ((Array.isArray(request.input) ? request.input : []) as Input[])
    .filter((item) => item.type === "message" && item.role === "user")
    .flatMap((item) => (item.content ?? []).map((part) => part.text ?? ""));

export type RealCodex = CodexHome & {
  model: ScriptedModel;
  /** A private tmux server whose window `main` runs a bare bash in the repository. */
  server: PrivateTmux;
  /** The environment for muster's CLI against this home and team. */
  env: NodeJS.ProcessEnv;
  /** A pane as a user sees it (default `main`). */
  screen(target?: string): string;
  /** Type `codex` in the pane and wait for its prompt. */
  start(target?: string): Promise<void>;
  /** Type a prompt and press Enter until the model is asked with it (a starting TUI drops Enter). */
  submit(text: string, target?: string): Promise<void>;
  /** End the tmux server, the home's Codex daemons and the model; remove the home. */
  close(): Promise<void>;
};

/**
 * A real Codex set up as the tests need it: a throwaway home, the scripted model, `muster install
 * codex` (with `install`'s arguments), the offline recipe, and a private tmux server whose `main`
 * pane is a bare bash in the repository with that HOME, the team folder and `MUSTER_LABEL`.
 */
export async function realCodex(options: {
  prefix: string;
  /** The `codex` executable (the CLI package's node_modules/.bin/codex). */
  codex: string;
  /** The built muster.js. */
  muster: string;
  script: ScriptStep[];
  install?: string[];
  label?: string;
  teamDir?: string;
  codexGrace?: boolean;
  /** Runs before `muster install codex` (a user's own config, say). */
  prepare?: (home: CodexHome) => void;
}): Promise<RealCodex> {
  const made = codexHome(options.prefix, options.codex);
  const teamDir = options.teamDir ?? made.teamDir;
  const model = await startScriptedModel(options.script);
  const env = tmuxEnv({ HOME: made.home, MUSTER_TEAM_DIR: teamDir, CODEX_HOME: undefined });
  options.prepare?.(made);
  execFileSync(process.execPath, [options.muster, "install", "codex", ...(options.install ?? [])], {
    cwd: made.repo,
    env,
  });
  offlineCodex({
    home: made.home,
    repo: made.repo,
    baseUrl: model.baseUrl,
    codexGrace: options.codexGrace,
  });
  const server = startPrivateTmux({
    command: "bash --norc --noprofile",
    cwd: made.repo,
    env: {
      HOME: made.home,
      PATH: `${made.bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      MUSTER_TEAM_DIR: teamDir,
      MUSTER_LABEL: options.label,
      CODEX_HOME: undefined,
      OPENAI_API_KEY: undefined,
    },
  });
  const screen = (target = "main") => server.tmux("capture-pane", "-p", "-t", target);
  return {
    ...made,
    teamDir,
    model,
    server,
    env,
    screen,
    async start(target = "main") {
      server.tmux("send-keys", "-t", target, "-l", "codex");
      server.tmux("send-keys", "-t", target, "Enter");
      await eventually(
        () => screen(target),
        (text) => text.includes("Ask Codex"),
        "Codex's prompt",
        {
          attempts: 400,
        },
      );
    },
    async submit(text, target = "main") {
      server.tmux("send-keys", "-t", target, "-l", text);
      await eventually(
        () => {
          if (model.requests.some((request) => userTexts(request).includes(text))) return true;
          server.tmux("send-keys", "-t", target, "Enter");
          return false;
        },
        (started) => started,
        `Codex to start a turn for "${text}"`,
        { attempts: 60, intervalMs: 500 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${screen(target)}`);
      });
    },
    async close() {
      server.kill();
      await endCodexDaemons(made.home);
      await model.close();
      rmSync(made.home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
