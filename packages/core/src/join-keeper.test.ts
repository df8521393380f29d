import { describe, expect, it } from "vitest";
import { joinKeeper } from "./index.js";

const shell = { agent: "codex", pid: 900, start: "s900" };

describe("joinKeeper: the process a join records as keeping the member live", () => {
  it.each([
    ["not on the team: the caller's own process", undefined, { pid: 900, start: "s900" }],
    [
      "a session another door joined for the same engine: its record's process",
      { agent: "codex", pid: 100, pidStart: "s100" },
      { pid: 100, start: "s100" },
    ],
    [
      "a record of another engine: the caller's own process",
      { agent: "claude", pid: 100, pidStart: "s100" },
      { pid: 900, start: "s900" },
    ],
    [
      "a record with no start time: its process, start unknown",
      { agent: "codex", pid: 100 },
      { pid: 100, start: undefined },
    ],
  ] as const)("%s", (_name, own, expected) => {
    expect(joinKeeper(own, shell)).toEqual(expected);
  });
});
