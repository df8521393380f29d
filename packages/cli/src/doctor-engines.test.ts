// `muster doctor` on the engines' configs, from the built binary in a throwaway HOME with planted
// files: nothing set up is no failure; a complete install passes; a lost part fails, named, with the
// line or command that fixes it.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

type Check = { name: string; ok: boolean; detail: string; fix?: string; warn?: boolean };

function home() {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-doctor-"));
  homes.push(dir);
  const env = tmuxEnv({
    HOME: dir,
    MUSTER_TEAM_DIR: path.join(dir, "team"),
    CODEX_HOME: undefined,
    CLAUDE_CONFIG_DIR: undefined,
  });
  const file = (name: string) => path.join(dir, name);
  return {
    file,
    read: (name: string) => readFileSync(file(name), "utf8"),
    write: (name: string, text: string) => {
      mkdirSync(path.dirname(file(name)), { recursive: true });
      writeFileSync(file(name), text);
    },
    install: (...args: string[]) =>
      run(process.execPath, [MUSTER, "install", ...args], { cwd: dir, env }),
    /** The engine checks of `muster doctor --json` (it may fail for tmux: no server here). */
    async doctor(): Promise<Record<string, Check>> {
      const result = await run(process.execPath, [MUSTER, "doctor", "--json"], {
        cwd: dir,
        env,
      }).catch((error: { stdout: string }) => error);
      const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks;
      return Object.fromEntries(
        checks
          // The configs only: whether each engine has a model is doctor-models.test.ts's.
          .filter((check) => /^(codex|claude) /.test(check.name) && !check.name.endsWith(" model"))
          .map((check) => [check.name, check]),
      );
    },
  };
}

it("nothing set up is said, and is no failure", async () => {
  const { doctor, write } = home();
  write(".codex/config.toml", 'model = "o3"\n');
  const checks = await doctor();
  expect(Object.keys(checks)).toEqual(["codex config", "claude config"]);
  expect(Object.values(checks).every((check) => check.ok)).toBe(true);
  expect(checks["codex config"]!.detail).toMatch(
    /muster is not set up here \(muster install codex\)/,
  );
});

it("a complete install passes every check", async () => {
  const { doctor, install } = home();
  await install("codex", "--wake");
  await install("claude");
  const checks = await doctor();
  expect(checks).toMatchObject({
    "codex mcp": { ok: true, detail: expect.stringMatching(/mail wakes idle members/) },
    "codex title": { ok: true },
    "codex notify": { ok: true },
    "claude mcp": { ok: true },
    "claude hooks": { ok: true, detail: expect.stringMatching(/^muster's \d+ hooks in /) },
  });
  expect(Object.values(checks).some((check) => check.warn)).toBe(false);
});

it("a lost part fails, named, with what fixes it", async () => {
  const { doctor, install, read, write } = home();
  await install("codex");
  await install("claude");
  // The user's title without the thread id; muster's notify gone.
  write(
    ".codex/config.toml",
    read(".codex/config.toml")
      .replace(/^terminal_title = .*$/m, 'terminal_title = ["spinner"]')
      .replace(/^notify = .*$/m, ""),
  );
  // Claude Code: the Stop hook removed, and the server moved away.
  const settings = JSON.parse(read(".claude/settings.json"));
  delete settings.hooks.Stop;
  write(".claude/settings.json", JSON.stringify(settings));
  const state = JSON.parse(read(".claude.json"));
  state.mcpServers.muster.command = "/nowhere/node";
  write(".claude.json", JSON.stringify(state));
  const checks = await doctor();
  expect(checks).toMatchObject({
    "codex mcp": { ok: true, detail: expect.stringMatching(/waits for team_inbox/) },
    "codex title": {
      ok: false,
      detail: expect.stringMatching(/lacks the thread id/),
      fix: '[tui] terminal_title = ["spinner", "thread-id"]',
    },
    "codex notify": { ok: true, warn: true, fix: "muster install codex" },
    "claude mcp": {
      ok: false,
      detail: expect.stringMatching(/runs \/nowhere\/node, which is not there/),
    },
    "claude hooks": { ok: false, detail: expect.stringMatching(/lacks muster's Stop hook/) },
  });
});

it("an install whose env_vars lack settings muster's server reads says which, and that muster install codex fixes it", async () => {
  const { doctor, install, read, write } = home();
  await install("codex");
  write(
    ".codex/config.toml",
    read(".codex/config.toml").replace(
      /^env_vars = .*$/m,
      'env_vars = ["TMUX", "MUSTER_TEAM_DIR"]',
    ),
  );
  expect((await doctor())["codex env"]).toMatchObject({
    ok: true,
    warn: true,
    detail: expect.stringMatching(/does not pass on MUSTER_HOME, .*MUSTER_NATS, /),
    fix: "muster install codex",
  });
  await install("codex");
  expect((await doctor())["codex env"]).toMatchObject({ ok: true });
  expect((await doctor())["codex env"]?.warn).toBeUndefined();
});

it("a Codex config that no longer parses fails with the parser's word", async () => {
  const { doctor, install, read, write } = home();
  await install("codex");
  write(".codex/config.toml", `${read(".codex/config.toml")}\nmodel = \n`);
  expect((await doctor())["codex config"]).toMatchObject({
    ok: false,
    detail: expect.stringMatching(/does not parse/),
    fix: "fix the TOML, then run muster install codex",
  });
});

it("a mail setting no door knows is named with its fix; a good one is said", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-doctor-"));
  homes.push(dir);
  const settings = async (extra: Record<string, string>) => {
    const env = tmuxEnv({ HOME: dir, MUSTER_TEAM_DIR: path.join(dir, "team"), ...extra });
    const result = await run(process.execPath, [MUSTER, "doctor", "--json"], {
      cwd: dir,
      env,
    }).catch((error: { stdout: string }) => error);
    const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks;
    return checks.find((check) => check.name === "mail settings");
  };
  expect(await settings({ MUSTER_WAKE_PER_MINUTE: "100" })).toMatchObject({
    ok: false,
    detail: 'MUSTER_WAKE_PER_MINUTE is "100"',
    fix: expect.stringContaining("1 to 64"),
  });
  expect(await settings({ MUSTER_MAIL: "loud" })).toMatchObject({
    ok: false,
    fix: "set MUSTER_MAIL to off, quiet or wakes",
  });
  expect(await settings({ MUSTER_MAIL: "quiet", MUSTER_WAKE_PER_MINUTE: "3" })).toMatchObject({
    ok: true,
    detail: "mail quiet, at most 3 wakes a minute per member",
  });
});
