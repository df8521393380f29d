// One test row per engine signal: the table is data, and a row added without its test row fails.
import { describe, expect, it } from "vitest";
import {
  claudeRegistrySignal,
  ENGINE_SIGNALS,
  reportsActivity,
  rowOfName,
  signalName,
} from "./_signals.js";

const EXPECTED: [engine: string, signal: string, effect: string, wired: boolean][] = [
  ["claude", "session-start", "idle", true],
  ["claude", "user-prompt-submit", "working", true],
  ["claude", "pre-tool-use", "working", true],
  ["claude", "permission-request", "needs-you", true],
  ["claude", "permission-prompt", "needs-you", true],
  ["claude", "stop", "idle", true],
  ["claude", "turn-continued", "working", true],
  ["claude", "rewake", "working", true],
  ["claude", "idle-prompt", "idle", true],
  ["claude", "session-end", "leaves", true],
  ["claude", "registry-busy", "working", true],
  ["claude", "registry-waiting", "needs-you", true],
  ["claude", "registry-idle", "idle", true],
  ["codex", "turn-complete", "idle", true],
  ["codex", "status-active", "working", true],
  ["codex", "status-waiting-approval", "needs-you", true],
  ["codex", "status-waiting-input", "needs-you", true],
  ["codex", "status-idle", "idle", true],
  ["codex", "tool-call", "working", true],
  ["pi", "session-start", "idle", true],
  ["pi", "agent-start", "working", true],
  ["pi", "turn-start", "working", true],
  ["pi", "tool-start", "working", true],
  ["pi", "ui-prompt-start", "needs-you", true],
  ["pi", "ui-prompt-end", "resume", true],
  ["pi", "agent-settled", "idle", true],
  ["gemini", "before-agent", "working", false],
  ["gemini", "notification", "needs-you", false],
  ["gemini", "after-agent", "idle", false],
  ["opencode", "session-busy", "working", false],
  ["opencode", "permission-asked", "needs-you", false],
  ["opencode", "session-idle", "idle", false],
];

describe("the engines' signals", () => {
  it("the table is exactly the tested rows", () => {
    expect(
      ENGINE_SIGNALS.map((row) => [row.engine, row.signal, row.effect, row.wired !== false]),
    ).toEqual(EXPECTED);
  });

  it.each(EXPECTED)("%s %s → %s", (engine, signal, effect) => {
    const row = rowOfName(signalName({ engine, signal }));
    expect(row?.effect).toBe(effect);
    expect(row?.source.length).toBeGreaterThan(3);
  });

  it("no engine names one signal twice", () => {
    const names = ENGINE_SIGNALS.map(signalName);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each([
    ["claude", true],
    ["codex", true],
    ["pi", true],
    ["gemini", false],
    ["opencode", false],
    ["aider", false],
    ["bash", false],
  ])("%s reports its activity: %s", (engine, reports) => {
    expect(reportsActivity(engine)).toBe(reports);
  });

  it("a name with no row, or no engine part, has no row", () => {
    expect(rowOfName("claude/nope")).toBeUndefined();
    expect(rowOfName("stop")).toBeUndefined();
    expect(rowOfName("")).toBeUndefined();
  });
});

describe("Claude Code's session registry as a signal", () => {
  const member = { pid: 30649, pidStart: "72052" };
  const entry = { pid: 30649, procStart: "72052", status: "waiting", statusUpdatedAt: 1000 };
  it.each([
    ["busy", "registry-busy"],
    ["idle", "registry-idle"],
    ["waiting", "registry-waiting"],
  ])("status %s → %s", (status, signal) => {
    expect(claudeRegistrySignal({ ...entry, status }, member)).toEqual({
      engine: "claude",
      signal,
      at: 1000,
    });
  });
  it.each([
    ["another process's entry (pid reused)", { ...entry, procStart: "1" }],
    ["another pid", { ...entry, pid: 1 }],
    ["a status muster does not know", { ...entry, status: "toString" }],
    ["no time", { ...entry, statusUpdatedAt: "now" }],
    ["not an object", "waiting"],
    ["null", null],
  ])("no word from %s", (_name, planted) => {
    expect(claudeRegistrySignal(planted, member)).toBeUndefined();
  });
  it("no word for a member with no start time", () => {
    expect(claudeRegistrySignal(entry, { pid: 30649 })).toBeUndefined();
  });
});
