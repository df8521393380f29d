// A record that cannot be read is not a record that is not there. Seen on a team on NATS whose
// server stalled half way through `muster leave` (its read of the record timed out): leave said
// 'member id "a1" is not on the team' — a fact about the team, from a server that said nothing.
import { beforeEach, describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { openFolderStore, openRoster, type Roster, type RosterStore } from "./index.js";

const DIR = "/teams/t";
const now = Date.parse("2026-12-08T00:00:00.000Z");
let roster: Roster;
/** Whether the store's reads of records time out (a stalled server). */
let stalled = false;

beforeEach(async () => {
  stalled = false;
  const memory = memoryFs({ uid: 1, now: () => now });
  const opened = await openFolderStore({ dir: DIR, fs: memory.fs, clock: () => now });
  if (!opened.ok) throw new Error(opened.error);
  const inner = opened.store;
  const store: RosterStore = {
    ...inner,
    get: (space, key) =>
      stalled && space === "sessions"
        ? Promise.reject(Object.assign(new Error("timeout"), { code: "TIMEOUT" }))
        : inner.get(space, key),
  };
  const made = await openRoster({ store, clock: () => now, processes: { alive: () => "unknown" } });
  if (!made.ok) throw new Error(made.error);
  roster = made.roster;
  const joined = await roster.join({
    id: "a1",
    label: "alice",
    agent: "pi",
    pid: 10,
    watching: { armed: true, wake: false },
    liveness: "heartbeat",
  });
  expect(joined).toMatchObject({ ok: true });
});

describe("a record that cannot be read", () => {
  it("is a refusal to leave, not a member that is not on the team", async () => {
    stalled = true;
    const left = await roster.leave("a1");
    expect(left).toMatchObject({ ok: false });
    expect(left.ok ? "" : left.error).toMatch(/cannot read .*timeout/);
    stalled = false;
    // Still on the team once the store answers, and it can leave then.
    expect(await roster.leave("a1")).toEqual({ ok: true, left: true });
  });

  it("is a refusal to beat, not a lost member", async () => {
    stalled = true;
    const beat = await roster.heartbeat("a1");
    expect(beat).toMatchObject({ ok: false });
    expect(beat.ok ? "" : beat.reason).not.toBe("lost");
  });
});
