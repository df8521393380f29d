// Feeding signals in: two receivers of one signal record it once and only one is told to raise
// it; a death is noticed once however many watchers look; and an alert reaches a real attached
// tmux client (on a pseudo-terminal, through `script`: tmux 3.3a shows a control-mode client no
// message at all) — unless that client shows the member's own pane.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import {
  type AttachedClient,
  attachClient,
  eventually,
  type PrivateTmux,
  startPrivateTmux,
} from "@muster/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memberActivity, noticeDeaths, recordTrouble, reportSignal } from "./activity.ts";
import { raiseAlert } from "./attention.ts";

let dir: string;
let roster: Roster;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "muster-wiring-activity-"));
  const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
  if (!opened.ok) throw new Error(opened.error);
  roster = opened.roster;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const join = (id: string, label: string, pid = process.pid, pidStart?: string) =>
  roster.join({
    id,
    label,
    agent: "claude",
    pid,
    pidStart,
    watching: { armed: true, wake: true },
    liveness: "process",
  });

describe("reportSignal", () => {
  it("one signal from two receivers: recorded once, and raised by one", async () => {
    await join("c1", "writer");
    const at = Date.now();
    await reportSignal(roster, "c1", { engine: "claude", signal: "user-prompt-submit", at });
    const report = { engine: "claude", signal: "permission-request", at: at + 100 };
    const [first, second] = await Promise.all([
      reportSignal(roster, "c1", report),
      reportSignal(roster, "c1", report),
    ]);
    const raised = [first, second].filter((outcome) => outcome.attention === "needs-you");
    expect(raised).toHaveLength(1);
    const read = await roster.read();
    expect(read.ok && read.members[0]).toMatchObject({
      activity: { state: "needs-you", signal: "claude/permission-request", resume: "working" },
      alertedAt: expect.any(String),
    });
  });

  it("a burst raises once: the next wait within the quiet time is recorded but not raised", async () => {
    await join("c1", "writer");
    const at = Date.now();
    const send = (signal: string, offset: number) =>
      reportSignal(roster, "c1", { engine: "claude", signal, at: at + offset });
    expect((await send("permission-request", 0)).attention).toBe("needs-you");
    expect((await send("pre-tool-use", 10)).recorded).toBe(true);
    const again = await send("permission-request", 20);
    expect(again).toMatchObject({ recorded: true, attention: undefined });
  });

  it("a signal for a member that left records nothing", async () => {
    await join("c1", "writer");
    await roster.leave("c1");
    const outcome = await reportSignal(roster, "c1", {
      engine: "claude",
      signal: "stop",
      at: Date.now(),
    });
    expect(outcome).toMatchObject({ recorded: false, attention: undefined });
  });
});

describe("recordTrouble", () => {
  const said = { kind: "no-model", words: "Error: No API key found for anthropic." };
  const bob = async () => {
    const read = await roster.read();
    const member = read.ok ? read.members.find((each) => each.label === "bob") : undefined;
    if (!member) throw new Error("bob is not on the team");
    return member;
  };

  it("a member whose engine cannot run a turn is shown in trouble, even after its failed turn ends idle", async () => {
    await join("p1", "bob");
    const began = Date.now() - 1000;
    await reportSignal(roster, "p1", { engine: "claude", signal: "user-prompt-submit", at: began });
    expect(await recordTrouble(roster, "bob", said)).toBe(true);
    // The failed turn's end, reported after the trouble was kept: still trouble.
    await reportSignal(roster, "p1", { engine: "claude", signal: "stop", at: began + 10 });
    const view = memberActivity(await bob(), Date.now(), {});
    expect(view).toMatchObject({ state: "trouble", reason: "trouble", trouble: said });
  });

  it("a turn begun after it clears it from the record", async () => {
    await join("p1", "bob");
    await recordTrouble(roster, "bob", said, () => Date.now() - 1000);
    await reportSignal(roster, "p1", {
      engine: "claude",
      signal: "user-prompt-submit",
      at: Date.now(),
    });
    const member = await bob();
    expect(member.trouble).toBeUndefined();
    expect(memberActivity(member, Date.now(), {}).state).toBe("working");
  });

  it("no live member under the label: nothing written", async () => {
    expect(await recordTrouble(roster, "nobody", said)).toBe(false);
  });
});

