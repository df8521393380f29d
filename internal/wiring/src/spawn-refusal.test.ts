// A spawn refusal keeps what happened and what to do apart; its message is the one rendered line.
import { describe, expect, it } from "vitest";
import { checkLabel } from "./spawn-records.ts";
import { SpawnRefusal } from "./spawn-refusal.ts";

describe("SpawnRefusal", () => {
  it("a label that is not one: the error, the fix apart, and the line joining them", () => {
    let refused: unknown;
    try {
      checkLabel("../etc");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SpawnRefusal);
    expect(refused).toMatchObject({
      reason: "bad-label",
      error: '"../etc" is not a label',
      fix: 'use 1-32 letters, digits, ".", "_" or "-", starting with a letter or digit',
      message:
        '"../etc" is not a label; use 1-32 letters, digits, ".", "_" or "-", starting with a letter or digit',
    });
  });

  it("with no fix, the line is the error alone", () => {
    expect(new SpawnRefusal("worktree-failed", "git could not create it").message).toBe(
      "git could not create it",
    );
  });
});
