// `muster install` against the ways a user's files are kept: symlinks into a dotfiles repository,
// a refusal about one file while another is fine, a full disk (a real one: a 256 KiB tmpfs in a
// private mount namespace, `unshare -rm`), a project install meant to be committed, a dry run.
import { execFile } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { tmuxEnv } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const run = promisify(execFile);
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

const SETTINGS = `{\n    "model": "opus",\n    "permissions": { "allow": ["Read"] }\n}\n`;
const STATE = `{\n  "numStartups": 4\n}\n`;
const CODEX = `# mine\nmodel = "o3"\n`;

function home() {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-files-"));
  homes.push(dir);
  const file = (name: string) => path.join(dir, name);
  const write = (name: string, text: string) => {
    mkdirSync(path.dirname(file(name)), { recursive: true });
    writeFileSync(file(name), text);
  };
  const read = (name: string) =>
    existsSync(file(name)) ? readFileSync(file(name), "utf8") : undefined;
  const env = tmuxEnv({ HOME: dir, CODEX_HOME: undefined, CLAUDE_CONFIG_DIR: undefined });
  const muster = (...args: string[]) =>
    run(process.execPath, [MUSTER, ...args], { cwd: dir, env }).then(
      (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  return { dir, file, write, read, muster, env };
}

/** Every file under `dir` whose name says it is one of muster's temp files. */
const temps = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) =>
    /\.muster-[0-9a-f]+$/.test(name),
  );

it("writes through symlinked config files to their targets, and the links stay links", async () => {
  const { file, write, read, muster } = home();
  write("dotfiles/codex.toml", CODEX);
  write("dotfiles/settings.json", SETTINGS);
  write("dotfiles/claude.json", STATE);
  mkdirSync(file(".codex"));
  mkdirSync(file(".claude"));
  symlinkSync("../dotfiles/codex.toml", file(".codex/config.toml"));
  symlinkSync(file("dotfiles/settings.json"), file(".claude/settings.json"));
  symlinkSync("dotfiles/claude.json", file(".claude.json"));
  const links = [".codex/config.toml", ".claude/settings.json", ".claude.json"];
  const codex = await muster("install", "codex");
  const claude = await muster("install", "claude", "--json");
  expect([codex.code, claude.code], codex.stderr + claude.stderr).toEqual([0, 0]);
  expect(codex.stdout).toContain(`(through the link, in ${file("dotfiles/codex.toml")})`);
  expect(JSON.parse(claude.stdout).files.map((entry: { target?: string }) => entry.target)).toEqual(
    [file("dotfiles/claude.json"), file("dotfiles/settings.json")],
  );
  for (const link of links) expect(lstatSync(file(link)).isSymbolicLink(), link).toBe(true);
  expect(read("dotfiles/codex.toml")).toContain("[mcp_servers.muster]");
  expect(JSON.parse(read("dotfiles/claude.json") ?? "").mcpServers.muster).toBeDefined();
  expect(temps(file("dotfiles"))).toEqual([]);
  await muster("install", "codex", "--uninstall");
  await muster("install", "claude", "--uninstall");
  for (const link of links) expect(lstatSync(file(link)).isSymbolicLink(), link).toBe(true);
  expect([
    read("dotfiles/codex.toml"),
    read("dotfiles/settings.json"),
    read("dotfiles/claude.json"),
  ]).toEqual([CODEX, SETTINGS, STATE]);
});

it("refuses a link to a folder that does not exist, in one line, writing nothing", async () => {
  const { file, write, read, muster } = home();
  write(".claude.json", STATE);
  mkdirSync(file(".claude"));
  symlinkSync(file("gone/settings.json"), file(".claude/settings.json"));
  const result = await muster("install", "claude");
  expect(result.code).toBe(1);
  expect(result.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(
      /settings\.json is a symlink to .*gone\/settings\.json, whose folder does not exist: make it, or remove the link$/,
    ),
  ]);
  expect(read(".claude.json")).toBe(STATE);
  expect(lstatSync(file(".claude/settings.json")).isSymbolicLink()).toBe(true);
  expect(existsSync(file(".local/state/muster/installs"))).toBe(false);
});

it("decides every file before writing any: a refusal about settings.json leaves .claude.json as it was", async () => {
  const { write, read, muster, file } = home();
  write(".claude.json", STATE);
  write(".claude/settings.json", `{"hooks": {"Stop": "not a list"}}`);
  const result = await muster("install", "claude");
  expect(result).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(
      /hooks\.Stop is not a list; fix it first; nothing was changed\n$/,
    ),
  });
  expect(read(".claude.json")).toBe(STATE);
  expect(existsSync(file(".local/state/muster/installs"))).toBe(false);
});

it.each([
  ["claude", ".claude/settings.json", `{\n  "model": "caf\xe9"\n}\n`],
  ["codex", ".codex/config.toml", `# caf\xe9\nmodel = "o3"\n`],
])(
  "%s: a %s that is not UTF-8 is refused in one line, not rewritten",
  async (engine, name, text) => {
    const { write, file, muster } = home();
    write(name, "");
    writeFileSync(file(name), Buffer.from(text, "latin1"));
    const result = await muster("install", engine);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/is not valid UTF-8.*nothing was changed/),
    ]);
    expect(readFileSync(file(name)).equals(Buffer.from(text, "latin1"))).toBe(true);
  },
);

it("keeps the user's JSON formatting: only muster's bytes are added", async () => {
  const { write, read, muster } = home();
  write(".claude/settings.json", SETTINGS);
  await muster("install", "claude");
  const text = read(".claude/settings.json") ?? "";
  expect(text).toContain(
    `\n    "model": "opus",\n    "permissions": { "allow": ["Read", "mcp__muster"] },\n    "hooks": {\n        "SessionStart": [\n`,
  );
  await muster("install", "claude", "--uninstall");
  expect(read(".claude/settings.json")).toBe(SETTINGS);
});

