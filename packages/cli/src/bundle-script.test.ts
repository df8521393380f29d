// A hot command's bundle run as a script (_bundle-script.ts): its code cache, taken after the
// first run, keeps the functions that run compiled, so the next start compiles (almost) none of
// them again; and a cache that is missing, foreign or refused, or a script form that is missing,
// gives the same answer as ever (never a crash).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_REQUIRE } from "../../../tools/src/bundle-options.ts";
import { scriptForm } from "../../../tools/src/command-bundles.ts";
import { MUSTER, NOWHERE } from "../test/run.ts";
import { COMMAND_BUNDLES } from "./_command-bundles.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-bundle-script-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let homes = 0;
const newHome = () => {
  homes += 1;
  return path.join(scratch, `home-${homes}`);
};
const cacheIn = (home: string) => path.join(home, ".cache", "muster", "compile-cache");
const scriptCaches = (home: string) =>
  readdirSync(cacheIn(home)).filter((name) => name.startsWith("script-"));

/** `status --line --json` started with HOME `home` (and Node's `flags`); its output. */
function statusLine(home: string, flags: string[] = [], muster = MUSTER) {
  const run = spawnSync(process.execPath, [...flags, muster, "status", "--line", "--json"], {
    env: { ...process.env, HOME: home, MUSTER_TEAM_DIR: path.join(home, "team"), TMUX: "" },
    cwd: scratch,
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { ok?: boolean; line: string };
}

/** How many functions of the status-line bundle V8 compiled lazily in one start. */
function lazyCompiles(home: string): number {
  mkdirSync(home, { recursive: true });
  // One path for every run: V8 refuses a code cache made under other flags, this one's value too.
  const log = path.join(home, "v8.log");
  rmSync(log, { force: true });
  statusLine(home, ["--log-function-events", `--logfile=${log}`, "--no-logfile-per-isolate"]);
  const lines = readFileSync(log, "utf8").split("\n");
  const ids = new Set(
    lines
      .filter((line) => line.startsWith("script-details,") && line.includes("status-line/main"))
      .map((line) => line.split(",")[1]),
  );
  return lines.filter((line) => {
    const [kind, event, id] = line.split(",");
    return kind === "function" && event === "parse-function" && ids.has(id);
  }).length;
}

describe("a hot bundle run as a script", () => {
  it("is its bundle's main.js turned into one function, and nothing else", () => {
    const commands = path.join(path.dirname(MUSTER), "commands");
    for (const bundle of Object.keys(COMMAND_BUNDLES)) {
      const main = readFileSync(path.join(commands, bundle, "main.js"), "utf8");
      expect(readFileSync(path.join(commands, bundle, "main.script.js"), "utf8"), bundle).toBe(
        scriptForm(main),
      );
    }
  });

  it("names a script by what it holds: a change of the same length is another cache", () => {
    // V8 checks a code cache against the source's length only, and npm dates every file alike.
    const bundle = (limit: number) =>
      `${BUILTIN_REQUIRE}\nconst limit = ${limit};\nexport {\n  limit\n};\n`;
    const [before, after] = [scriptForm(bundle(1000)), scriptForm(bundle(2000))];
    expect(before.length).toBe(after.length);
    expect(before.split("\n")[0]).toMatch(/^\/\/ muster-script [0-9a-f]{32}$/);
    expect(before.split("\n")[0]).not.toBe(after.split("\n")[0]);
  });

  it("is ASCII outside its comments, as the start reads it (latin1), or the build fails", () => {
    const bundle = (line: string) => `${BUILTIN_REQUIRE}\n${line}\nexport {\n  a\n};\n`;
    expect(scriptForm(bundle('/** the mark: \u2691 */ const a = "\\u2691";'))).toContain("\u2691");
    expect(() => scriptForm(bundle('const a = "\u2691";'))).toThrow(/beyond ASCII/);
  });

  it("keeps what its first run compiled: the next start compiles almost nothing again", () => {
    const home = newHome();
    const first = lazyCompiles(home);
    expect(scriptCaches(home).length).toBe(1);
    const second = lazyCompiles(home);
    // The first run compiles a few hundred functions as it calls them; the cached run, none of those.
    expect(first).toBeGreaterThan(50);
    expect(second).toBeLessThan(first / 5);
  });

  it("answers the same with no cache, its own cache, or a cache that is not V8's", () => {
    const home = newHome();
    const cold = statusLine(home);
    const [file] = scriptCaches(home);
    expect(file).toBeDefined();
    expect(statusLine(home)).toEqual(cold);
    writeFileSync(path.join(cacheIn(home), file!), "not a code cache");
    expect(statusLine(home)).toEqual(cold);
    // The refused cache was written again, whole.
    expect(readFileSync(path.join(cacheIn(home), file!)).length).toBeGreaterThan(1_000);
  });

  it("removes its bundle's older builds' caches when it writes one, and nothing it did not write", () => {
    const home = newHome();
    statusLine(home);
    const [current] = scriptCaches(home);
    const folder = cacheIn(home);
    const build = (hash: string, version = process.version) =>
      current!.replace(/-[0-9a-f]{32}-/, `-${hash}-`).replace(process.version, version);
    const plant = (name: string, daysOld: number) => {
      writeFileSync(path.join(folder, name), "an older build's cache");
      const when = new Date(Date.now() - daysOld * 86_400_000);
      utimesSync(path.join(folder, name), when, when);
      return name;
    };
    const [oldest, older, old] = [
      plant(build("a".repeat(32)), 3),
      plant(build("b".repeat(32)), 2),
      plant(build("c".repeat(32)), 1),
    ];
    const otherNode = plant(build("d".repeat(32), "v22.19.0"), 4);
    const foreign = [
      plant("notes.txt", 9),
      plant("script-mine.v8", 9),
      plant(`${build("e".repeat(32))}.bak`, 9),
    ];
    const outside = path.join(scratch, "outside.v8");
    writeFileSync(outside, "not muster's");
    const link = build("f".repeat(32));
    symlinkSync(outside, path.join(folder, link));
    // A start that reads its cache writes none, and removes nothing.
    statusLine(home);
    expect(readdirSync(folder)).toContain(oldest);
    // A start that writes its cache (a new build's first) keeps the two builds written last.
    rmSync(path.join(folder, current!));
    statusLine(home);
    const left = readdirSync(folder);
    expect(left).toEqual(expect.arrayContaining([current, older, old, ...foreign, link]));
    expect(left).not.toContain(oldest);
    expect(left).not.toContain(otherNode);
    expect(readFileSync(outside, "utf8")).toBe("not muster's");
  });

  it("answers the same from an install without the script form (the bundle imported)", () => {
    const home = newHome();
    const dist = path.join(scratch, "dist-without-script");
    cpSync(path.dirname(MUSTER), dist, { recursive: true });
    cpSync(
      path.join(path.dirname(MUSTER), "..", "package.json"),
      path.join(scratch, "package.json"),
    );
    rmSync(path.join(dist, "commands", "status-line", "main.script.js"));
    const muster = path.join(dist, "muster.js");
    expect(statusLine(home, [], muster)).toEqual(statusLine(newHome()));
    expect(scriptCaches(home)).toEqual([]);
  });

  it("keeps no script cache where Node's compile cache is off", () => {
    const home = newHome();
    mkdirSync(home, { recursive: true });
    const run = spawnSync(process.execPath, [MUSTER, "status", "--line", ...NOWHERE], {
      env: { ...process.env, HOME: home, NODE_DISABLE_COMPILE_CACHE: "1", TMUX: "" },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(readdirSync(home, { recursive: true }).map(String)).not.toContainEqual(
      expect.stringMatching(/script-/),
    );
  });
});
