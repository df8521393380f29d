// The CLI contract, end to end on the built binary: every command's refusal is exit 1 with one line
// on stderr, and with --json one document that carries ok: false, its reason and its error; a
// mistyped command, engine, subcommand or label is answered with the nearest one; --version,
// --help and the streams print JSON where --json asks for it.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { joinedTeam } from "../test/run.js";
import { check, loadSchemas } from "../test/schema-check.js";
import { COMMANDS } from "./_commands.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-contract-")));
/** No tmux server that exists: a command that looks at tmux never reaches the user's own. */
const NOWHERE = ["-L", "muster-test-000000000000"];
/** PATH with Node and the system's tools, and no engine (the package's own bin is not on it). */
const BARE_PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`;
const schemas = loadSchemas();
/** The document conforms to the schema scripts read it by (packages/cli/schemas). */
const conforms = (schema: string, document: unknown) =>
  expect(check(schemas, `${schema}.schema.json`, document)).toEqual([]);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Run = { status: number | null; stdout: string; stderr: string };

function muster(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MUSTER, ...args], {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, PATH: BARE_PATH, ...env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.end("");
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * One throwaway team for the file, made once, with alice (a1) and bob (b1) joined on it in this
 * process, and a folder others may write; no test changes who is on it (the nudge test joins its
 * own member).
 */
let shared: Promise<{ env: { MUSTER_TEAM_DIR: string }; unsafe: string }> | undefined;
function team() {
  shared ??= (async () => {
    const dir = path.join(scratch, "team");
    const unsafe = path.join(scratch, "unsafe");
    mkdirSync(unsafe, { mode: 0o777 });
    chmodSync(unsafe, 0o777);
    const env = { MUSTER_TEAM_DIR: dir };
    await joinedTeam(dir, { alice: "a1", bob: "b1" });
    return { env, unsafe };
  })();
  return shared;
}

/** An argv that makes each command refuse; `unsafe` runs it on a team folder others may write. */
const REFUSALS: Record<string, { argv: string[]; unsafe?: true } | { none: string }> = {
  status: { argv: ["status"], unsafe: true },
  go: { argv: ["go", "nobody"] },
  roster: { argv: ["roster"], unsafe: true },
  agents: {
    none: "it lists what the process table and tmux show, and says when tmux is not there",
  },
  join: { argv: ["join", "all", "--id", "c1"] },
  nudge: { argv: ["nudge", "--id", "never-joined"] },
  beat: { argv: ["beat"], unsafe: true },
  leave: { argv: ["leave", "--id", "never-joined"] },
  heartbeat: { argv: ["heartbeat", "--id", "never-joined"] },
  send: { argv: ["send", "nobody", "hi", "--id", "a1"] },
  inbox: { argv: ["inbox", "--label", "nobody"] },
  seat: { argv: ["seat", "--pane", "%999"] },
  board: { argv: ["board", "claim", "c99", "--id", "a1"] },
  spawn: { argv: ["spawn", "frobnicator"] },
  stop: { argv: ["stop", "nobody"] },
  up: { argv: ["up"] }, // no muster.toml declares a team here
  down: { argv: ["down", "nobody"] },
  diff: { argv: ["diff", "nobody"] }, // outside a git repository
  land: { argv: ["land", "nobody"] }, // outside a git repository
  lease: { argv: ["lease", "src/a.ts", "--id", "a1"], unsafe: true },
  release: { argv: ["release", "nothing-held", "--id", "a1"] },
  guard: { argv: ["guard"] }, // outside a git repository
  prune: { argv: ["prune"], unsafe: true },
  mcp: { none: "an MCP server answers its refusals to its client, as tool results" },
  install: { argv: ["install", "pi"] }, // pi is not on PATH
  hook: { none: "a hook answers its engine in the engine's terms and never stops it by refusing" },
  nats: { argv: ["nats", "config", "--member", "a", "--out", "/tmp"] }, // no origin to name it
  migrate: { argv: ["migrate", "--to", "nats"] }, // no NATS server configured
  doctor: { argv: ["doctor"] }, // the tmux server is not running
  completion: { none: "it only prints; a wrong shell is a usage error" },
  manual: { none: "it only prints" },
};

describe.concurrent("every command's refusal", () => {
  it("the table names every command", () => {
    expect(Object.keys(REFUSALS).sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  const refusing = Object.entries(REFUSALS).flatMap(([name, row]) =>
    "argv" in row ? [[name, row] as const] : [],
  );
  it.each(refusing)(
    "%s: exit 1, one line; with --json ok: false, reason, error",
    async (_, row) => {
      const { env, unsafe } = await team();
      const where = row.unsafe ? { MUSTER_TEAM_DIR: unsafe } : env;
      const text = await muster([...row.argv, ...NOWHERE], where);
      expect(text.status, text.stderr).toBe(1);
      expect(text.stderr.trim().split("\n")).toHaveLength(1);
      expect(text.stderr).toMatch(/^muster/);
      const json = await muster([...row.argv, "--json", ...NOWHERE], where);
      expect(json.status, json.stdout).toBe(1);
      const document = JSON.parse(json.stdout);
      expect(document).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^[a-z][a-z-]*$/),
        error: expect.any(String),
      });
      expect(Object.keys(document).slice(0, 3)).toEqual(["ok", "reason", "error"]);
      expect(document.error.length).toBeGreaterThan(0);
      conforms("error", document);
    },
  );

  it("release of a lease not held: exit 1 in both forms, the document saying why", async () => {
    const { env } = await team();
    const json = await muster(["release", "nothing-held", "--id", "a1", "--json"], env);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      reason: "not-held",
      error: expect.stringContaining("you hold no lease on nothing-held"),
      fix: expect.stringContaining("muster lease --list"),
      released: [],
      missing: ["nothing-held"],
    });
  });

  it("a refusal whose cause has a known fix carries it apart as fix", async () => {
    const { unsafe } = await team();
    const json = await muster(["roster", "--json"], { MUSTER_TEAM_DIR: unsafe });
    const document = JSON.parse(json.stdout);
    expect(document.fix).toMatch(/chmod 700/);
    expect(document.error).toContain(document.fix);
  });
});

describe.concurrent("did you mean", () => {
  it.each([
    [["stauts"], 2, "status"],
    [["help", "stauts"], 2, "status"],
    [["spwan", "pi"], 2, "spawn"],
    [["install", "claud"], 2, "claude"],
    [["board", "clam", "c1"], 2, "claim"],
    [["completion", "bahs"], 2, "bash"],
    [["nats", "confg"], 2, "config"],
    [["hook", "claude", "stp"], 2, "stop"],
    [["roster", "--al"], 2, "--all"],
    [["go", "bobb"], 1, "bob"],
    [["send", "bobb", "hi", "--id", "a1"], 1, "bob"],
    [["inbox", "--label", "bobb"], 1, "bob"],
    [["spawn", "claud"], 1, "claude"],
  ])("%j names the nearest: exit %i, in text and in --json", async (argv, status, nearest) => {
    const { env } = await team();
    const text = await muster([...argv, ...NOWHERE], env);
    expect(text.status, text.stderr).toBe(status);
    expect(text.stderr.trim().split("\n")).toHaveLength(1);
    expect(text.stderr).toContain(`did you mean "${nearest}"?`);
    const json = await muster([...argv, "--json", ...NOWHERE], env);
    expect(json.status).toBe(status);
    const document = JSON.parse(json.stdout);
    expect(document).toMatchObject({ ok: false, suggestion: nearest });
    conforms("error", document);
  });

  it.each([[["frobnicate"]], [["go", "zebra"]]])("%j: nothing near, no guess", async (argv) => {
    const { env } = await team();
    const json = await muster([...argv, "--json", ...NOWHERE], env);
    expect(json.stderr).not.toContain("did you mean");
    expect(JSON.parse(json.stdout)).not.toHaveProperty("suggestion");
  });
});

describe.concurrent("JSON where --json asks for it", () => {
  it.each([[["--version", "--json"]], [["--json", "-v"]], [["status", "--version", "--json"]]])(
    "%j: { ok: true, version }",
    async (argv) => {
      const run = await muster(argv);
      expect(run.status).toBe(0);
      const document = JSON.parse(run.stdout);
      expect(document).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      conforms("version", document);
    },
  );

  it("--help --json: every command as data, in the table's order", async () => {
    const run = await muster(["--help", "--json"]);
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document).toMatchObject({ ok: true, version: expect.any(String) });
    expect(document.commands.map((command: { name: string }) => command.name)).toEqual(
      Object.keys(COMMANDS),
    );
    expect(document.commands[0]).toEqual({
      name: "status",
      summary: COMMANDS.status!.summary,
      usage: COMMANDS.status!.usage,
    });
    expect(document.options).toEqual(expect.arrayContaining([expect.stringMatching(/^--json/)]));
    conforms("help", document);
  });

  it.each([[["send", "--help", "--json"]], [["help", "send", "--json"]]])(
    "%j: the page as data, its examples apart",
    async (argv) => {
      const run = await muster(argv);
      expect(run.status).toBe(0);
      const document = JSON.parse(run.stdout);
      expect(document).toMatchObject({
        ok: true,
        name: "send",
        summary: COMMANDS.send!.summary,
        usage: COMMANDS.send!.usage,
        help: COMMANDS.send!.help,
      });
      expect(document.examples).toContain("muster send alice,bob 'tests pass on main'");
      conforms("help", document);
    },
  );

  it("hook claude stop --json prints a document", async () => {
    const { env } = await team();
    const run = await muster(["hook", "claude", "stop", "--json"], env);
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(document).toMatchObject({ ok: true, engine: "claude", event: "stop", status: 0 });
    conforms("hook", document);
  });

  it("nudge --json: a line when it starts nudging, and one when it ends", async () => {
    const { env } = await team();
    await joinedTeam(env.MUSTER_TEAM_DIR, { nudgee: "n1" });
    const nudger = spawn(process.execPath, [MUSTER, "nudge", "--id", "n1", "--json", ...NOWHERE], {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, PATH: BARE_PATH, ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    const started = new Promise<void>((resolve) =>
      nudger.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("\n")) resolve();
      }),
    );
    const closed = new Promise<number | null>((resolve) => nudger.once("close", resolve));
    await started;
    expect(JSON.parse(stdout.split("\n")[0]!)).toEqual({ ok: true, id: "n1", nudging: true });
    expect((await muster(["leave", "--id", "n1"], env)).status).toBe(0);
    expect(await closed).toBe(0);
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toEqual({ ok: true, id: "n1", nudging: false, nudged: 0 });
    for (const line of lines) conforms("nudge", line);
  });
});

describe.concurrent("doctor", () => {
  it("ends with one summary line that counts its checks; --json carries it too", async () => {
    const { env } = await team();
    const text = await muster(["doctor", ...NOWHERE], env);
    const json = JSON.parse((await muster(["doctor", "--json", ...NOWHERE], env)).stdout);
    const lines = text.stdout.trim().split("\n");
    const [, ok, warnings, failed] =
      /^doctor: (\d+) ok, (\d+) warning\(s\), (\d+) failed$/.exec(lines.at(-1) ?? "") ?? [];
    expect(lines.at(-1)).toBe(json.summary);
    const checks = json.checks as { ok: boolean; warn?: boolean }[];
    expect(Number(ok) + Number(warnings) + Number(failed)).toBe(checks.length);
    expect(Number(failed)).toBe(checks.filter((check) => !check.ok).length);
    expect(Number(failed)).toBeGreaterThan(0); // the tmux server is not running
    expect(text.stderr).toMatch(/^muster: \d+ check\(s\) failed: .*tmux server/);
  });
});
