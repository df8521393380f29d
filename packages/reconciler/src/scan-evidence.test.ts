// One scan as a pure function: no answer is no evidence, and identity and placement, as rows.
import { describe, expect, it } from "vitest";
import { expectRow, found, oneMiss, type Row, run, scan, tracked } from "../test/scan-rows.js";

describe("no answer is no evidence", () => {
  it.each<[string, Row]>([
    [
      "the process table could not be read (or the scan timed out)",
      {
        after: [tracked("a", "%1", 10)],
        result: { ok: false, error: "the scan did not answer within 10000 ms" },
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: {},
      },
    ],
    [
      "its server did not answer",
      {
        after: [tracked("a", "%1", 10)],
        result: scan([], [], { unavailable: ["srv"] }),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "an agent that names no server, while any server did not answer",
      {
        after: [tracked("a", "%1", 10, { server: undefined })],
        result: scan([], [], { unavailable: ["another"] }),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "its server was not among those that answered",
      {
        after: [tracked("a", "%1", 10, { server: "elsewhere" })],
        result: scan([], [], { answered: ["srv"] }),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "an ambiguous placement",
      {
        after: [tracked("a", "%1", 10)],
        result: scan([], ["%1"], { ambiguous: [{ seatKey: "srv#%1" }] }),
        misses: [["a", { against: "pi:10:1\u0000srv#%1", dormant: 1, gone: 0 }]],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "a per-pane check that answered unknown",
      {
        after: [tracked("a", "%1", 10)],
        result: scan([], ["%1"], { unknown: ["srv#%1"] }),
        misses: [["a", { against: "pi:10:1\u0000srv#%1", dormant: 1, gone: 0 }]],
        expected: { unjudged: ["a"] },
      },
    ],
    [
      "but an agent that names no server is judged when every server answered",
      {
        after: [tracked("a", "%1", 10, { server: undefined })],
        result: scan([], []),
        misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
        expected: { removed: ["a"] },
      },
    ],
  ])("%s", (_, row) => expectRow(row));

  it("an unjudged agent keeps its count: it neither grows nor is forgotten", () => {
    const outcome = run({
      after: [tracked("a", "%1", 10)],
      result: scan([], [], { unavailable: ["srv"] }),
      misses: [oneMiss("a", "pi:10:1\u0000srv#%1")],
      expected: {},
    });
    expect(outcome.memory.misses.get("a")).toEqual({
      against: "pi:10:1\u0000srv#%1",
      dormant: 1,
      gone: 1,
    });
    expect(outcome.availability).toEqual([{ server: "srv", available: false }]);
  });
});

describe("identity and placement", () => {
  it.each<[string, Row]>([
    [
      "an agent never bound is matched by its pane",
      {
        after: [tracked("a", "%1", 10)],
        result: scan([found("%1", 77)], ["%1"]),
        expected: { observed: ["a=77"] },
      },
    ],
    [
      "a bound agent whose process is not known yet is matched by its pane, not minted again",
      {
        after: [tracked("a", "%1", undefined, { bound: true })],
        result: scan([found("%1", 77)], ["%1"]),
        expected: { observed: ["a=77"] },
      },
    ],
    [
      "a bound agent with a known process is not matched by pane: a new process is a new agent",
      {
        after: [tracked("a", "%1", 10, { bound: true })],
        result: scan([found("%1", 77)], ["%1"]),
        expected: { discovered: [77] },
      },
    ],
    [
      "a pane match needs the same engine",
      {
        after: [tracked("a", "%1", undefined)],
        result: scan([found("%1", 77, "codex")], ["%1"]),
        expected: { discovered: [77] },
      },
    ],
    [
      "an agent whose own process is still seen elsewhere does not take a newcomer in its pane",
      {
        after: [tracked("a", "%1", 10)],
        result: scan([found("%5", 10), found("%1", 77)], ["%1", "%5"]),
        expected: { observed: ["a=10"], discovered: [77] },
      },
    ],
    [
      "a suppressed process is not discovered",
      {
        after: [],
        result: scan([found("%1", 10)], ["%1"]),
        suppressed: ["10:1"],
        expected: {},
      },
    ],
  ])("%s", (_, row) => expectRow(row));

  it.each<[string, string[], string[]]>([
    ["a suppression ends once a scan proves its process gone", [], []],
    ["one made after the scan started outlives it", ["10:1"], ["10:1"]],
  ])("%s", (_, fresh, kept) => {
    const outcome = run({
      after: [],
      result: scan([], []),
      suppressed: ["10:1"],
      fresh,
      expected: {},
    });
    expect([...outcome.memory.suppressed]).toEqual(kept);
  });
});
