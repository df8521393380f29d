import { describe, expect, it } from "vitest";
import {
  BRAKE_WORDS,
  CONVERSATION_TURNS,
  CONVERSATION_WINDOW_MS,
  conversationTurns,
  decideDelivery,
  heldWords,
} from "./index.js";
import { brakeLine } from "./internal.js";

const NOW = 50_000_000;

describe("conversationTurns", () => {
  const turns = conversationTurns();
  it("is the budget: 12 slots, each free once older than 10 minutes", () => {
    expect(turns.slots).toBe(CONVERSATION_TURNS);
    expect(CONVERSATION_TURNS).toBe(12);
    expect(CONVERSATION_WINDOW_MS).toBe(600_000);
  });
  it.each([
    { rule: "taken within the window: not free", takenAt: NOW - 1_000, free: false },
    { rule: "taken a window ago: free", takenAt: NOW - CONVERSATION_WINDOW_MS, free: true },
    {
      rule: "dated more than a window ahead (a planted slot): free",
      takenAt: NOW + CONVERSATION_WINDOW_MS + 1,
      free: true,
    },
    { rule: "a date that is no number: free", takenAt: Number.NaN, free: true },
  ])("$rule", ({ takenAt, free }) => {
    expect(turns.free(takenAt, NOW)).toBe(free);
  });
  it("a hold frees with the oldest slot, never later than a window from now", () => {
    expect(turns.hold([NOW - 60_000, NOW - 1_000], NOW)).toEqual({
      words: BRAKE_WORDS,
      retryAfter: NOW - 60_000 + CONVERSATION_WINDOW_MS,
    });
    expect(turns.hold([NOW + 10 * CONVERSATION_WINDOW_MS], NOW).retryAfter).toBe(
      NOW + CONVERSATION_WINDOW_MS,
    );
  });
});

describe("the brake in delivery and words", () => {
  const wakes = { armed: true, wake: true };
  it("braked mail is delivered and wakes no one; unbraked mail still wakes", () => {
    expect(decideDelivery({ id: "m", braked: true }, wakes, [], NOW)).toEqual({
      action: "deliver",
      wake: false,
      reason: "loop-brake",
    });
    expect(decideDelivery({ id: "m", braked: false }, wakes, [], NOW)).toMatchObject({
      wake: true,
    });
    expect(
      decideDelivery({ id: "m", braked: true }, { armed: false, wake: false }, [], NOW),
    ).toEqual({ action: "hold", reason: "not-listening" });
  });
  it("a sender's --wait says why, without a time it would wake", () => {
    expect(heldWords({ words: BRAKE_WORDS, retryAfter: new Date(NOW).toISOString() })).toBe(
      "held by the loop brake: this conversation had 12 messages in 10 minutes; it is read at their next turn or from their inbox, and wakes no one",
    );
  });
  it("the lead and the person read who and which conversation", () => {
    expect(brakeLine(["a", "b", "c"], "m1")).toBe(
      "Loop brake: a conversation among a, b, c passed 12 messages in 10 minutes; its mail still arrives but wakes no one (conversation m1).",
    );
  });
});
