// Claude Code's PreToolUse lease guard under attack: every way it could fail to decide must refuse
// the edit, with the reason, and every way a write can reach a leased file (a symlink to it, a
// checkout reached through a linked folder, a link to a file not made yet, a linked folder) must
// be seen as the filesystem sees it. The built binary, run as Claude Code runs its hooks.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { takeLease } from "@muster/node";
import type { Roster } from "@muster/roster";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { claudeHooksKit, type HookAnswer } from "../test/claude-hooks.ts";

const kit = claudeHooksKit("muster-hook-guard-");
const scratch = realpathSync(kit.scratch);
afterEach(kit.stop);
afterAll(kit.close);

/** reviewer (this test process) leases `pattern` exclusively. */
async function lease(roster: Roster, pattern: string) {
  const taken = await takeLease(
    roster,
    { holderId: "peer", holder: "reviewer", pattern, mode: "exclusive", ttlMs: 600_000 },
    false,
  );
  expect(taken.ok).toBe(true);
}

const denied = (answer: HookAnswer) =>
  (answer.json?.hookSpecificOutput as Record<string, string> | undefined)?.permissionDecision ===
  "deny";
const reason = (answer: HookAnswer) =>
  (answer.json?.hookSpecificOutput as Record<string, string> | undefined)
    ?.permissionDecisionReason ?? "";

/** A session on a team where reviewer holds `pattern`, in folder `cwd` (outside git). */
async function guarded(pattern: string, cwd: string, env: Record<string, string> = {}) {
  mkdirSync(cwd, { recursive: true });
  const session = await kit.claudeSession({ MUSTER_LABEL: "writer", ...env }, cwd);
  await session.hook("session-start");
  await session.peer();
  await lease(session.roster, pattern);
  const write = (file: string, content = "x") =>
    session.hook("pre-tool-use", { tool_name: "Write", tool_input: { file_path: file, content } });
  return { ...session, write };
}

describe("a guard that cannot decide refuses", () => {
  it("a Write over 1 MiB of a leased file is read whole and denied", async () => {
    const cwd = path.join(scratch, "big");
    const { hook } = await guarded("src/a.ts", cwd);
    const input = path.join(scratch, "big-input.json");
    writeFileSync(
      input,
      JSON.stringify({
        session_id: "s1",
        hook_event_name: "PreToolUse",
        tool_name: "Write",
        tool_input: { content: "y".repeat(3 << 20), file_path: path.join(cwd, "src/a.ts") },
      }),
    );
    const answer = await hook("pre-tool-use", { file: input });
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/^src\/a\.ts is leased \(src\/a\.ts\), held by reviewer/);
  });

  it.each([
    ["input that is not JSON", "{not json"],
    ["JSON with no tool", JSON.stringify({ session_id: "s1" })],
    ["an edit that names no file", JSON.stringify({ tool_name: "Edit", tool_input: {} })],
  ])("%s is denied, saying why", async (_what, line) => {
    const { hook } = await guarded("src/a.ts", path.join(scratch, "garbled"));
    const answer = await hook("pre-tool-use", line);
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/muster could not check it against the team's leases/);
    expect(reason(answer)).toContain("MUSTER_GUARD=warn");
  });

  it("leases that cannot be read deny the edit, naming the trouble", async () => {
    const cwd = path.join(scratch, "unreadable");
    const { write, teamDir } = await guarded("src/a.ts", cwd);
    rmSync(path.join(teamDir, "leases"), { recursive: true });
    writeFileSync(path.join(teamDir, "leases"), "not a folder");
    const answer = await write(path.join(cwd, "src/other.ts"));
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/src\/other\.ts is refused: muster could not check it/);
  });

  it("a team folder muster refuses to use denies the edit", async () => {
    const cwd = path.join(scratch, "unsafe");
    const { write, teamDir } = await guarded("src/a.ts", cwd);
    chmodSync(teamDir, 0o777);
    const answer = await write(path.join(cwd, "src/other.ts"));
    chmodSync(teamDir, 0o700);
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/src\/other\.ts is refused: muster could not check it/);
  });

  it("a check that does not finish in time denies the edit before Claude Code's timeout", async () => {
    const cwd = path.join(scratch, "slow");
    const bin = path.join(scratch, "slow-bin");
    mkdirSync(bin, { recursive: true });
    // git that hangs: the guard asks git for the repository root.
    writeFileSync(path.join(bin, "git"), "#!/bin/sh\nexec sleep 8\n", { mode: 0o755 });
    const { write } = await guarded("src/a.ts", cwd, {
      PATH: `${bin}:${process.env.PATH}`,
      MUSTER_GUARD_DEADLINE_MS: "1500",
    });
    const answer = await write(path.join(cwd, "src/other.ts"));
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/This edit is refused: .*it was not done in 1\.5 s/);
  });

  it("MUSTER_GUARD=warn lets it through, and says what was not stopped", async () => {
    const cwd = path.join(scratch, "warn");
    const { write } = await guarded("src/a.ts", cwd, { MUSTER_GUARD: "warn" });
    const answer = await write(path.join(cwd, "src/a.ts"));
    expect(denied(answer)).toBe(false);
    expect(answer.json?.systemMessage).toMatch(/^muster guard \(warn only\): src\/a\.ts is leased/);
  });
});

