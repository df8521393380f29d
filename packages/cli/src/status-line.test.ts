// `muster status --line`, `muster go` and what `muster send` says of each recipient, from the
// built binary, against a real team folder whose members' activity was recorded as their engines'
// signals record it.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { musterKit } from "../test/run.js";

const { scratch, newTeam, muster } = musterKit("muster-cli-line-");
/** A UTF-8 locale, whatever the machine running the tests has (CI has none). */
const UTF8 = { LANG: "C.UTF-8", LC_ALL: undefined, LC_CTYPE: undefined };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function teamWith(
  states: [label: string, state: "working" | "idle" | "needs-you", agoMs: number][],
) {
  const dir = newTeam();
  const roster = await openTestTeam(dir);
  for (const [index, [label, state, agoMs]] of states.entries()) {
    const id = `m${index}`;
    await roster.join({
      id,
      label,
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    const at = new Date(Date.now() - agoMs).toISOString();
    await roster.activity(id, () => ({
      activity: { state, since: at, at, signal: "pi/turn-start" },
    }));
  }
  return { dir, roster };
}

describe("muster send says what each recipient is doing", () => {
  it("a working one sees it when its turn ends, one waiting for you once you answer", async () => {
    const { dir } = await teamWith([
      ["alice", "working", 1000],
      ["carol", "idle", 1000],
      ["dave", "needs-you", 5000],
      ["me", "idle", 1000],
    ]);
    const env = { MUSTER_TEAM_DIR: dir };
    const run = await muster(["send", "alice,carol,dave", "hi", "--id", "m3"], { env });
    expect(run).toMatchObject({ status: 0, stderr: "" });
    expect(run.stdout.split("\n").filter((line) => line.startsWith("  "))).toEqual([
      "  alice is working: will see it when this turn ends",
      "  carol is idle: will see it at their next turn",
      "  dave is waiting for you: will see it once you answer it and its turn ends",
    ]);
    const json = JSON.parse(
      (await muster(["send", "alice,carol", "again", "--id", "m3", "--json"], { env })).stdout,
    );
    expect(
      json.recipients.map((each: { label: string; activity: string }) => [
        each.label,
        each.activity,
      ]),
    ).toEqual([
      ["alice", "working"],
      ["carol", "idle"],
    ]);
  });
});

describe("muster status --line", () => {
  it("counts who works and idles, and names who needs you, longest waiting first", async () => {
    const { dir } = await teamWith([
      ["alice", "working", 1000],
      ["bob", "working", 2000],
      ["carol", "idle", 1000],
      ["dave", "needs-you", 5000],
      ["erin", "needs-you", 60_000],
    ]);
    const run = await muster(["status", "--line"], { env: { MUSTER_TEAM_DIR: dir, ...UTF8 } });
    expect(run).toMatchObject({ status: 0, stderr: "" });
    expect(run.stdout).toBe("⚑ 2 working · 1 idle · ❗ erin +1 need you\n");
    const json = JSON.parse(
      (await muster(["status", "--line", "--json"], { env: { MUSTER_TEAM_DIR: dir } })).stdout,
    );
    expect(json).toMatchObject({
      ok: true,
      working: 2,
      idle: 1,
      needsYou: [{ label: "erin" }, { label: "dave" }],
    });
  });

  it("is ASCII where the locale is not UTF-8 (tmux would draw each other character as _)", async () => {
    const { dir, roster } = await teamWith([
      ["alice", "working", 1000],
      ["dave", "needs-you", 5000],
    ]);
    // The person, joined from a shell, with mail waiting.
    await roster.join({
      id: "shell-1",
      label: "sam",
      agent: "bash",
      pid: process.pid,
      watching: { armed: false, wake: false },
      liveness: "heartbeat",
    });
    await roster.send({ from: "m0", to: "sam", body: "for the person" });
    for (const locale of [
      { LANG: undefined, LC_ALL: undefined, LC_CTYPE: undefined },
      { LANG: "C", LC_ALL: undefined, LC_CTYPE: undefined },
      { LANG: "en_US.UTF-8", LC_ALL: "POSIX", LC_CTYPE: undefined },
      { LANG: "en_US.ISO-8859-1", LC_ALL: undefined, LC_CTYPE: undefined },
    ]) {
      const run = await muster(["status", "--line"], { env: { MUSTER_TEAM_DIR: dir, ...locale } });
      expect(run).toMatchObject({ status: 0, stderr: "" });
      expect(run.stdout).not.toMatch(/[^\x20-\x7e\n]/);
      expect(run.stdout).toBe("1 working | ! dave needs you | mail 1\n");
    }
    const utf8 = await muster(["status", "--line"], {
      env: { MUSTER_TEAM_DIR: dir, LANG: "C", LC_ALL: undefined, LC_CTYPE: "C.UTF-8" },
    });
    expect(utf8.stdout).toBe("⚑ 1 working · ❗ dave needs you · ✉ 1\n");
  });

  it("an empty team is an empty line", async () => {
    const { dir } = await teamWith([]);
    const run = await muster(["status", "--line"], { env: { MUSTER_TEAM_DIR: dir } });
    expect(run.stdout).toBe("\n");
  });
});

describe("what muster status --line reads, as its help says", () => {
  it("finds the team with two git calls, never tmux, and its help says so", async () => {
    const repo = path.join(scratch, "repo");
    const shims = path.join(scratch, "shims");
    const log = path.join(scratch, "calls.log");
    mkdirSync(repo, { recursive: true });
    mkdirSync(shims, { recursive: true });
    execFileSync("git", ["init", "-q", repo]);
    for (const program of ["git", "tmux"]) {
      const real = execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim();
      const shim = path.join(shims, program);
      writeFileSync(
        shim,
        `#!/bin/sh\necho "${program} $1 $2 $3" >> "${log}"\nexec "${real}" "$@"\n`,
      );
      chmodSync(shim, 0o755);
    }
    writeFileSync(log, "");
    const env = { PATH: `${shims}:${process.env.PATH}`, MUSTER_HOME: path.join(scratch, "home") };
    const run = await muster(["status", "--line"], { cwd: repo, env });
    expect(run).toMatchObject({ status: 0, stderr: "" });
    const calls = readFileSync(log, "utf8").trim().split("\n");
    expect(calls.map((call) => call.split(" ")[0])).toEqual(["git", "git"]);
    const help = (await muster(["status", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain("two git calls");
    expect(help).toContain("/proc");
    expect(help).not.toContain("team folder only");
  });
});

describe("muster go", () => {
  it("refuses with the fix when nobody waits, or the label is nobody's", async () => {
    const { dir } = await teamWith([["alice", "working", 1000]]);
    const none = await muster(["go"], { env: { MUSTER_TEAM_DIR: dir } });
    expect(none).toMatchObject({ status: 1 });
    expect(none.stderr).toBe(
      "muster: no member is waiting for you; name one: muster go <label> (muster status lists them)\n",
    );
    const nobody = await muster(["go", "zoe"], { env: { MUSTER_TEAM_DIR: dir } });
    expect(nobody.stderr).toMatch(/no live member is called zoe/);
    // A member with no tmux seat cannot be gone to.
    const unseated = await teamWith([["bob", "needs-you", 1000]]);
    const go = await muster(["go"], { env: { MUSTER_TEAM_DIR: unseated.dir } });
    expect(go.stderr).toMatch(/bob has no tmux pane muster knows of/);
  });
});
