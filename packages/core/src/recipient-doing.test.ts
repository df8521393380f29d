// What a sender is told of a recipient: its state, and when it will see the mail because of it.
import { describe, expect, it } from "vitest";
import { ACTIVITY_STATES } from "./_activity.js";
import { recipientLine } from "./_recipient-doing.js";

describe("a recipient's line", () => {
  it.each([
    ["working", "wakes", "alice is working: will see it when this turn ends"],
    ["working", "next-turn", "alice is working: will see it when this turn ends"],
    ["working", "not-pushed", "alice is working: will see it only when they read their inbox"],
    [
      "needs-you",
      "wakes",
      "alice is waiting for you: will see it once you answer it and its turn ends",
    ],
    [
      "needs-you",
      "not-pushed",
      "alice is waiting for you: will see it only when they read their inbox",
    ],
    ["idle", "wakes", "alice is idle: will see it now (it wakes them)"],
    ["idle", "next-turn", "alice is idle: will see it at their next turn"],
    ["starting", "wakes", "alice is starting: will see it now (it wakes them)"],
    ["unknown", "wakes", "alice: will see it now (it wakes them)"],
    ["gone", "next-turn", "alice: will see it at their next turn"],
  ] as const)("%s, %s → %s", (state, reach, line) => {
    expect(recipientLine("alice", reach, state)).toBe(line);
  });

  it("never promises 'now' to a recipient that is in a turn or waiting for the person", () => {
    for (const state of ["working", "needs-you"] as const)
      for (const reach of ["wakes", "next-turn"] as const)
        expect(recipientLine("alice", reach, state)).not.toContain("now");
  });

  it("says a state only where one is known", () => {
    const said = ACTIVITY_STATES.filter(
      (state) => recipientLine("a", "wakes", state) !== "a: will see it now (it wakes them)",
    );
    expect(said).toEqual(["working", "idle", "needs-you", "starting", "trouble"]);
    expect(recipientLine("bob", "wakes", "trouble")).toBe(
      "bob cannot run a turn: it waits until its engine can run a turn (see its pane)",
    );
  });
});
