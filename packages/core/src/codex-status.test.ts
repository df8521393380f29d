// Codex's control socket, as measured with 0.171.0: each status a thread reports is one signal,
// and every other message, shape or time that could move the record wrongly is no signal.
import { describe, expect, it } from "vitest";
import { codexStatusChange, codexStatusSignal } from "./_codex-status.js";
import { signalRow } from "./_signals.js";

const THREAD = "01a23409-0089-7251-a0e6-e28d500fbdc8";
const changed = (status: unknown, extra: Record<string, unknown> = {}) => ({
  method: "thread/status/changed",
  params: { threadId: THREAD, status },
  emittedAtMs: 1_000,
  ...extra,
});

describe("a thread's status as a signal", () => {
  it.each([
    [{ type: "active", activeFlags: [] }, "status-active", "working"],
    [
      { type: "active", activeFlags: ["waitingOnApproval"] },
      "status-waiting-approval",
      "needs-you",
    ],
    [{ type: "active", activeFlags: ["waitingOnUserInput"] }, "status-waiting-input", "needs-you"],
    [
      { type: "active", activeFlags: ["waitingOnUserInput", "waitingOnApproval"] },
      "status-waiting-approval",
      "needs-you",
    ],
    [{ type: "active" }, "status-active", "working"],
    [{ type: "idle" }, "status-idle", "idle"],
  ])("%j → %s", (status, signal, effect) => {
    expect(codexStatusSignal(status)).toBe(signal);
    expect(signalRow("codex", signal)?.effect).toBe(effect);
  });

  it.each([
    [{ type: "notLoaded" }],
    [{ type: "systemError" }],
    [{ type: "ACTIVE", activeFlags: [] }],
    [{}],
    ["active"],
    [null],
    [undefined],
  ])("%j is no signal", (status) => {
    expect(codexStatusSignal(status)).toBeUndefined();
  });
});

describe("a control-socket message", () => {
  it("a status change names its thread, signal and time", () => {
    expect(codexStatusChange(changed({ type: "idle" }), 2_000)).toEqual({
      threadId: THREAD,
      signal: "status-idle",
      at: 1_000,
    });
  });

  it("a time from the future is the time it was received (it would block every later signal)", () => {
    expect(codexStatusChange(changed({ type: "idle" }, { emittedAtMs: 9e15 }), 2_000)?.at).toBe(
      2_000,
    );
  });

  it.each([["soon"], [Number.NaN], [-5], [0], [undefined]])(
    "an emittedAtMs of %j is the time it was received",
    (emittedAtMs) => {
      expect(codexStatusChange(changed({ type: "idle" }, { emittedAtMs }), 2_000)?.at).toBe(2_000);
    },
  );

  it.each([
    ["another method", { ...changed({ type: "idle" }), method: "thread/started" }],
    ["no params", { method: "thread/status/changed" }],
    [
      "a thread id that is not text",
      { method: "thread/status/changed", params: { threadId: 7, status: { type: "idle" } } },
    ],
    ["a status no row has", changed({ type: "notLoaded" })],
    ["a reply", { id: 1, result: { status: { type: "idle" } } }],
    ["not an object", "thread/status/changed"],
  ])("%s is no status change", (_, message) => {
    expect(codexStatusChange(message, 2_000)).toBeUndefined();
  });
});