describe("paths are compared as the filesystem sees them", () => {
  it("CLAUDE.md, a symlink to a leased AGENTS.md, cannot be written", async () => {
    const cwd = path.join(scratch, "linked-file");
    const { write } = await guarded("AGENTS.md", cwd);
    writeFileSync(path.join(cwd, "AGENTS.md"), "rules\n");
    symlinkSync("AGENTS.md", path.join(cwd, "CLAUDE.md"));
    const answer = await write(path.join(cwd, "CLAUDE.md"));
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/^AGENTS\.md is leased \(AGENTS\.md\), held by reviewer/);
  });

  it("a link to a leased file not made yet cannot be written either (the write would make it)", async () => {
    const cwd = path.join(scratch, "dangling");
    const { write } = await guarded("AGENTS.md", cwd);
    symlinkSync("AGENTS.md", path.join(cwd, "CLAUDE.md"));
    expect(denied(await write(path.join(cwd, "CLAUDE.md")))).toBe(true);
  });

  it("a leased folder reached through a linked folder cannot be written", async () => {
    const cwd = path.join(scratch, "linked-folder");
    const { write } = await guarded("src/auth/**", cwd);
    mkdirSync(path.join(cwd, "src", "auth"), { recursive: true });
    mkdirSync(path.join(cwd, "docs"));
    symlinkSync("../src/auth", path.join(cwd, "docs", "auth"));
    const answer = await write(path.join(cwd, "docs", "auth", "login.ts"));
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/^src\/auth\/login\.ts is leased \(src\/auth\/\*\*\)/);
  });

  it("a leased path in a checkout reached through a symlink (/home/u/work → /data/work) cannot be written", async () => {
    const real = path.join(scratch, "data", "work");
    mkdirSync(path.join(real, "src"), { recursive: true });
    execFileSync("git", ["init", "-q", real]);
    const linked = path.join(scratch, "home-work");
    symlinkSync(real, linked);
    // Claude Code runs in the checkout (a process's cwd is the real folder); it names the file
    // by the path the person used.
    const { write } = await guarded("src/a.ts", real);
    const answer = await write(path.join(linked, "src", "a.ts"));
    expect(denied(answer)).toBe(true);
    expect(reason(answer)).toMatch(/^src\/a\.ts is leased/);
  });

  it("paths nobody leased still pass, through links too", async () => {
    const cwd = path.join(scratch, "free");
    const { write } = await guarded("src/a.ts", cwd);
    mkdirSync(path.join(cwd, "lib"), { recursive: true });
    symlinkSync("lib", path.join(cwd, "vendor"));
    expect((await write(path.join(cwd, "vendor", "x.ts"))).stdout).toBe("");
    expect((await write(path.join(cwd, "src", "b.ts"))).stdout).toBe("");
    expect((await write("/tmp/outside-the-repository.txt")).stdout).toBe("");
  });
});
