import { describe, expect, it } from "vitest";
import { MAIL_REACH_WORDS } from "./_mail-reach.js";
import { DELIVERY_PHASES, furthestPhase, goalMet } from "./_receipt.js";
import { heldWords, mailReach, parseWaitGoal, waitReport } from "./index.js";
import type { PhaseMarks } from "./internal.js";

const at = "2026-11-30T12:00:00.000Z";
const mark = { at };

describe("the phases of a message at one recipient", () => {
  it("are ranked written < woke < delivered < acknowledged", () => {
    expect(DELIVERY_PHASES).toEqual(["written", "woke", "delivered", "acknowledged"]);
  });

  it.each<{ rule: string; marks: PhaseMarks; furthest: string | undefined }>([
    { rule: "no mark at all", marks: {}, furthest: undefined },
    { rule: "only written", marks: { written: mark }, furthest: "written" },
    {
      rule: "a turn started for it (Codex's queued line) but nothing shown yet",
      marks: { written: mark, woke: mark },
      furthest: "woke",
    },
    {
      rule: "shown after the wake",
      marks: { written: mark, woke: mark, delivered: mark },
      furthest: "delivered",
    },
    {
      rule: "acknowledged without a delivered mark (a reader that only acks)",
      marks: { written: mark, acknowledged: mark },
      furthest: "acknowledged",
    },
    {
      rule: "a mark for a phase whose written mark was lost still counts",
      marks: { delivered: mark },
      furthest: "delivered",
    },
  ])("furthest: $rule", ({ marks, furthest }) => {
    expect(furthestPhase(marks)).toBe(furthest);
  });

  it.each<{ rule: string; marks: PhaseMarks; delivered: boolean; acknowledged: boolean }>([
    { rule: "written only", marks: { written: mark }, delivered: false, acknowledged: false },
    {
      rule: "woke is not delivered: the agent may not have seen the body",
      marks: { written: mark, woke: mark },
      delivered: false,
      acknowledged: false,
    },
    {
      rule: "delivered",
      marks: { written: mark, delivered: mark },
      delivered: true,
      acknowledged: false,
    },
    {
      rule: "acknowledged counts as delivered: the reader marked it read",
      marks: { written: mark, acknowledged: mark },
      delivered: true,
      acknowledged: true,
    },
  ])("goals: $rule", ({ marks, delivered, acknowledged }) => {
    expect(goalMet(marks, "delivered")).toBe(delivered);
    expect(goalMet(marks, "acknowledged")).toBe(acknowledged);
  });
});

