// `muster up` asks each engine it would start whether it can work before it starts anything: not
// installed (not on PATH), not set up for muster (no `muster install`), pi with no model, Claude
// Code not logged in — each refused in one line with the engine's own words and the fix, no tmux
// server started, rather than a member waited on for the whole time limit. The built binary, the
// real engines' own status commands (pi 1.6.0, Codex 0.171.0, Claude Code 2.1.332), a throwaway HOME.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { upKit } from "../test/up-kit.js";

const BIN = path.resolve(import.meta.dirname, "..", "node_modules", ".bin");
const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
// Nothing on PATH but the kit's bin (its pi), Node, and the system's: no engine from node_modules.
const kit = upKit("muster-up-ready-", {
  PATH: "",
  CODEX_HOME: undefined,
  CLAUDE_CONFIG_DIR: undefined,
  PI_CODING_AGENT_DIR: undefined,
  ANTHROPIC_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
});
kit.env.PATH = `${kit.bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`;
afterAll(() => kit.close());

/** `muster up` for a team of one, timed: it must answer long before a member's time limit. */
async function upOne(engine: string, label: string) {
  kit.declare(`[[member]]\nlabel = "${label}"\nengine = "${engine}"\ntask = "review"\n`);
  const began = Date.now();
  const run = await kit.muster(["up", "--timeout", "120"]);
  return { ...run, seconds: (Date.now() - began) / 1000 };
}

describe("muster up refuses an engine that cannot work, before anything starts", () => {
  it("Claude Code not installed: not on PATH", async () => {
    const run = await upOne("claude", "ann");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^muster: ann: Claude Code is not installed here \(claude is not on PATH\), so nothing was started; install Claude Code, or put claude on PATH; then muster up again\n$/,
    );
    expect(kit.serverRuns()).toBe(false);
  }, 60_000);

  it("Codex installed but not set up for muster", async () => {
    symlinkSync(path.join(BIN, "codex"), path.join(kit.bin, "codex"));
    const run = await upOne("codex", "bea");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^muster: bea: Codex is not set up for muster here, so it would start and never join the team; nothing was opened; run muster install codex, then muster up again\n$/,
    );
    expect(run.seconds).toBeLessThan(30);
    expect(kit.serverRuns()).toBe(false);
  }, 60_000);

  it("Claude Code set up for muster but not logged in: its own status says so", async () => {
    symlinkSync(path.join(BIN, "claude"), path.join(kit.bin, "claude"));
    const install = await kit.muster(["install", "claude"]);
    expect(install.status, install.stderr).toBe(0);
    const run = await upOne("claude", "cat");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^muster: cat: Claude Code is not logged in \(claude auth status\), so nothing was started; \/login in Claude Code, or set ANTHROPIC_API_KEY where you run muster up; then muster up again\n$/,
    );
    expect(run.seconds).toBeLessThan(30);
    expect(kit.serverRuns()).toBe(false);
  }, 60_000);

  it("pi set up for muster with no model: pi's own words", async () => {
    // The kit's pi loads the faux model: a pi as installed has none, and no key here.
    symlinkSync(
      path.join(PI_PACKAGE, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"),
      path.join(kit.bin, "pi-real"),
    );
    writeFileSync(
      path.join(kit.bin, "pi"),
      `#!/bin/sh\nexec '${process.execPath}' '${path.join(kit.bin, "pi-real")}' "$@"\n`,
    );
    const agent = path.join(kit.home, ".pi", "agent");
    mkdirSync(agent, { recursive: true });
    writeFileSync(path.join(agent, "settings.json"), JSON.stringify({ packages: [PI_PACKAGE] }));
    const run = await upOne("pi", "dee");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /^muster: dee: pi has no model: pi --offline --list-models says "No models available\. .*", so nothing was started; a provider's key in the environment \(e\.g\. ANTHROPIC_API_KEY\) or \/login in pi, or args = \["--provider", "NAME", "--model", "ID"\] in its \[\[member\]\]; then muster up again\n$/,
    );
    expect(run.seconds).toBeLessThan(30);
    expect(kit.serverRuns()).toBe(false);
  }, 60_000);
});
