import { describe, expect, it } from "vitest";
import { heldWake } from "./_wake-rate.js";
import { DEFAULT_WAKE_POLICY, wakeRate, wakeRateSetting } from "./index.js";

describe("MUSTER_WAKE_PER_MINUTE", () => {
  it.each([
    [undefined, 6],
    ["", 6],
    ["2", 2],
    [" 12 ", 12],
    ["64", 64],
  ])("%j: %i wakes a minute", (value, wakes) => {
    expect(wakeRateSetting({ MUSTER_WAKE_PER_MINUTE: value })).toEqual({
      ok: true,
      policy: { ...DEFAULT_WAKE_POLICY, maxWakes: wakes },
    });
  });

  it.each(["0", "65", "-1", "2.5", "lots", "1e2"])("%j is refused, the default kept", (value) => {
    expect(wakeRateSetting({ MUSTER_WAKE_PER_MINUTE: value })).toMatchObject({
      ok: false,
      reason: "bad-wake-rate",
      policy: DEFAULT_WAKE_POLICY,
    });
  });
});

describe("the shared wake rate", () => {
  it("gives a member the policy's wakes as slots, each free once older than the window", () => {
    const rate = wakeRate(DEFAULT_WAKE_POLICY);
    expect(rate.slots).toBe(6);
    expect(rate.free(0, 59_999)).toBe(false);
    expect(rate.free(0, 60_000)).toBe(true);
    expect(wakeRate({ ...DEFAULT_WAKE_POLICY, maxWakes: 10_000 }).slots).toBe(64);
    expect(wakeRate({ ...DEFAULT_WAKE_POLICY, maxWakes: 0 }).slots).toBe(0);
  });

  it("holds a wake until the oldest slot frees, in the sender's words", () => {
    expect(heldWake([5_000, 2_000, 9_000], 10_000)).toEqual({
      reason: "rate-limited",
      retryAfter: 62_000,
      words: "6 wakes in the last minute",
    });
    // No slot at all (a policy of none): a window from now.
    const none = heldWake([], 10_000, { maxHops: 4, maxWakes: 1, windowMs: 30_000 });
    expect(none).toEqual({
      reason: "rate-limited",
      retryAfter: 40_000,
      words: "1 wake in the last 30 s",
    });
  });

  it("takes a slot dated further ahead than a window for free, and never holds past a window", () => {
    const rate = wakeRate(DEFAULT_WAKE_POLICY);
    const year9999 = Date.parse("9999-01-01T00:00:00Z");
    expect(rate.free(year9999, 10_000)).toBe(true);
    expect(rate.free(Number.NaN, 10_000)).toBe(true);
    // A little ahead (a neighbour's clock) still counts as taken.
    expect(rate.free(10_000 + 5_000, 10_000)).toBe(false);
    expect(heldWake([year9999, year9999], 10_000).retryAfter).toBe(70_000);
  });
});
