import { describe, expect, it } from "vitest";
import { activityAfter, BUSY_BELIEVED_MS, believedActivity, wakeFromOutside } from "./_activity.js";

describe("activity", () => {
  it.each([
    ["session-start", "idle"],
    ["turn-start", "busy"],
    ["turn-continued", "busy"],
    ["turn-end", "idle"],
    ["idle-prompt", "idle"],
  ] as const)("%s leaves the member %s", (signal, state) => {
    expect(activityAfter(signal)).toBe(state);
  });

  it("a busy mark is believed for BUSY_BELIEVED_MS, an idle one always", () => {
    const now = 10 * BUSY_BELIEVED_MS;
    expect(believedActivity(undefined, now)).toBeUndefined();
    expect(believedActivity({ state: "busy", at: now - BUSY_BELIEVED_MS }, now)).toBe("busy");
    expect(
      believedActivity({ state: "busy", at: now - BUSY_BELIEVED_MS - 1 }, now),
    ).toBeUndefined();
    expect(believedActivity({ state: "idle", at: 0 }, now)).toBe("idle");
  });

  it("mail wakes from outside unless the member's own turn will take it", () => {
    const now = 5 * BUSY_BELIEVED_MS;
    expect(wakeFromOutside(undefined, now)).toBe(true);
    expect(wakeFromOutside({ state: "idle", at: now }, now)).toBe(true);
    expect(wakeFromOutside({ state: "busy", at: now - 1000 }, now)).toBe(false);
    expect(wakeFromOutside({ state: "busy", at: 0 }, now)).toBe(true);
    // A mark dated in the future: a minute's skew is believed, a planted far-off date is not.
    expect(wakeFromOutside({ state: "busy", at: now + 60_000 }, now)).toBe(false);
    expect(wakeFromOutside({ state: "busy", at: now + BUSY_BELIEVED_MS + 1 }, now)).toBe(true);
  });
});
