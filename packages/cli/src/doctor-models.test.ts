// `muster doctor` on whether each engine muster is set up in has a model: real pi 1.6.0, Codex
// 0.171.0 and Claude Code 2.1.332, offline, in a throwaway HOME, asked only their own status
// commands (no model call). With no key anywhere each is a warning with its fix; with a key, the
// check passes as "not verified", since only a model call would know that the key works.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { LONG_TESTS, tmuxEnv } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { MUSTER } from "../test/run.js";

const run = promisify(execFile);
const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const BIN = path.resolve(import.meta.dirname, "..", "node_modules", ".bin");
const home = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-doctor-models-")));
afterAll(() => rmSync(home, { recursive: true, force: true }));

type Check = { name: string; ok: boolean; detail: string; fix?: string; warn?: boolean };

const env = (more: Record<string, string | undefined> = {}) =>
  tmuxEnv({
    HOME: home,
    TMPDIR: path.join(home, "tmp"),
    PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    MUSTER_TEAM_DIR: path.join(home, "team"),
    CODEX_HOME: undefined,
    CLAUDE_CONFIG_DIR: undefined,
    ANTHROPIC_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    HTTPS_PROXY: "http://127.0.0.1:9",
    NO_PROXY: "127.0.0.1,localhost",
    ...more,
  });

async function modelChecks(more?: Record<string, string>): Promise<Record<string, Check>> {
  const result = await run(process.execPath, [MUSTER, "doctor", "--json"], {
    cwd: home,
    env: env(more),
  }).catch((error: { stdout: string }) => error);
  const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks;
  return Object.fromEntries(
    checks.filter((check) => / model$/.test(check.name)).map((check) => [check.name, check]),
  );
}

it.skipIf(!LONG_TESTS)(
  "each engine set up: no model is a warning with its fix; a key is 'not verified'",
  async () => {
    for (const folder of ["bin", "tmp", ".pi/agent"])
      mkdirSync(path.join(home, folder), { recursive: true });
    symlinkSync(PI_CLI, path.join(home, "bin", "pi"));
    for (const engine of ["codex", "claude"])
      symlinkSync(realpathSync(path.join(BIN, engine)), path.join(home, "bin", engine));
    for (const engine of ["codex", "claude"])
      await run(process.execPath, [MUSTER, "install", engine], { cwd: home, env: env() });
    // pi set up with muster's extension from this clone (pi install would ask the registry).
    writeFileSync(
      path.join(home, ".pi", "agent", "settings.json"),
      JSON.stringify({ packages: [PI_PACKAGE] }),
    );
    const none = await modelChecks();
    expect(Object.keys(none).sort()).toEqual(["claude model", "codex model", "pi model"]);
    expect(none["pi model"]).toMatchObject({
      ok: true,
      warn: true,
      fix: expect.stringContaining("--provider NAME --model ID"),
    });
    expect(none["pi model"]!.detail).toContain(
      'pi has no model: pi --offline --list-models says "No models available.',
    );
    expect(none["codex model"]).toMatchObject({
      ok: true,
      warn: true,
      detail: 'Codex is not signed in: it says "Not logged in"',
      fix: expect.stringContaining("codex login"),
    });
    expect(none["claude model"]).toMatchObject({
      ok: true,
      warn: true,
      fix: expect.stringContaining("/login"),
    });

    const keyed = await modelChecks({ ANTHROPIC_API_KEY: "sk-ant-fake" });
    expect(keyed["pi model"]).toMatchObject({
      ok: true,
      detail: expect.stringMatching(
        /^\d+ model\(s\) with a key .*not verified: doctor calls no model$/,
      ),
    });
    expect(keyed["pi model"]!.warn).toBeUndefined();
    expect(keyed["claude model"]).toMatchObject({
      ok: true,
      detail:
        "Claude Code is logged in (api_key, ANTHROPIC_API_KEY); not verified: doctor calls no model",
    });
  },
);

it("an engine not set up for muster is not asked", async () => {
  const fresh = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-doctor-models-none-")));
  try {
    const result = await run(process.execPath, [MUSTER, "doctor", "--json"], {
      cwd: fresh,
      env: env({ HOME: fresh }),
    }).catch((error: { stdout: string }) => error);
    const names = (JSON.parse(result.stdout) as { checks: Check[] }).checks.map(
      (check) => check.name,
    );
    expect(names.filter((name) => name.endsWith(" model"))).toEqual([]);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});
