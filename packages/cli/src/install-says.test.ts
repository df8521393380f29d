// `muster install` says exactly what it adds: one line per key it changes, no key unsaid and no
// line for a key it left alone; and `--dry-run` shows the very bytes the install then writes (its
// diff, applied to the file as it was, is the file after the install), user and project installs,
// for Codex and Claude Code, from files with the user's own content in them.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { tmuxEnv } from "@muster/test-support";
import { applyPatch } from "diff";
import { parse as parseToml } from "smol-toml";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const run = promisify(execFile);
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

const USER_FILES: Record<string, string> = {
  ".codex/config.toml": `# mine\nmodel = "o3"\nnotify = ["say", "done"]\n\n[tui]\nterminal_title = ["project"]\n`,
  ".claude/settings.json": `{\n    "model": "opus",\n    "permissions": { "allow": ["Read"] },\n    "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "say stop" }] }] }\n}\n`,
  ".claude.json": `{\n  "numStartups": 4,\n  "mcpServers": { "lint": { "command": "lint-mcp" } }\n}\n`,
  ".mcp.json": `{ "mcpServers": { "lint": { "command": "lint-mcp" } } }\n`,
};

type Report = {
  ok: boolean;
  files: { path: string; changed: boolean; changes: string[]; diff?: string }[];
};

function home() {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-says-"));
  homes.push(dir);
  for (const [name, text] of Object.entries(USER_FILES)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const env = tmuxEnv({ HOME: dir, CODEX_HOME: undefined, CLAUDE_CONFIG_DIR: undefined });
  const muster = async (...args: string[]): Promise<Report> =>
    JSON.parse(
      (await run(process.execPath, [MUSTER, ...args, "--json"], { cwd: dir, env })).stdout,
    );
  return { dir, muster };
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

/** The keys whose values differ, two levels deep ("notify", "tui.terminal_title", "hooks.Stop"). */
function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>) {
  const keys: string[] = [];
  const same = (left: unknown, right: unknown) => JSON.stringify(left) === JSON.stringify(right);
  const isTable = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [left, right] = [before[key], after[key]];
    if (same(left, right)) continue;
    if (!isTable(left) && !isTable(right)) keys.push(key);
    else
      for (const inner of new Set([...Object.keys(left ?? {}), ...Object.keys(right ?? {})]))
        if (
          !same(
            (left as Record<string, unknown>)?.[inner],
            (right as Record<string, unknown>)?.[inner],
          )
        )
          keys.push(`${key}.${inner}`);
  }
  return keys.sort();
}

/** The key a change line names: `a.b: …`, `[a.b]: …`, `[a] b: …`, `a.b (matcher): …`, `a.b "rule": …`. */
function namedKey(change: string) {
  const head = change.split(":")[0]!.replace(/ \(.*\)$| ".*"$| = .*$/, "");
  const table = /^\[([^\]]+)\](?: (\S+))?$/.exec(head);
  return table ? [table[1], table[2]].filter(Boolean).join(".") : head;
}

const parseFile = (file: string, text: string | undefined): Record<string, unknown> =>
  text === undefined ? {} : file.endsWith(".toml") ? parseToml(text) : JSON.parse(text);

it.each([
  ["codex", []],
  ["claude", []],
  ["codex", ["--project"]],
  ["claude", ["--project"]],
])(
  "install %s %j: the dry run's diff is what it writes, and it names each key it changes",
  async (engine, extra) => {
    const { dir, muster } = home();
    if (extra.includes("--project")) await run("git", ["init", "-q", dir]);
    const dry = await muster("install", engine, ...extra, "--dry-run");
    const befores = dry.files.map((file) => read(file.path));
    const done = await muster("install", engine, ...extra);
    expect(done.files.map((file) => file.path)).toEqual(dry.files.map((file) => file.path));
    for (const [index, file] of done.files.entries()) {
      const before = befores[index];
      const after = read(file.path);
      expect(file.changed, file.path).toBe(true);
      // The dry run's diff, applied to the file as it was, gives the file as the install left it.
      expect(applyPatch(before ?? "", dry.files[index]!.diff!), file.path).toBe(after);
      // The same words both times, and one line per key that changed, naming it.
      expect(file.changes, file.path).toEqual(dry.files[index]!.changes);
      const keys = changedKeys(parseFile(file.path, before), parseFile(file.path, after));
      expect(file.changes.map(namedKey).sort(), file.path).toEqual(keys);
    }
    // Run again, it has nothing to add and says so.
    const again = await muster("install", engine, ...extra);
    expect(again.files.map((file) => [file.changed, file.changes])).toEqual(
      done.files.map(() => [false, []]),
    );
  },
);
