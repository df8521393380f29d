import { describe, expect, it } from "vitest";
import type { Activity } from "./_activity.js";
import {
  ALERTS_PER_MINUTE,
  ATTENTION_QUIET_MS,
  alertRate,
  attentionFor,
  attentionLine,
  burstLine,
  clientsToTell,
  DEFAULT_CHANNELS,
  LONG_TURN_MS,
  mayRaise,
  parseChannels,
} from "./_attention.js";

const at = 1_000_000_000_000;
const activity = (state: Activity["state"], since = at, when = since): Activity => ({
  state,
  since,
  at: when,
  signal: "claude/stop",
});

describe("which changes deserve the person's attention", () => {
  it.each([
    ["working → needs-you", activity("working"), activity("needs-you"), "needs-you"],
    ["idle → needs-you", activity("idle"), activity("needs-you"), "needs-you"],
    ["nothing → needs-you", undefined, activity("needs-you"), "needs-you"],
    [
      "needs-you → needs-you (the same wait)",
      activity("needs-you"),
      activity("needs-you"),
      undefined,
    ],
    [
      "a long turn finished",
      activity("working", at - LONG_TURN_MS),
      activity("idle", at),
      "turn-done",
    ],
    [
      "a short turn finished",
      activity("working", at - LONG_TURN_MS + 1),
      activity("idle", at),
      undefined,
    ],
    ["idle → working", activity("idle"), activity("working"), undefined],
    ["working → gone", activity("working"), activity("gone"), "gone"],
    ["gone → gone (a second watcher)", activity("gone"), activity("gone"), undefined],
    ["needs-you → working (answered)", activity("needs-you"), activity("working"), undefined],
  ] as const)("%s", (_name, before, after, kind) => {
    expect(attentionFor(before, after)).toBe(kind);
  });

  it("one alert per member per ATTENTION_QUIET_MS", () => {
    expect(mayRaise(undefined, at)).toBe(true);
    expect(mayRaise(at - ATTENTION_QUIET_MS + 1, at)).toBe(false);
    expect(mayRaise(at - ATTENTION_QUIET_MS, at)).toBe(true);
    // An alert dated in the future (a planted record, a clock set back) does not silence it.
    expect(mayRaise(at + 60_000, at)).toBe(true);
  });
});

describe("where an alert goes", () => {
  const clients = [
    { name: "/dev/pts/3", pane: "%1" },
    { name: "/dev/pts/4", pane: "%7" },
  ];
  it("never when a client shows the member's pane", () => {
    expect(clientsToTell(clients, "%7")).toEqual({ looking: true, clients: [] });
  });
  it("to every client otherwise, and for a member with no pane", () => {
    expect(clientsToTell(clients, "%2").clients).toEqual(["/dev/pts/3", "/dev/pts/4"]);
    expect(clientsToTell(clients, undefined)).toEqual({
      looking: false,
      clients: ["/dev/pts/3", "/dev/pts/4"],
    });
    expect(clientsToTell([], "%2")).toEqual({ looking: false, clients: [] });
  });
});

describe("the channels a setting turns on", () => {
  it.each([
    [undefined, DEFAULT_CHANNELS, []],
    ["", DEFAULT_CHANNELS, []],
    ["off", [], []],
    ["none", [], []],
    ["message", ["message"], []],
    ["bell, desktop osc", ["bell", "desktop", "osc"], []],
    ["Message,MESSAGE", ["message"], []],
    ["beep message", ["message"], ["beep"]],
  ] as const)("%j", (setting, channels, unknown) => {
    expect(parseChannels(setting)).toEqual({ channels: [...channels], unknown: [...unknown] });
  });
});

describe("what an alert says", () => {
  it.each([
    ["needs-you", {}, "reviewer needs you"],
    ["turn-done", { turnMs: 4 * 60_000 }, "reviewer finished after 4m"],
    ["turn-done", { turnMs: 75_000 }, "reviewer finished after 75s"],
    ["gone", {}, "reviewer is gone (its process ended)"],
    ["mail", { from: "alice" }, "mail for reviewer from alice"],
  ] as const)("%s", (kind, detail, line) => {
    expect(attentionLine(kind, "reviewer", detail)).toBe(line);
  });
});

describe("a burst of alerts is one line, and the team raises a few a minute", () => {
  it.each([
    [["ann"], "ann is gone (its process ended)"],
    [["ann", "bob"], "2 members gone (their processes ended): ann, bob"],
    [
      Array.from({ length: 30 }, (_, index) => `m${index}`),
      "30 members gone (their processes ended): m0, m1, m2, m3, m4 and 25 more",
    ],
  ])("%j → %s", (labels, line) => {
    expect(burstLine("gone", labels)).toBe(line);
  });

  it("three slots a minute; a slot dated a window ahead is free", () => {
    const rate = alertRate();
    expect(rate.slots).toBe(ALERTS_PER_MINUTE);
    expect(ALERTS_PER_MINUTE).toBeLessThanOrEqual(3);
    const now = 1_000_000_000_000;
    expect(rate.free(now - 59_000, now)).toBe(false);
    expect(rate.free(now - 60_000, now)).toBe(true);
    expect(rate.free(now + 61_000, now)).toBe(true);
    expect(rate.free(Number.NaN, now)).toBe(true);
  });
});
