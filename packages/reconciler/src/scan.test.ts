// One scan as a pure function: evidence newer than what it judges, and misses, as rows.
import { describe, expect, it } from "vitest";
import { expectRow, found, oneMiss, type Row, run, scan, tracked } from "../test/scan-rows.js";

describe("evidence must be newer than what it judges", () => {
  it.each<[string, Row]>([
    [
      "an agent registered while the scan ran, its process unseen, is not a miss",
      {
        before: [],
        after: [tracked("a", "%1", 10)],
        result: scan([], ["%1"]),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "an agent registered while the scan ran, its process seen, is not discovered a second time",
      {
        before: [],
        after: [tracked("a", "%1", 10, { bound: true })],
        result: scan([found("%1", 10)], ["%1"]),
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "an agent moved while the scan ran is not judged at its old pane, nor minted there",
      {
        before: [tracked("a", "%1", 10, { bound: true })],
        after: [tracked("a", "%5", 11, { bound: true, generation: 1 })],
        result: scan([found("%1", 10)], ["%1", "%5"]),
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "a change undone while the scan ran is still a change (the generation moved)",
      {
        before: [tracked("a", "%1", 10)],
        after: [tracked("a", "%1", 10, { generation: 2 })],
        result: scan([], []),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "an agent the registry dropped while the scan ran is not rediscovered by that scan",
      {
        before: [tracked("a", "%1", 10)],
        after: [],
        result: scan([found("%1", 10)], ["%1"]),
        expected: {},
      },
    ],
    [
      "a seatKey held at any time since the scan started is skipped by both halves",
      {
        after: [tracked("a", "%1", 10, { bound: true })],
        result: scan([found("%1", 11)], ["%1"]),
        held: ["srv#%1"],
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "an agent nothing happened to is judged as before",
      {
        after: [tracked("a", "%1", 10), tracked("b", "%2", 20)],
        result: scan([found("%2", 20)], []),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { observed: ["b=20"], removed: ["a"] },
      },
    ],
  ])("%s", (_, row) => expectRow(row));
});

describe("misses", () => {
  it.each<[string, Row]>([
    [
      "a second confirmed miss in a live pane makes it dormant",
      {
        after: [tracked("a", "%1", 10)],
        result: scan([], ["%1"]),
        misses: [["a", { against: "pi:10:1\u0000srv#%1", dormant: 1, gone: 0 }]],
        expected: { dormant: ["a"] },
      },
    ],
    [
      "a miss counted against another identity does not carry over (restarted: new pid)",
      {
        after: [tracked("a", "%1", 12)],
        result: scan([], ["%1"]),
        misses: [["a", { against: "pi:10:1\u0000srv#%1", dormant: 1, gone: 0 }]],
        expected: {},
      },
    ],
    [
      "a miss counted against another pane does not carry over",
      {
        after: [tracked("a", "%2", 10)],
        result: scan([], []),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: {},
      },
    ],
    [
      "an agent already dormant is not made dormant again",
      {
        after: [tracked("a", "%1", 10, { state: "dormant" })],
        result: scan([], ["%1"]),
        misses: [["a", { against: "pi:10:1\u0000srv#%1", dormant: 1, gone: 0 }]],
        expected: {},
      },
    ],
  ])("%s", (_, row) => expectRow(row));

  it("the count restarts with a new identity and reaches dormant only after two fresh misses", () => {
    const first = run({
      after: [tracked("a", "%1", 12)],
      result: scan([], ["%1"]),
      misses: [["a", { against: "pi:10:1\u0000srv#%1", dormant: 1, gone: 0 }]],
      expected: {},
    });
    expect(first.memory.misses.get("a")).toEqual({
      against: "pi:12:1\u0000srv#%1",
      dormant: 1,
      gone: 0,
    });
  });
});
