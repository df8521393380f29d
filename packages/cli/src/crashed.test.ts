// A member whose process died without `muster stop` (or `down`) is shown as crashed — when, what
// it was doing, and that `muster up <label>` brings it back — by `status`, `roster --json` and
// `go`; one `muster stop` ended is shown stopped, never crashed. Real processes (SIGKILLed, or
// ended by the built CLI's stop in a private tmux server's pane), the built binary, the real team
// folder; the members joined as their doors join them, kept live by their process.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { processStart } from "@muster/node";
import { eventually, startPrivateTmux } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, expect, it } from "vitest";
import { musterKit } from "../test/run.js";

const { scratch, newTeam, muster } = musterKit("muster-crashed-");
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A process of its own (a stand-in for an engine), ended by the test. */
function engineProcess() {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  cleanups.push(() => child.kill("SIGKILL"));
  const pid = child.pid!;
  return { child, pid, pidStart: processStart(pid) };
}

const member = (id: string, label: string, process: { pid: number; pidStart?: string }) => ({
  id,
  label,
  agent: "codex",
  pid: process.pid,
  pidStart: process.pidStart,
  watching: { armed: true, wake: true },
  liveness: "process" as const,
});

it("a member SIGKILLed is crashed (when, its last state, muster up brings it back) in status, roster and go", async () => {
  const team = newTeam();
  const env = { MUSTER_TEAM_DIR: team };
  const roster = await openTestTeam(team);
  const engine = engineProcess();
  expect((await roster.join(member("t-bob", "bob", engine))).ok).toBe(true);
  const now = new Date().toISOString();
  await roster.activity("t-bob", () => ({
    activity: { state: "working", since: now, at: now, signal: "codex/turn-start" },
  }));
  // A record whose pid now names another process (its start time differs): that one died too.
  const reused = { pid: process.pid, pidStart: "1" };
  expect((await roster.join(member("t-eve", "eve", reused))).ok).toBe(true);

  const before = await muster(["roster", "--json"], { env });
  const live = JSON.parse(before.stdout).members.find(
    (each: { id: string }) => each.id === "t-bob",
  );
  expect(live).toMatchObject({ state: "live", end: null });

  engine.child.kill("SIGKILL");
  await eventually(
    () => engine.child.exitCode !== null || engine.child.signalCode !== null,
    Boolean,
    "the engine to die",
  );
  const json = await muster(["roster", "--json"], { env });
  const members = JSON.parse(json.stdout).members;
  expect(members.find((each: { id: string }) => each.id === "t-bob")).toMatchObject({
    state: "gone",
    why: "process-dead",
    end: {
      kind: "crashed",
      found: false,
      last: "working",
      fix: "muster up bob brings it back",
    },
  });
  expect(members.find((each: { id: string }) => each.id === "t-eve")?.end).toMatchObject({
    kind: "crashed",
    fix: "muster up eve brings it back",
  });

  const status = await muster(["status"], { env });
  expect(status.stdout).toMatch(/bob\s+codex\s+crashed \(last seen \d+s ago, working\)/);
  expect(status.stdout).toContain("bob crashed: muster up bob brings it back");

  const go = await muster(["go", "bob"], { env });
  expect(go.status).toBe(1);
  expect(go.stderr).toMatch(
    /^muster: bob crashed \(last seen \d+s ago, working\); muster up bob brings it back\n$/,
  );
});

it("a member muster stop ended is stopped, not crashed", async () => {
  const team = newTeam();
  const repo = path.join(scratch, "repo");
  mkdirSync(repo, { recursive: true });
  const env = { MUSTER_TEAM_DIR: team };
  const server = startPrivateTmux({ command: "sleep 600", env: { HOME: scratch, ...env } });
  cleanups.push(() => server.kill());
  // A spawn whose command is no engine: the pane opens and stays, the wait ends at its limit.
  const spawned = await muster(
    [
      "spawn",
      "pi",
      "--label",
      "carol",
      "--window",
      "--timeout",
      "1",
      "--command",
      "sleep 600",
      "--json",
      "-L",
      server.name,
    ],
    { env, cwd: repo },
  );
  const document = JSON.parse(spawned.stdout);
  expect(document).toMatchObject({ ok: false, reason: "time-limit", pid: expect.any(Number) });
  // Its process joins as its door would (kept live by that process).
  const roster = await openTestTeam(team);
  const pane = { pid: document.pid, pidStart: processStart(document.pid) };
  expect((await roster.join(member("t-carol", "carol", pane))).ok).toBe(true);

  const stopped = await muster(["stop", "carol", "-L", server.name], { env });
  expect(stopped.status, stopped.stderr).toBe(0);
  const read = await eventually(
    async () => JSON.parse((await muster(["roster", "--json"], { env })).stdout),
    (json) => json.members.some((each: { end: unknown }) => each.end !== null),
    "carol ended",
  );
  expect(read.members[0]).toMatchObject({
    label: "carol",
    end: { kind: "stopped", last: null },
  });
  const status = await muster(["status"], { env });
  expect(status.stdout).toMatch(/carol\s+codex\s+stopped \d+s ago/);
  expect(status.stdout).not.toMatch(/codex\s+crashed|carol crashed/);
});
