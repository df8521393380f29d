import { describe, expect, it } from "vitest";
import { labelFromName } from "./_label.js";
import { chooseLabel, heldLabels, holderOf, leftBehind, ownHeld, shownMembers } from "./index.js";

describe("labelFromName", () => {
  it.each([
    ["Refactor auth module", "refactor-auth-module"],
    ["  --Hello World!!  ", "hello-world"],
    ["ünïcode only", "n-code-only"],
    ["a".repeat(40), "a".repeat(32)],
    ["!!!", undefined],
    ["", undefined],
    [undefined, undefined],
    ["review.v2", "review.v2"],
  ])("%j → %j", (name, label) => {
    expect(labelFromName(name)).toBe(label);
  });
});

describe("chooseLabel", () => {
  const base = { taken: [] as string[], random: () => 0 };
  it.each([
    [
      { ...base, flag: "lead", env: "env", sessionName: "named" },
      { label: "lead", source: "flag" },
    ],
    [
      { ...base, env: "env", sessionName: "named" },
      { label: "env", source: "env" },
    ],
    [
      { ...base, sessionName: "My Session" },
      { label: "my-session", source: "session-name" },
    ],
    [
      { ...base, sessionName: "???" },
      { label: "pi-ash", source: "generated" },
    ],
    [
      { ...base, taken: ["PI-ASH"] },
      { label: "pi-birch", source: "generated" },
    ],
    [
      { ...base, random: () => 0.99 },
      { label: "pi-linden", source: "generated" },
    ],
  ])("%j → %j", (sources, choice) => {
    expect(chooseLabel(sources)).toEqual(choice);
  });

  it("never gives a taken label, even when every word is taken", () => {
    const words = Array.from(
      { length: 20 },
      (_, index) => chooseLabel({ ...base, taken: [], random: () => index / 20 }).label,
    );
    expect(new Set(words).size).toBe(20);
    expect(chooseLabel({ ...base, taken: words })).toEqual({
      label: "pi-ash-2",
      source: "generated",
    });
    expect(chooseLabel({ ...base, taken: [...words, "pi-ash-2"] }).label).toBe("pi-ash-3");
  });
});

describe("who holds a label", () => {
  const members = [
    { id: "a", label: "Lead", holdsLabel: true },
    { id: "b", label: "lead", holdsLabel: false },
    { id: "c", label: "reviewer", holdsLabel: true },
  ];

  it("the holder is found case-insensitively, and a record whose label was taken holds nothing", () => {
    expect(holderOf(members, "LEAD")?.id).toBe("a");
    expect(holderOf(members, "reviewer")?.id).toBe("c");
    expect(holderOf(members, "nobody")).toBeUndefined();
    expect(holderOf([members[1]!], "lead")).toBeUndefined();
  });

  it("the labels held are the ones a generated label must avoid", () => {
    expect(heldLabels(members)).toEqual(["Lead", "reviewer"]);
    const choice = chooseLabel({ taken: heldLabels(members), random: () => 0 });
    expect(heldLabels(members).map((label) => label.toLowerCase())).not.toContain(choice.label);
  });
});

describe("a member's own label, and the members a roster shows", () => {
  const members = [
    { id: "a1", label: "alice", holdsLabel: true, state: "live" },
    { id: "a2", label: "alice", holdsLabel: false, state: "gone" },
    { id: "b1", label: "bob", holdsLabel: true, state: "expired" },
  ];

  it("ownHeld: the session's record while it holds its label, else none", () => {
    expect(ownHeld(members, "a1")?.label).toBe("alice");
    expect(ownHeld(members, "a2")).toBeUndefined();
    expect(ownHeld(members, "nobody")).toBeUndefined();
  });

  it("leftBehind: the live member this process ran as another session, of the same engine", () => {
    const roster = [
      { id: "codex-old", label: "coder", agent: "codex", pid: 30, pidStart: "3000", state: "live" },
      { id: "codex-far", label: "far", agent: "codex", pid: 31, pidStart: "3000", state: "live" },
      { id: "claude-30", label: "cc", agent: "claude", pid: 30, pidStart: "3000", state: "live" },
      { id: "codex-gone", label: "x", agent: "codex", pid: 30, pidStart: "3000", state: "gone" },
    ];
    const self = { id: "codex-new", agent: "codex", pid: 30, pidStart: "3000" };
    expect(leftBehind(roster, self)?.id).toBe("codex-old");
    expect(leftBehind(roster, { ...self, id: "codex-old" })).toBeUndefined();
    expect(leftBehind(roster, { ...self, pidStart: "9999" })).toBeUndefined();
    expect(leftBehind(roster, { ...self, pidStart: undefined })).toBeUndefined();
  });

  it("shownMembers: holding a label and not expired", () => {
    expect(shownMembers(members).map((member) => member.id)).toEqual(["a1"]);
  });
});
