import { describe, expect, it } from "vitest";
import {
  type Activity,
  activityNow,
  CONFIRM_EVERY_MS,
  isPerson,
  recordSignal,
  SIGNAL_SKEW_MS,
  troubleCleared,
  wakeFromOutside,
} from "./_activity.js";
import { ENGINE_SIGNALS, WORKING_BELIEVED_MS } from "./_signals.js";

const at = 1_000_000_000_000;
const working: Activity = {
  state: "working",
  since: at - 5000,
  at: at - 1000,
  signal: "claude/pre-tool-use",
};
const step = (previous: Activity | undefined, engine: string, signal: string, when = at) =>
  recordSignal(previous, { engine, signal, at: when }, Math.max(at, when));

describe("a signal in, the recorded activity out", () => {
  // Every wired row, from no record at all: the state its effect names (a resume has none).
  it.each(
    ENGINE_SIGNALS.filter((row) => row.wired !== false && row.effect !== "resume").map((row) => [
      `${row.engine}/${row.signal}`,
      row.effect,
    ]),
  )("%s from nothing → %s", (name, effect) => {
    const [engine, signal] = name.split("/") as [string, string];
    const result = step(undefined, engine, signal);
    if (effect === "leaves") return expect(result).toEqual({ write: false, reason: "leaves" });
    expect(result).toEqual({
      write: true,
      activity: expect.objectContaining({ state: effect, since: at, at, signal: name }),
    });
  });

  it("a signal no row names, or one muster does not receive, records nothing", () => {
    expect(step(working, "claude", "screen-says-busy")).toEqual({
      write: false,
      reason: "unknown-signal",
    });
    expect(step(working, "gemini", "after-agent")).toEqual({
      write: false,
      reason: "unknown-signal",
    });
  });

  it("a signal older than the recorded one is dropped (hooks land out of order)", () => {
    const asked = step(working, "claude", "permission-request", at);
    if (!asked.write) throw new Error("not written");
    expect(step(asked.activity, "claude", "pre-tool-use", at - 90)).toEqual({
      write: false,
      reason: "older",
    });
  });

  // A record dated ahead (planted, written by a member on another host, or left by a clock
  // stepped back) must not drop every signal after it: a time ahead of now is not believed.
  it.each([
    ["a year ahead", 365 * 24 * 3_600_000, "needs-you"],
    ["an hour ahead", 3_600_000, "needs-you"],
    ["just past the skew", SIGNAL_SKEW_MS + 1, "needs-you"],
  ] as const)("a record dated %s takes the next signal", (_, ahead, state) => {
    const planted: Activity = { ...working, since: at + ahead, at: at + ahead };
    const result = recordSignal(
      planted,
      { engine: "claude", signal: "permission-request", at },
      at,
    );
    expect(result).toEqual({
      write: true,
      activity: expect.objectContaining({ state, since: at, at }),
    });
  });

  it("a record dated within the skew still drops an older signal (another host's clock)", () => {
    const ahead: Activity = { ...working, at: at + SIGNAL_SKEW_MS - 1 };
    expect(recordSignal(ahead, { engine: "claude", signal: "permission-request", at }, at)).toEqual(
      { write: false, reason: "older" },
    );
  });

  it("a signal dated ahead of now is recorded at now, so it cannot silence the next one", () => {
    const future = recordSignal(
      working,
      { engine: "claude", signal: "stop", at: at + 3_600_000 },
      at,
    );
    expect(future).toMatchObject({ write: true, activity: { state: "idle", since: at, at } });
    if (!future.write) throw new Error("not written");
    const next = recordSignal(
      future.activity,
      { engine: "claude", signal: "permission-request", at: at + 1000 },
      at + 1000,
    );
    expect(next).toMatchObject({ write: true, activity: { state: "needs-you" } });
  });

  it("the same state keeps its since, and is rewritten only every CONFIRM_EVERY_MS", () => {
    expect(step(working, "claude", "pre-tool-use", working.at + 10)).toEqual({
      write: false,
      reason: "same",
    });
    const later = step(working, "claude", "pre-tool-use", working.at + CONFIRM_EVERY_MS);
    expect(later).toEqual({
      write: true,
      activity: { ...working, at: working.at + CONFIRM_EVERY_MS },
    });
    // Another signal of the same state is written at once: it says something new.
    expect(step(working, "claude", "user-prompt-submit", working.at + 10)).toMatchObject({
      write: true,
      activity: { since: working.since, signal: "claude/user-prompt-submit" },
    });
  });

  it("a wait for the person resumes the state it interrupted", () => {
    const asked = step(working, "pi", "ui-prompt-start");
    expect(asked).toMatchObject({
      write: true,
      activity: { state: "needs-you", resume: "working" },
    });
    if (!asked.write) throw new Error("not written");
    expect(step(asked.activity, "pi", "ui-prompt-end", at + 1)).toMatchObject({
      write: true,
      activity: { state: "working", since: at + 1 },
    });
    const idle: Activity = {
      state: "idle",
      since: at - 10,
      at: at - 10,
      signal: "pi/agent-settled",
    };
    const fromIdle = step(idle, "pi", "ui-prompt-start");
    if (!fromIdle.write) throw new Error("not written");
    expect(fromIdle.activity.resume).toBe("idle");
    expect(step(fromIdle.activity, "pi", "ui-prompt-end", at + 1)).toMatchObject({
      activity: { state: "idle" },
    });
    // Nothing to resume from: the record stands.
    expect(step(working, "pi", "ui-prompt-end")).toEqual({ write: false, reason: "same" });
    expect(step(undefined, "pi", "ui-prompt-end")).toEqual({ write: false, reason: "same" });
  });
});

