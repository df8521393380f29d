// A watcher that finds a member dead (the pi extension's heartbeat, noticeDeaths) marks it gone and
// keeps what it was doing: the crash is then shown with when it was found and its last state.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { memberEnd } from "@muster/core";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster } from "@muster/roster";
import { eventually } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import { noticeDeaths } from "./activity.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("a member found dead while working: crashed when found, last working; found once", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-wiring-deaths-"));
  dirs.push(dir);
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  const { roster } = opened;
  const child = spawn("sleep", ["30"]);
  const pid = child.pid!;
  await roster.join({
    id: "t1",
    label: "bob",
    agent: "codex",
    pid,
    pidStart: processStart(pid),
    watching: { armed: true, wake: true },
    liveness: "process",
  });
  const then = new Date(Date.now() - 60_000).toISOString();
  await roster.activity("t1", () => ({
    activity: { state: "working", since: then, at: then, signal: "codex/turn-start" },
  }));
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  const read = await eventually(
    () => roster.read(),
    (result) => result.ok && result.members[0]?.state === "gone",
    "bob gone",
  );
  const before = Date.now();
  expect(await noticeDeaths(roster, read.ok ? read.members : [])).toHaveLength(1);
  const after = await roster.read();
  const bob = after.ok ? after.members[0] : undefined;
  expect(bob?.activity).toMatchObject({ state: "gone", was: "working" });
  const end = bob && memberEnd(bob);
  expect(end).toMatchObject({ kind: "crashed", found: true, last: "working" });
  expect(Date.parse(end?.at ?? "")).toBeGreaterThanOrEqual(before - 1000);
  expect(await noticeDeaths(roster, after.ok ? after.members : [])).toHaveLength(0);
});
