import { describe, expect, it } from "vitest";
import { editDistance } from "./_suggest.js";
import { didYouMean, errorLine, nearestName, withSuggestion } from "./index.js";

describe("editDistance: Damerau–Levenshtein (optimal string alignment)", () => {
  it.each([
    ["status", "status", 0],
    ["stauts", "status", 1], // two letters swapped
    ["spwan", "spawn", 1],
    ["claud", "claude", 1], // one missing
    ["bobb", "bob", 1], // one extra
    ["clam", "claim", 1],
    ["Status", "status", 0], // case is not a difference
    ["kitten", "sitting", 3],
    ["", "abc", 3],
    ["ca", "abc", 3], // OSA, not unrestricted Damerau–Levenshtein (which says 2)
  ])("%s → %s is %i", (from, to, distance) => {
    expect(editDistance(from, to)).toBe(distance);
    expect(editDistance(to, from)).toBe(distance);
  });
});

const COMMANDS = [
  "status",
  "go",
  "roster",
  "agents",
  "join",
  "send",
  "spawn",
  "stop",
  "lease",
  "release",
];

describe("nearestName: the one candidate close enough to suggest", () => {
  it.each([
    ["stauts", COMMANDS, "status"],
    ["spwan", COMMANDS, "spawn"],
    ["statsu", COMMANDS, "status"],
    ["relase", COMMANDS, "release"],
    ["claud", ["pi", "codex", "claude", "git-hook", "tmux"], "claude"],
    ["bobb", ["alice", "bob"], "bob"],
    ["clam", ["list", "show", "add", "claim", "done", "drop", "handoff", "ask", "lead"], "claim"],
    ["BOB", ["alice", "bob"], "bob"], // any case: labels are the same in any case
    ["gp", COMMANDS, "go"], // a two-letter word may be one edit off
  ])("%s among its candidates is %s", (word, candidates, nearest) => {
    expect(nearestName(word, candidates)).toBe(nearest);
  });

  it.each([
    ["frobnicate", COMMANDS], // nothing near
    ["x", COMMANDS], // one letter is too short to guess from
    ["zz", ["go"]], // two edits of two letters is a different word
    ["stat", COMMANDS], // two edits off a six-letter word: too far for a word of four
    ["lead", ["leas", "leae"]], // a tie: no one suggestion is the nearest
    ["anything", []],
  ])("%s among its candidates has none", (word, candidates) => {
    expect(nearestName(word, candidates)).toBeUndefined();
  });

  it("takes any iterable and never suggests the word itself back as a guess", () => {
    expect(nearestName("bob", new Set(["bob", "rob"]))).toBe("bob");
    expect(nearestName("stuats", new Set(COMMANDS))).toBe("status");
  });
});

describe("didYouMean: the clause a refusal carries", () => {
  it.each([
    ["status", 'did you mean "status"?'],
    [undefined, ""],
  ])("%s → %j", (suggestion, clause) => {
    expect(didYouMean(suggestion)).toBe(clause);
  });
});

describe("withSuggestion: a failure that names an unknown word", () => {
  const failure = { ok: false, reason: "no-such-member", error: "no live member is called bobb" };
  it("leads the fix with the clause and carries the suggestion", () => {
    const suggested = withSuggestion(
      { ...failure, fix: "muster status lists the members" },
      "bobb",
      ["bob"],
    );
    expect(suggested).toMatchObject({ reason: "no-such-member", suggestion: "bob" });
    expect(errorLine(suggested)).toBe(
      'no live member is called bobb; did you mean "bob"? muster status lists the members',
    );
  });
  it("is the clause alone where there was no fix, and unchanged when nothing is near", () => {
    expect(errorLine(withSuggestion(failure, "bobb", ["bob"]))).toBe(
      'no live member is called bobb; did you mean "bob"?',
    );
    expect(withSuggestion(failure, "bobb", ["alice"])).toBe(failure);
  });
});
