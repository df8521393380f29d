// The person is told a few things a minute, never a flood: 30 members found dead at once (planted
// records, or a host that went down) are one line on a real attached tmux client (on a
// pseudo-terminal, through `script`), and alerts about different members share the team's few
// slots a minute across every process that raises them. Nor is a member silenced: a record dated
// a year ahead still lets its next wait reach that client.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ALERTS_PER_MINUTE } from "@muster/core/internal";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import {
  type AttachedClient,
  attachClient,
  eventually,
  type PrivateTmux,
  startPrivateTmux,
} from "@muster/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { noticeDeaths, reportSignal } from "./activity.ts";
import { alertAbout, alertDeaths } from "./attention.ts";

let dir: string;
let roster: Roster;
let tmux: PrivateTmux;
let client: AttachedClient;
let other: string;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "muster-wiring-flood-"));
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  roster = opened.roster;
  tmux = startPrivateTmux({ command: "sleep 600" });
  tmux.tmux("new-window", "-d", "-t", "main", "sleep 600");
  other = tmux.tmux("list-panes", "-t", "main:1", "-F", "#{pane_id}").trim();
  client = await attachClient(tmux, path.join(dir, "client-screen"));
});
afterEach(() => {
  client.close();
  tmux.kill();
  rmSync(dir, { recursive: true, force: true });
});

const options = () => ({ env: { MUSTER_ATTENTION: "message" }, run: tmux.run });

async function members(count: number, pid: number, pidStart: string | undefined) {
  for (let index = 0; index < count; index += 1) {
    const joined = await roster.join({
      id: `m${index}`,
      label: `member${index}`,
      agent: "claude",
      pid,
      pidStart,
      seat: { server: tmux.socket, session: "$0", pane: other },
      watching: { armed: true, wake: true },
      liveness: "process",
    });
    expect(joined).toMatchObject({ ok: true });
  }
}

describe("no alert flood", () => {
  it("30 members dead at once are one line on the person's client", async () => {
    const child = spawn("sleep", ["30"]);
    const pid = child.pid!;
    await members(30, pid, processStart(pid));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const read = await eventually(
      () => roster.read(),
      (result) => result.ok && result.members.every((member) => member.state === "gone"),
      "every member to be gone",
    );
    const noticed = await noticeDeaths(roster, read.ok ? read.members : []);
    expect(noticed).toHaveLength(30);
    const outcomes = await alertDeaths(roster, noticed, options());
    expect(outcomes.filter((outcome) => outcome && outcome.told.length > 0)).toHaveLength(1);
    await eventually(
      () => client.drawn(),
      (text) => text.includes("muster: 30 members gone (their processes ended): member"),
      "the one line drawn",
    );
  });

  it("alerts about different members share a few slots a minute, across the team", async () => {
    await members(6, process.pid, processStart(process.pid));
    let told = 0;
    for (let index = 0; index < 6; index += 1) {
      const outcome = await alertAbout(roster, `m${index}`, "needs-you", options());
      if (outcome && outcome.told.length > 0) told += 1;
    }
    expect(told).toBe(ALERTS_PER_MINUTE);
  });

  it("a record dated a year ahead does not silence its member: its next wait is drawn on the client", async () => {
    await members(1, process.pid, processStart(process.pid));
    // Another process (a member on another host, a clock stepped back, a planted record) dates
    // the member's activity and its last alert a year ahead.
    const file = path.join(dir, "sessions", "m0.json");
    const ahead = new Date(Date.now() + 365 * 24 * 3_600_000).toISOString();
    const record = JSON.parse(readFileSync(file, "utf8"));
    const activity = { state: "working", since: ahead, at: ahead, signal: "claude/pre-tool-use" };
    writeFileSync(file, JSON.stringify({ ...record, activity, alertedAt: ahead }));
    const read = await roster.read();
    expect(read.ok && read.members[0]?.activity).toMatchObject({ state: "working" });
    const signal = { engine: "claude", signal: "permission-request", at: Date.now() };
    expect(await reportSignal(roster, "m0", signal)).toMatchObject({ attention: "needs-you" });
    const outcome = await alertAbout(roster, "m0", "needs-you", options());
    expect(outcome?.told.length).toBeGreaterThan(0);
    await eventually(
      () => client.drawn(),
      (text) => text.includes("muster: member0 needs you"),
      "the alert drawn",
    );
  });
});
