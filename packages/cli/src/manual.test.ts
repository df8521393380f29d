// Shell completions and the muster(1) page are the command table's: built into dist, equal to what
// `muster completion` and `muster manual` print, naming every command and option, and each one
// valid for its reader (bash runs its completion; roff has no line a man reader would misread).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GLOBAL_HELP } from "./_command.js";
import { COMMANDS } from "./_commands.js";
import { commandList } from "./_manual.js";

const DIST = path.resolve(import.meta.dirname, "..", "dist");
const MUSTER = path.join(DIST, "muster.js");
const muster = (...args: string[]) =>
  execFileSync(process.execPath, [MUSTER, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
const has = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

describe("built from the command table into dist", () => {
  it.each([
    ["bash", "completions/muster.bash"],
    ["zsh", "completions/_muster"],
    ["fish", "completions/muster.fish"],
  ])("%s: dist/%s is what muster completion prints", (shell, file) => {
    const built = readFileSync(path.join(DIST, file), "utf8");
    expect(built).toBe(muster("completion", shell));
    for (const name of Object.keys(COMMANDS)) expect(built).toContain(name);
    for (const [name, command] of Object.entries(COMMANDS))
      for (const option of Object.keys(command.options))
        expect(built, `${name} --${option}`).toContain(option);
  });

  it("dist/muster.1 is what muster manual prints: every command's usage, summary and help", () => {
    const page = readFileSync(path.join(DIST, "muster.1"), "utf8");
    expect(page).toBe(muster("manual"));
    expect(page).toMatch(/^\.TH MUSTER 1 /);
    const plain = page.replaceAll("\\-", "-").replaceAll("\\e", "\\");
    for (const command of Object.values(COMMANDS)) {
      expect(plain).toContain(command.usage);
      expect(plain).toContain(command.summary);
      for (const line of command.help) expect(plain).toContain(line);
    }
    for (const line of GLOBAL_HELP) expect(plain).toContain(line);
    // A line starting with . or ' is a roff request: only the page's own requests may.
    const requests = page.split("\n").filter((line) => /^[.']/.test(line));
    for (const line of requests) expect(line).toMatch(/^\.(TH|SH|TP|B|RS|RE|nf|fi)\b/);
    const manifest = JSON.parse(readFileSync(path.resolve(DIST, "..", "package.json"), "utf8"));
    expect(manifest.man).toEqual(["./dist/muster.1"]);
  });

  it("an unknown shell is a usage error in muster's words", () => {
    const run = spawnSync(process.execPath, [MUSTER, "completion", "tcsh"], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/completion is for bash, zsh or fish, not "tcsh"/);
  });
});

describe("the completions complete", () => {
  /** What bash's completion offers for the words typed so far (the last one being completed). */
  const offered = (...words: string[]) => {
    const script = [
      `source '${path.join(DIST, "completions", "muster.bash")}'`,
      `COMP_WORDS=(muster ${words.map((word) => `'${word}'`).join(" ")})`,
      `COMP_CWORD=${words.length}`,
      "_muster",
      `printf "%s\\n" "\${COMPREPLY[@]}"`,
    ].join("\n");
    return execFileSync("bash", ["--norc", "--noprofile", "-c", script], {
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
  };

  it("bash: commands, a command's subcommands, its options", () => {
    expect(offered("bo")).toEqual(["board"]);
    expect(offered("board", "cl")).toEqual(["claim"]);
    expect(offered("lease", "--sh")).toEqual(["--shared"]);
    expect(offered("stop", "--keep")).toEqual(["--keep-worktree"]);
    expect(offered("--json", "spawn", "--work")).toEqual(["--worktree"]);
  });

  it("bash: a placeholder of a usage is never offered as a word, nor a word twice", () => {
    expect(offered("land", "")).not.toContain("label");
    expect(offered("land", "")).not.toContain("card");
    for (const name of Object.keys(COMMANDS)) {
      const words = offered(name, "");
      expect(words, name).toEqual([...new Set(words)]);
    }
    expect(offered("nats", "")).toEqual(
      expect.arrayContaining(["config", "init", "allow", "deny"]),
    );
    expect(offered("hook", "")).toEqual(expect.arrayContaining(["claude", "codex"]));
    expect(offered("completion", "")).toEqual(expect.arrayContaining(["bash", "zsh", "fish"]));
  });

  it.skipIf(!has("zsh"))("zsh parses its script", () => {
    const file = path.join(DIST, "completions", "_muster");
    expect(spawnSync("zsh", ["-n", file]).status).toBe(0);
  });

  it.skipIf(!has("fish"))("fish parses its script", () => {
    const file = path.join(DIST, "completions", "muster.fish");
    expect(spawnSync("fish", ["--no-execute", file]).status).toBe(0);
  });

  it("the built files are never committed: dist is ignored", () => {
    expect(existsSync(path.join(DIST, "completions"))).toBe(true);
    const ignored = spawnSync("git", ["check-ignore", "-q", path.join(DIST, "muster.1")], {
      cwd: DIST,
    });
    expect(ignored.status).toBe(0);
  });
});

describe("the CLI's README lists the commands from the table", () => {
  // `MUSTER_WRITE_DOCS=1 pnpm exec vitest run packages/cli/src/manual.test.ts` rewrites the list.
  const README = path.resolve(import.meta.dirname, "..", "README.md");
  const BEGIN =
    "<!-- commands: generated from the command table; see packages/cli/src/manual.test.ts -->";
  const END = "<!-- /commands -->";

  it("its command list is the table's usage and summary, in the table's order", () => {
    const text = readFileSync(README, "utf8");
    const begin = text.indexOf(BEGIN) + BEGIN.length;
    const end = text.indexOf(END);
    expect(begin).toBeGreaterThan(BEGIN.length);
    expect(end).toBeGreaterThan(begin);
    const list = commandList(COMMANDS);
    if (process.env.MUSTER_WRITE_DOCS === "1")
      return writeFileSync(README, `${text.slice(0, begin)}\n\n${list}\n\n${text.slice(end)}`);
    expect(text.slice(begin, end).trim(), "rewrite it with MUSTER_WRITE_DOCS=1").toBe(list);
  });

  it("no line a terminal or a registry page must wrap far: none over 200 characters", () => {
    const long = readFileSync(README, "utf8")
      .split("\n")
      .filter((line) => line.length > 200);
    expect(long).toEqual([]);
  });
});