describe("the activity as far as it is believed now", () => {
  const live = { agent: "claude", liveness: "live" as const, joinedAt: at - 60_000 };

  it.each([
    ["a reported state", { ...live, activity: working }, "working", "reported"],
    ["nothing reported yet by an engine that reports", live, "starting", "not-reported"],
    ["an engine muster hears nothing from", { ...live, agent: "aider" }, "unknown", "no-signals"],
    [
      "an engine whose signals are not wired",
      { ...live, agent: "gemini" },
      "unknown",
      "no-signals",
    ],
    ["a person at a shell", { ...live, agent: "bash" }, "unknown", "person"],
    ["a gone member", { ...live, liveness: "gone" as const, activity: working }, "gone", "gone"],
    ["an expired member", { ...live, liveness: "expired" as const }, "gone", "gone"],
  ] as const)("%s", (_name, facts, state, reason) => {
    expect(activityNow(facts, at)).toMatchObject({ state, reason });
  });

  it("an engine that said it cannot run a turn is in trouble, with its words, until a turn begins after", () => {
    const trouble = { kind: "no-model", words: "Error: No API key found for anthropic.", at };
    // The failed first turn began, and ended, before the spawn saw its words: not idle.
    const idle: Activity = {
      state: "idle",
      since: at + 50,
      at: at + 50,
      signal: "pi/agent-settled",
    };
    for (const activity of [undefined, working, idle])
      expect(activityNow({ ...live, agent: "pi", activity, trouble }, at + 100)).toEqual({
        state: "trouble",
        since: at,
        signal: undefined,
        reason: "trouble",
        trouble: { kind: "no-model", words: "Error: No API key found for anthropic." },
      });
    const later: Activity = {
      state: "working",
      since: at + 10,
      at: at + 10,
      signal: "pi/agent-start",
    };
    expect(troubleCleared(trouble, working)).toBe(false);
    expect(troubleCleared(trouble, idle)).toBe(false);
    expect(troubleCleared(trouble, later)).toBe(true);
    expect(activityNow({ ...live, agent: "pi", activity: later, trouble }, at + 100).state).toBe(
      "working",
    );
    // A member whose process ended is gone, whatever it said.
    expect(activityNow({ ...live, liveness: "gone", trouble }, at).state).toBe("gone");
  });

  it("starting counts from the join", () => {
    expect(activityNow(live, at).since).toBe(live.joinedAt);
  });

  it("an engine that never reports stays starting, however long: never idle, working or stale", () => {
    for (const agent of ["claude", "codex", "pi"])
      for (const later of [0, WORKING_BELIEVED_MS + 1, 24 * 3_600_000])
        expect(activityNow({ ...live, agent }, live.joinedAt + later)).toMatchObject({
          state: "starting",
          reason: "not-reported",
          signal: undefined,
        });
  });

  it("a working mark not confirmed for WORKING_BELIEVED_MS is no longer believed", () => {
    const old = { ...working, at: at - WORKING_BELIEVED_MS - 1 };
    expect(activityNow({ ...live, activity: old }, at)).toMatchObject({
      state: "unknown",
      reason: "stale",
    });
    const fresh = { ...working, at: at - WORKING_BELIEVED_MS };
    expect(activityNow({ ...live, activity: fresh }, at).state).toBe("working");
    // Idle and a wait for the person are believed however old: nothing ends them unsaid.
    for (const state of ["idle", "needs-you"] as const)
      expect(activityNow({ ...live, activity: { ...old, state } }, at).state).toBe(state);
  });

  it("pi's in-process signals are believed while its member is live", () => {
    const pi = { ...working, signal: "pi/tool-start", at: at - 10 * WORKING_BELIEVED_MS };
    expect(activityNow({ ...live, agent: "pi", activity: pi }, at).state).toBe("working");
  });

  it("a mark dated far in the future, or naming no signal, is judged by the default", () => {
    const future = { ...working, state: "idle" as const, at: at + 6 * 60_000 };
    expect(activityNow({ ...live, activity: future }, at).reason).toBe("stale");
    const planted = { ...working, signal: "x/y", at: at - WORKING_BELIEVED_MS - 1 };
    expect(activityNow({ ...live, activity: planted }, at).reason).toBe("stale");
  });

  it("an observation newer than the record is applied as its signal (the registry cross-check)", () => {
    const waiting: Activity = {
      state: "needs-you",
      since: at - 5000,
      at: at - 5000,
      signal: "claude/permission-request",
      resume: "working",
    };
    const observed = { engine: "claude", signal: "registry-idle", at: at - 1000 };
    expect(activityNow({ ...live, activity: waiting, observed }, at)).toMatchObject({
      state: "idle",
      since: at - 1000,
      signal: "claude/registry-idle",
    });
    const older = { ...observed, at: at - 9000 };
    expect(activityNow({ ...live, activity: waiting, observed: older }, at).state).toBe(
      "needs-you",
    );
  });

  it("a person is a shell member, not a program muster does not know", () => {
    expect(isPerson({ agent: "zsh" })).toBe(true);
    expect(isPerson({ agent: "python3", id: "shell-1-2" })).toBe(true);
    expect(isPerson({ agent: "claude", id: "shell-1-2" })).toBe(false);
    expect(isPerson({ agent: "aider", id: "aider-1-2" })).toBe(false);
  });
});

describe("waking from outside", () => {
  const live = { agent: "claude", liveness: "live" as const, joinedAt: at };
  it.each([
    ["working", false],
    ["needs-you", false],
    ["idle", true],
  ] as const)("a member %s: %s", (state, wakes) => {
    expect(wakeFromOutside({ ...live, activity: { ...working, state } }, at)).toBe(wakes);
  });
  it("nothing known, or a stale working mark: woken", () => {
    expect(wakeFromOutside(live, at)).toBe(true);
    const stale = { ...working, at: at - WORKING_BELIEVED_MS - 1 };
    expect(wakeFromOutside({ ...live, activity: stale }, at)).toBe(true);
  });
});