describe("waitReport", () => {
  const recipients = [
    { id: "s2", label: "bob" },
    { id: "s3", label: "carol" },
  ];

  it("is done only when every recipient met the goal, and names each one's furthest phase", () => {
    const report = waitReport(
      recipients,
      [
        { id: "s2", phases: { written: mark, delivered: { at, how: "pi" } } },
        { id: "s3", phases: { written: mark, woke: { at, how: "codex-queue" } } },
      ],
      "delivered",
    );
    expect(report).toEqual({
      goal: "delivered",
      done: false,
      recipients: [
        { id: "s2", label: "bob", reached: "delivered", met: true, how: "pi" },
        { id: "s3", label: "carol", reached: "woke", met: false, how: "codex-queue" },
      ],
    });
  });

  it("a wake that failed is named for a recipient it left short of woken, and not once it woke", () => {
    const failed = {
      at,
      how: "codex-queue",
      error: "thread/queue/add failed: failed to read thread",
    };
    const report = waitReport(
      recipients,
      [
        { id: "s2", phases: { written: mark }, wakeFailed: failed },
        {
          id: "s3",
          phases: { written: mark, woke: { at, how: "codex-queue" } },
          wakeFailed: failed,
        },
      ],
      "delivered",
    );
    expect(report.recipients).toEqual([
      { id: "s2", label: "bob", reached: "written", met: false, wakeFailed: failed.error },
      { id: "s3", label: "carol", reached: "woke", met: false, how: "codex-queue" },
    ]);
  });

  it("a wake the rate held is named, with when it wakes, until the recipient woke", () => {
    const held = {
      at,
      how: "codex-queue",
      reason: "rate-limited" as const,
      words: "6 wakes in the last minute",
      retryAfter: "2026-11-30T12:01:00.000Z",
    };
    const report = waitReport(
      recipients,
      [
        { id: "s2", phases: { written: mark }, wakeHeld: held },
        { id: "s3", phases: { written: mark, woke: { at, how: "codex-queue" } }, wakeHeld: held },
      ],
      "delivered",
    );
    const { at: _at, how: _how, ...shown } = held;
    expect(report.recipients).toEqual([
      { id: "s2", label: "bob", reached: "written", met: false, wakeHeld: shown },
      { id: "s3", label: "carol", reached: "woke", met: false, how: "codex-queue" },
    ]);
    expect(heldWords(shown)).toBe(
      "held: 6 wakes in the last minute; wakes again after 12:01:00 UTC",
    );
  });

  it("a recipient missing from the receipt reached nothing; marks for others are ignored", () => {
    const report = waitReport(
      recipients,
      [
        { id: "s2", phases: { acknowledged: mark } },
        { id: "intruder", phases: { acknowledged: mark } },
      ],
      "acknowledged",
    );
    expect(report.done).toBe(false);
    expect(report.recipients).toEqual([
      { id: "s2", label: "bob", reached: "acknowledged", met: true },
      { id: "s3", label: "carol", reached: "none", met: false },
    ]);
  });

  it("mail forwarded to a label's new holder counts that holder's phases, and says so", () => {
    const report = waitReport(
      [{ id: "s2", label: "lead" }],
      [
        { id: "s2", phases: { written: mark }, forwardedTo: "s9" },
        { id: "s9", phases: { written: { at, how: "forwarded" }, acknowledged: mark } },
      ],
      "acknowledged",
    );
    expect(report).toEqual({
      goal: "acknowledged",
      done: true,
      recipients: [
        { id: "s2", label: "lead", reached: "acknowledged", met: true, forwardedTo: "s9" },
      ],
    });
  });

  it("forwards that loop end: a recipient is never followed forever", () => {
    const report = waitReport(
      [{ id: "a", label: "lead" }],
      [
        { id: "a", phases: { written: mark }, forwardedTo: "b" },
        { id: "b", phases: { written: mark }, forwardedTo: "a" },
      ],
      "acknowledged",
    );
    expect(report.recipients[0]).toMatchObject({ reached: "written", met: false });
  });

  it("with every goal met it is done", () => {
    const report = waitReport(
      recipients,
      recipients.map(({ id }) => ({ id, phases: { acknowledged: mark } })),
      "delivered",
    );
    expect(report.done).toBe(true);
  });
});

describe("parseWaitGoal", () => {
  it.each<{ word: string | true; goal: string }>([
    { word: true, goal: "delivered" },
    { word: "", goal: "delivered" },
    { word: "delivered", goal: "delivered" },
    { word: "ack", goal: "acknowledged" },
    { word: "ACKNOWLEDGED", goal: "acknowledged" },
  ])("$word → $goal", ({ word, goal }) => {
    expect(parseWaitGoal(word)).toEqual({ ok: true, goal });
  });

  it("refuses anything else, naming the choices", () => {
    expect(parseWaitGoal("read")).toEqual({
      ok: false,
      error: '--wait takes "delivered" or "ack", not "read"',
    });
  });
});

describe("mailReach: what a send tells the sender about one recipient", () => {
  it.each([
    { watching: { armed: false, wake: true }, reach: "not-pushed" },
    { watching: { armed: true, wake: false }, reach: "next-turn" },
    { watching: { armed: true, wake: true }, reach: "wakes" },
  ] as const)("$watching → $reach", ({ watching, reach }) => {
    expect(mailReach({ id: "m1", urgent: false }, watching)).toBe(reach);
  });

  it("a person at a shell is never told it wakes or pushes: they read it with muster inbox", () => {
    const wakes = { armed: true, wake: true };
    expect(mailReach({ id: "m1" }, wakes, { agent: "bash", id: "shell-birch" })).toBe("person");
    expect(mailReach({ id: "m1" }, wakes, { agent: "zsh", id: "x1" })).toBe("person");
    // An agent joined from its shell (a Codex member) is no person: its listening decides.
    expect(mailReach({ id: "m1" }, wakes, { agent: "codex", id: "codex-1" })).toBe("wakes");
    expect(MAIL_REACH_WORDS.person).toContain("muster inbox");
  });

  it("a message past the hop limit never wakes, so it waits for the next turn", () => {
    expect(mailReach({ id: "m1", hops: 99 }, { armed: true, wake: true })).toBe("next-turn");
  });
});