describe("noticeDeaths", () => {
  it("a member whose process is proven dead is marked gone once, however many watchers look", async () => {
    const child = spawn("sleep", ["30"]);
    const pid = child.pid!;
    const { processStart } = await import("@muster/node");
    await join("c2", "goner", pid, processStart(pid));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const read = await eventually(
      () => roster.read(),
      (result) => result.ok && result.members[0]?.state === "gone",
      "the member to be gone",
    );
    const members = read.ok ? read.members : [];
    const [one, two] = await Promise.all([
      noticeDeaths(roster, members),
      noticeDeaths(roster, members),
    ]);
    expect(one.length + two.length).toBe(1);
    expect(await noticeDeaths(roster, (await roster.read()).ok ? members : [])).toEqual([]);
  });
});

describe("raiseAlert on a real tmux client", () => {
  let tmux: PrivateTmux;
  let client: AttachedClient;
  let screen: string;
  beforeEach(async () => {
    tmux = startPrivateTmux({ command: "sleep 600" });
    tmux.tmux("new-window", "-d", "-t", "main", "sleep 600");
    // A real client on a pseudo-terminal; what tmux draws on it lands in `screen`.
    screen = path.join(dir, "client-screen");
    client = await attachClient(tmux, screen);
  });
  afterEach(() => {
    client.close();
    tmux.kill();
  });

  const drawn = () => client.drawn();

  const panes = () =>
    tmux
      .tmux("list-panes", "-s", "-t", "main", "-F", "#{pane_id} #{pane_active} #{window_active}")
      .trim()
      .split("\n")
      .map((line) => line.split(" "));

  it("tells a client that shows another pane, and flags the member's window", async () => {
    const other = panes().find(([, , windowActive]) => windowActive === "0")![0]!;
    const outcome = await raiseAlert(
      { line: "writer needs you", seat: { server: tmux.socket, pane: other } },
      { env: { MUSTER_ATTENTION: "message bell" }, run: tmux.run },
    );
    expect(outcome).toMatchObject({ looking: false, belled: true });
    expect(outcome.told).toHaveLength(1);
    await eventually(
      drawn,
      (text) => text.includes("muster: writer needs you"),
      "the message drawn",
    );
    const flag = await eventually(
      () => tmux.tmux("display-message", "-p", "-t", other, "#{window_bell_flag}").trim(),
      (value) => value === "1",
      "the member's window to be flagged",
    );
    expect(flag).toBe("1");
  });

  it("says nothing when the client shows the member's own pane", async () => {
    const shown = panes().find(
      ([, active, windowActive]) => active === "1" && windowActive === "1",
    )![0]!;
    const outcome = await raiseAlert(
      { line: "writer needs you", seat: { server: tmux.socket, pane: shown } },
      { env: { MUSTER_ATTENTION: "message bell desktop" }, run: tmux.run, notify: () => {} },
    );
    expect(outcome).toMatchObject({ looking: true, told: [], belled: false, desktop: undefined });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(drawn()).not.toContain("writer needs you");
  });

  it("the setting turns channels off, and tmux's @muster-attention is read", async () => {
    tmux.tmux("set-option", "-g", "@muster-attention", "off");
    const other = panes().find(([, , windowActive]) => windowActive === "0")![0]!;
    const outcome = await raiseAlert(
      { line: "writer needs you", seat: { server: tmux.socket, pane: other } },
      { env: {}, run: tmux.run },
    );
    expect(outcome).toMatchObject({ looking: false, channels: [], told: [], belled: false });
  });
});
