// Codex's `notify` as `muster install codex` writes it, run as Codex runs it (its argv, then the
// JSON argument): the user's own notify program runs through muster, and still runs when the
// muster it names is deleted (an npx cache cleared, a global install removed).
import { execFile } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { tmuxEnv } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const DIST = path.resolve(import.meta.dirname, "..", "dist");
const execute = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("the user's notify program runs with Codex's argument, also after muster is deleted", async () => {
  const home = mkdtempSync(path.join(tmpdir(), "muster-notify-"));
  dirs.push(home);
  // A muster of its own (in node_modules here, so that its imports resolve), deleted below.
  const copy = mkdtempSync(path.join(DIST, "..", "node_modules", ".notify-copy-"));
  dirs.push(copy);
  cpSync(DIST, copy, { recursive: true });
  const mine = path.join(home, "mine.sh");
  writeFileSync(
    mine,
    `#!/bin/sh\nprintf '%s|' "$@" >> "${home}/ran.log"\necho >> "${home}/ran.log"\n`,
  );
  chmodSync(mine, 0o755);
  mkdirSync(path.join(home, ".codex"));
  writeFileSync(path.join(home, ".codex", "config.toml"), `notify = ["${mine}", "--loud"]\n`);
  // No muster on PATH: only the deleted copy could have run.
  const env = tmuxEnv({
    HOME: home,
    CODEX_HOME: undefined,
    PATH: "/usr/bin:/bin",
    MUSTER_TEAM_DIR: path.join(home, "team"),
  });
  await execute(process.execPath, [path.join(copy, "muster.js"), "install", "codex"], {
    cwd: home,
    env,
  });
  // muster writes notify on one line of JSON-compatible strings.
  const config = readFileSync(path.join(home, ".codex", "config.toml"), "utf8");
  const notify = JSON.parse(/^notify = (.*)$/m.exec(config)?.[1] ?? "[]") as string[];
  expect(notify.slice(0, 2)).toEqual(["sh", "-c"]);
  expect(notify.slice(-3)).toEqual(["--", mine, "--loud"]);
  const payload = JSON.stringify({ type: "agent-turn-complete", "thread-id": "t", cwd: home });
  const codexRuns = () => execute(notify[0]!, [...notify.slice(1), payload], { cwd: home, env });
  // Through muster: it runs the user's program (detached) with the same argument.
  await codexRuns();
  for (let wait = 0; wait < 100 && !existsSync(path.join(home, "ran.log")); wait += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
  expect(readFileSync(path.join(home, "ran.log"), "utf8")).toBe(`--loud|${payload}|\n`);
  // muster deleted: the user's program still runs, with the same argument.
  rmSync(copy, { recursive: true, force: true });
  await codexRuns();
  expect(readFileSync(path.join(home, "ran.log"), "utf8")).toBe(
    `--loud|${payload}|\n--loud|${payload}|\n`,
  );
  // doctor (another muster) names the install that went away, with the fix.
  const doctor = await execute(
    process.execPath,
    [path.join(DIST, "muster.js"), "doctor", "--json"],
    { cwd: home, env },
  ).catch((error: { stdout: string }) => error);
  expect(
    (JSON.parse(doctor.stdout).checks as { name: string }[]).find(
      (check) => check.name === "codex notify",
    ),
  ).toMatchObject({
    warn: true,
    detail: expect.stringContaining(`${copy}/muster.js, which is not there`),
    fix: expect.stringMatching(/^muster install codex/),
  });
  // And without a program of the user's, a missing muster is no failure either.
  writeFileSync(path.join(home, ".codex", "config.toml"), "");
  const alone = ["sh", "-c", notify[2]!, notify[3]!];
  await expect(
    execute(alone[0]!, [...alone.slice(1), payload], { cwd: home, env }),
  ).resolves.toBeDefined();
});