it("--dry-run shows each change as a diff and writes nothing", async () => {
  const { dir, write, read, muster } = home();
  write(".codex/config.toml", CODEX);
  const result = await muster("install", "codex", "--dry-run");
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^Codex: would set up muster in .*config\.toml$/m);
  expect(result.stdout).toContain("+[mcp_servers.muster]");
  expect(result.stdout).toContain("Nothing was written (--dry-run).");
  expect(read(".codex/config.toml")).toBe(CODEX);
  expect(existsSync(path.join(dir, ".local", "state", "muster", "installs"))).toBe(false);
  const json = JSON.parse((await muster("install", "claude", "--dry-run", "--json")).stdout);
  expect(json).toMatchObject({ ok: true, dryRun: true });
  expect(json.files[0].diff).toMatch(/^\+\s+"mcpServers": \{$/m);
  expect(json.files[1].changes).toContain(
    "hooks.PreToolUse (Edit|MultiEdit|Write|NotebookEdit): refuses an edit of a path another member leased, and every edit while muster cannot run",
  );
  expect(read(".claude.json")).toBeUndefined();
});

it("a project install names no path of this machine, and says what teammates need", async () => {
  const { dir, read, muster, env } = home();
  await run("git", ["init", "-q", dir]);
  const claude = await muster("install", "claude", "--project");
  const codex = await muster("install", "codex", "--project");
  expect([claude.code, codex.code], claude.stderr + codex.stderr).toEqual([0, 0]);
  for (const name of [".mcp.json", ".claude/settings.json", ".codex/config.toml"]) {
    const text = read(name) ?? "";
    expect(text, name).not.toContain(dir);
    expect(text, name).not.toContain(process.execPath);
  }
  expect(JSON.parse(read(".mcp.json") ?? "").mcpServers.muster).toMatchObject({
    command: "muster",
    args: ["mcp"],
  });
  expect(claude.stdout).toMatch(/commit \.mcp\.json and \.claude\/settings\.json/);
  expect(claude.stdout).toContain("Claude Code asks each teammate once to approve");
  expect(claude.stdout).toContain("no muster gets Claude Code's edits refused");
  expect(env.PATH).toBeDefined();
  // A user install says nothing of project approval.
  const user = await muster("install", "claude");
  expect(user.stdout).not.toMatch(/approv/i);
});

/** Run `script` as root of a private mount namespace, HOME a 256 KiB tmpfs; `room` has room. */
async function onFullDisk(room: string, dir: string, script: string) {
  const full = `mount -t tmpfs -o size=256k muster-full "$HOME" && ${script}`;
  return run("unshare", ["-rm", "sh", "-c", full], {
    env: tmuxEnv({
      HOME: dir,
      NODE: process.execPath,
      MUSTER,
      STATE_ROOM: room,
      CODEX_HOME: undefined,
      CLAUDE_CONFIG_DIR: undefined,
    }),
  });
}

it("on a full disk an install fails in one line, leaves no temp file and changes nothing", async () => {
  const { dir } = home();
  const room = mkdtempSync(path.join(tmpdir(), "muster-room-"));
  homes.push(room);
  const { stdout } = await onFullDisk(
    room,
    dir,
    [
      `mkdir -p "$HOME/.claude" "$HOME/.codex"`,
      `printf '%s' '${SETTINGS}' > "$HOME/.claude/settings.json"`,
      `printf '%s' '${STATE}' > "$HOME/.claude.json"`,
      `printf '%s' '${CODEX}' > "$HOME/.codex/config.toml"`,
      `dd if=/dev/zero of="$HOME/filler" bs=4096 2>/dev/null; sync`,
      // (stderr kept in memory: a file for it would not fit either)
      `claude=$("$NODE" "$MUSTER" install claude 2>&1 >/dev/null); echo "claude=$?"`,
      `codex=$("$NODE" "$MUSTER" install codex 2>&1 >/dev/null); echo "codex=$?"`,
      // muster's state on a disk with room: the user's file is the one that does not fit.
      `XDG_STATE_HOME="$STATE_ROOM" "$NODE" "$MUSTER" install claude 2>/dev/null; echo "roomy=$?"`,
      `rm "$HOME/filler"`,
      `echo "$claude"; echo "$codex"`,
      `find "$HOME" \\( -name '*.muster-*' -o -name installs \\) | wc -l`,
      `cat "$HOME/.claude/settings.json" "$HOME/.claude.json" "$HOME/.codex/config.toml"`,
    ].join("\n"),
  );
  const lines = stdout.split("\n");
  expect(lines.slice(0, 3)).toEqual(["claude=1", "codex=1", "roomy=1"]);
  lines.splice(2, 1);
  // (muster's compile cache may live there; no install record nor temp file does)
  expect(
    readdirSync(room, { recursive: true, encoding: "utf8" }).filter((name) =>
      /installs|\.muster-/.test(name),
    ),
  ).toEqual([]);
  expect(lines[2]).toMatch(
    /^muster: could not write .*\(ENOSPC\); nothing was changed: free some disk space, then run it again$/,
  );
  expect(lines[3]).toMatch(/^muster: could not write .*\(ENOSPC\); nothing was changed/);
  // No temp file, no state folder, and the user's files byte for byte.
  expect(lines[4]).toBe("0");
  expect(lines.slice(5).join("\n")).toBe(`${SETTINGS}${STATE}${CODEX}`);
});
