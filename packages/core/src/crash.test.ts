import { describe, expect, it } from "vitest";
import { absentMembers, bringBack, type EndFacts, memberEnd } from "./_crash.js";

const beat = "2026-01-01T10:00:00.000Z";
const signal = "2026-01-01T10:05:00.000Z";
const found = "2026-01-01T10:07:00.000Z";
const dead = { agent: "codex", id: "t1", state: "gone", reason: "process-dead", heartbeatAt: beat };
const working = { state: "working", since: beat, at: signal, signal: "codex/turn-start" };

describe("how a member ended", () => {
  it.each<[string, EndFacts, ReturnType<typeof memberEnd>]>([
    ["live: nothing ended", { ...dead, state: "live", reason: "process-alive" }, undefined],
    // Another host's member, or one whose beats stopped: nothing proves its process dead here.
    ["stale: not proven dead", { ...dead, reason: "heartbeat-stale" }, undefined],
    ["expired: not proven dead", { ...dead, state: "expired", reason: "past-ttl" }, undefined],
    ["an unreadable record", { ...dead, state: "unknown", reason: "unreadable" }, undefined],
    [
      "dead, no mark, no signal: crashed, last seen at its beat",
      dead,
      { kind: "crashed", at: beat, found: false, last: "unknown" },
    ],
    [
      "dead while working: crashed, last seen at its last signal",
      { ...dead, activity: working },
      { kind: "crashed", at: signal, found: false, last: "working" },
    ],
    [
      "a signal older than the beat: the beat is the last sign of life",
      { ...dead, heartbeatAt: found, activity: working },
      { kind: "crashed", at: found, found: false, last: "working" },
    ],
    [
      "found dead by a watcher: when it was found, what it was doing",
      {
        ...dead,
        activity: {
          state: "gone",
          since: found,
          at: found,
          signal: "muster/process-dead",
          was: "needs-you",
        },
      },
      { kind: "crashed", at: found, found: true, last: "needs-you" },
    ],
    [
      "found dead with no state before",
      {
        ...dead,
        activity: { state: "gone", since: found, at: found, signal: "muster/process-dead" },
      },
      { kind: "crashed", at: found, found: true, last: "unknown" },
    ],
    [
      "muster stop marked it first: stopped, not crashed",
      { ...dead, activity: working, ended: { at: found, by: "stop" } },
      { kind: "stopped", at: found },
    ],
    [
      "muster down marked it first: down",
      { ...dead, ended: { at: found, by: "down" } },
      { kind: "down", at: found },
    ],
    [
      "a mark on a live member changes nothing (its stop did not end it)",
      { ...dead, state: "live", reason: "process-alive", ended: { at: found, by: "stop" } },
      undefined,
    ],
    ["a person's shell that closed did not crash", { ...dead, agent: "bash" }, undefined],
    ["a person joined from a shell by id", { ...dead, agent: "node", id: "shell-12" }, undefined],
  ])("%s", (_name, member, expected) => {
    expect(memberEnd(member)).toEqual(expected);
  });

  it("says what brings it back", () => {
    expect(bringBack("bob")).toBe("muster up bob brings it back");
  });
});

describe("who is down", () => {
  it("declared or taken down, and on the roster in no state but expired: down", () => {
    const declared = [
      { label: "Ann", engine: "pi" },
      { label: "bob", engine: "codex" },
      { label: "cat", engine: "claude" },
      { label: "dan", engine: "pi" },
    ];
    const spawned = [
      { label: "bob", engine: "codex", down: found },
      { label: "eve", engine: "pi", down: found },
      { label: "fay", engine: "pi" },
    ];
    const members = [
      { label: "ann", state: "live" },
      // A crashed member is shown crashed, never down as well.
      { label: "cat", state: "gone" },
      { label: "dan", state: "expired" },
    ];
    expect(absentMembers(declared, spawned, members)).toEqual([
      { label: "bob", engine: "codex", at: found },
      { label: "eve", engine: "pi", at: found },
      { label: "dan", engine: "pi", at: undefined },
    ]);
  });
});
