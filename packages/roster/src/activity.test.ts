// A member's activity in its record: changed under the member's lock (two changers see one
// transition once), refused for a member that left, validated before it is written; a record's
// activity that does not parse (planted, or written before signals had names) never hides it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processFacts } from "@muster/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryTeam } from "../test/memory-team.js";
import { type Activity, openRoster, type Roster } from "./index.js";

const working: Activity = {
  state: "working",
  since: "2026-11-30T12:00:00.000Z",
  at: "2026-11-30T12:00:01.000Z",
  signal: "claude/pre-tool-use",
};

describe("roster.activity", () => {
  let roster: Roster;
  beforeEach(async () => {
    ({ roster } = await memoryTeam({
      dir: "/teams/t",
      clock: () => Date.parse("2026-11-30T12:00:02.000Z"),
      labels: ["alice"],
    }));
  });

  it("hands the change the current fields and keeps what it returns", async () => {
    const first = await roster.activity("s1", () => ({ activity: working }));
    expect(first).toEqual({ ok: true, written: true, before: {}, after: { activity: working } });
    const seen: unknown[] = [];
    const second = await roster.activity("s1", (current) => {
      seen.push(current);
      return { ...current, alertedAt: "2026-11-30T12:00:02.000Z" };
    });
    expect(seen).toEqual([{ activity: working, alertedAt: undefined }]);
    expect(second).toMatchObject({ ok: true, written: true });
    const read = await roster.read();
    expect(read.ok && read.members[0]).toMatchObject({
      activity: working,
      alertedAt: "2026-11-30T12:00:02.000Z",
      heartbeatAt: expect.any(String),
    });
  });

  it("writes nothing when the change returns nothing", async () => {
    expect(await roster.activity("s1", () => undefined)).toMatchObject({
      ok: true,
      written: false,
    });
  });

  it.each([
    ["an unknown state", { ...working, state: "busy-ish" }],
    ["a signal name with control bytes", { ...working, signal: "claude/\u001b[2J" }],
    ["a time that is not one", { ...working, since: "yesterday" }],
  ])("refuses %s with nothing written", async (_name, activity) => {
    const result = await roster.activity("s1", () => ({ activity: activity as Activity }));
    expect(result).toMatchObject({ ok: false, reason: "bad-input" });
    const read = await roster.read();
    expect(read.ok && read.members[0]?.activity).toBeUndefined();
  });

  it("keeps a trouble a change leaves out, clears one it sets undefined, refuses a malformed one", async () => {
    const trouble = { kind: "no-model", words: "No API key found", at: working.at };
    await roster.activity("s1", (current) => ({ ...current, trouble }));
    await roster.activity("s1", () => ({ activity: working }));
    const kept = await roster.read();
    expect(kept.ok && kept.members[0]).toMatchObject({ activity: working, trouble });
    const bad = { ...trouble, kind: "\u001b[2J" };
    expect(await roster.activity("s1", () => ({ trouble: bad }))).toMatchObject({
      ok: false,
      reason: "bad-input",
    });
    await roster.activity("s1", (current) => ({ ...current, trouble: undefined }));
    const cleared = await roster.read();
    expect(cleared.ok && cleared.members[0]?.trouble).toBeUndefined();
  });

  it("a member that left, or an id that is not one, is refused", async () => {
    await roster.leave("s1");
    expect(await roster.activity("s1", () => ({ activity: working }))).toMatchObject({
      ok: false,
      reason: "lost",
    });
    expect(await roster.activity("../s1", () => ({ activity: working }))).toMatchObject({
      ok: false,
      reason: "bad-id",
    });
  });
});

describe("activity in a real team folder", () => {
  let dir: string;
  let roster: Roster;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "muster-activity-"));
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
    if (!opened.ok) throw new Error(opened.error);
    roster = opened.roster;
    await roster.join({
      id: "a1",
      label: "alice",
      agent: "claude",
      pid: process.pid,
      watching: { armed: true, wake: true },
      liveness: "heartbeat",
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("twenty changers at once: each sees the record as the last one left it, one makes the change", async () => {
    const asked: Activity = { ...working, state: "needs-you", signal: "claude/permission-request" };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        roster.activity("a1", (current) =>
          current.activity?.state === "needs-you" ? undefined : { activity: asked },
        ),
      ),
    );
    const written = results.filter((result) => result.ok && result.written);
    expect(written).toHaveLength(1);
    expect(results.every((result) => result.ok)).toBe(true);
  });

  it.each([
    ["planted with a control byte", { state: "idle", at: "x", since: "y", signal: "\u001b" }],
    ["not an object", "working"],
  ])(
    "a record whose activity is %s is still a member, with no activity",
    async (_name, planted) => {
      const file = path.join(dir, "sessions", "a1.json");
      const record = JSON.parse(readFileSync(file, "utf8"));
      writeFileSync(file, JSON.stringify({ ...record, activity: planted }));
      const read = await roster.read();
      expect(read.ok && read.members.map((member) => [member.label, member.activity])).toEqual([
        ["alice", undefined],
      ]);
    },
  );

  it("a planted trouble that is not one (a kind with control bytes, words past any screen) is no trouble", async () => {
    const file = path.join(dir, "sessions", "a1.json");
    const record = JSON.parse(readFileSync(file, "utf8"));
    const at = working.at;
    for (const trouble of [
      { kind: "\u001b[2J", words: "x", at },
      { kind: "no-model", words: "x".repeat(401), at },
      { kind: "no-model", words: "x", at: "never" },
    ]) {
      writeFileSync(file, JSON.stringify({ ...record, trouble }));
      const read = await roster.read();
      expect(read.ok && read.members.map((member) => [member.label, member.trouble])).toEqual([
        ["alice", undefined],
      ]);
    }
  });

  it("an activity written before signals had names is read as working or idle", async () => {
    const file = path.join(dir, "sessions", "a1.json");
    const record = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...record, activity: { state: "busy", at: working.at } }));
    const read = await roster.read();
    expect(read.ok && read.members[0]?.activity).toEqual({
      state: "working",
      since: working.at,
      at: working.at,
      signal: "muster/legacy",
    });
  });
});
