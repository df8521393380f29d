import { beforeEach, describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { openFolderStore, openRoster, type Roster, type RosterStore } from "./index.js";

const DIR = "/teams/t";
let now = 0;
let listed: string[];
let roster: Roster;

/** A team of alice (s1), bob (s2) and carol (s3) on a store that notes every space listed. */
beforeEach(async () => {
  now = Date.parse("2026-11-30T12:00:00.000Z");
  const memory = memoryFs({ uid: 1, now: () => now });
  const opened = await openFolderStore({ dir: DIR, fs: memory.fs, clock: () => now });
  if (!opened.ok) throw new Error(opened.error);
  const inner = opened.store;
  listed = [];
  const store: RosterStore = {
    ...inner,
    list: (space) => {
      listed.push(space);
      return inner.list(space);
    },
  };
  const made = await openRoster({ store, clock: () => now, processes: { alive: () => "unknown" } });
  if (!made.ok) throw new Error(made.error);
  roster = made.roster;
  for (const [index, label] of ["alice", "bob", "carol"].entries())
    await roster.join({
      id: `s${index + 1}`,
      label,
      agent: "pi",
      pid: 10,
      watching: { armed: true, wake: true },
      liveness: "heartbeat",
    });
  listed = [];
});

describe("a send to one label", () => {
  // A team of a thousand is listed whole otherwise, on every send: on NATS that is the most of
  // a send's time (issue 27).
  it.each([
    ["an id", "s1"],
    ["a label", "ALICE"],
  ])("from %s reads the records it names by key and lists no space", async (_case, from) => {
    const sent = await roster.send({ from, to: "Bob", body: "hi" });
    expect(sent).toMatchObject({ ok: true, to: [{ id: "s2", label: "bob" }] });
    expect(listed.filter((space) => space === "sessions" || space === "labels")).toEqual([]);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((each) => each.from)).toEqual([
      { id: "s1", label: "alice" },
    ]);
  });

  it("from a guest lists no space either", async () => {
    const sent = await roster.send({ from: "outsider", to: "bob", body: "hi", guest: "board" });
    expect(sent).toMatchObject({ ok: true, to: [{ id: "s2" }] });
    expect(listed.filter((space) => space === "sessions" || space === "labels")).toEqual([]);
  });
});
