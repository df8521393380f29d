import { describe, expect, it } from "vitest";
import { NUDGE_KEYS, NUDGE_LOOK_FORMAT } from "./_nudge.js";
import {
  NUDGE_TEXT,
  nudgeArgs,
  nudgeVerdict,
  type PaneLook,
  parseLook,
  submitted,
  typedCheck,
} from "./index.js";

/** A pane whose cursor sits at the end of `line` (the last row of a small screen). */
const look = (line: string, extra: Partial<PaneLook> = {}): PaneLook => ({
  inMode: false,
  synchronized: false,
  dead: false,
  cursorX: [...line].length,
  cursorY: 2,
  width: 120,
  panePid: 42,
  command: "bash",
  screen: ["$ agent", "earlier output", line],
  ...extra,
});
const idle = { cpuTicks: 10, running: false };
const twice = (pane: PaneLook, later: Partial<PaneLook> = {}, cpu = idle) =>
  nudgeVerdict({ look: pane, processes: idle }, { look: { ...pane, ...later }, processes: cpu });

describe("nudgeVerdict: type only into an empty input line of an idle agent", () => {
  it.each(["> ", "$ ", "❯ ", "│ > ", ">>> ", "› "])("an empty prompt %j may be nudged", (line) => {
    expect(twice(look(line))).toEqual({ ok: true });
  });

  it("a prompt inside a TUI's box, with the border after the cursor, may be nudged", () => {
    const line = "│ >                                     │";
    expect(twice(look(line, { cursorX: 4 }))).toEqual({ ok: true });
  });

  it.each([
    ["a half-typed line", look("> hel")],
    ["text after the cursor (the user moved left)", look("> hello", { cursorX: 2 })],
    ["a prompt character typed as input", look("> >x")],
    ["no prompt at all (the agent is printing)", look("thinking...")],
    ["an empty line (a program running, not asking)", look("")],
  ])("%s is never typed into", (_case, pane) => {
    expect(twice(pane)).toMatchObject({ ok: false, reason: "input-not-empty" });
  });

  it.each([
    ["the screen changed between the looks", { screen: ["$ agent", "more output", "> "] }, idle],
    ["the cursor moved", { cursorX: 1 }, idle],
    ["the agent used the CPU", {}, { cpuTicks: 11, running: false }],
    ["a process of the agent is running", {}, { cpuTicks: 10, running: true }],
  ])("busy: %s", (_case, later, cpu) => {
    expect(twice(look("> "), later as Partial<PaneLook>, cpu)).toMatchObject({
      ok: false,
      reason: "busy",
    });
  });

  it.each([
    ["a dead pane", { dead: true }, "pane-dead"],
    ["copy mode", { inMode: true }, "in-mode"],
    ["synchronize-panes", { synchronized: true }, "synchronized"],
    ["a pane too narrow for the line", { width: 30 }, "too-narrow"],
  ])("%s is never typed into", (_case, extra, reason) => {
    expect(twice(look("> ", extra as Partial<PaneLook>))).toMatchObject({ ok: false, reason });
  });
});

describe("after typing", () => {
  it("Enter is pressed only when the line is exactly the prompt and the nudge", () => {
    expect(typedCheck(look(`> ${NUDGE_TEXT}`))).toBe("typed");
    expect(typedCheck(look(`│ > ${NUDGE_TEXT}   │`, { cursorX: 4 + NUDGE_TEXT.length }))).toBe(
      "typed",
    );
    // Someone typed at the same moment: the nudge ends the line, but is not alone on it.
    expect(typedCheck(look(`> ab${NUDGE_TEXT}`))).toBe("ours-at-end");
    expect(typedCheck(look(`> ${NUDGE_TEXT}x`))).toBe("unknown");
    expect(typedCheck(look("> "))).toBe("unknown");
  });

  it("submitted once the nudge no longer sits on the input line", () => {
    expect(submitted(look("> "))).toBe(true);
    expect(submitted(look(`> ${NUDGE_TEXT}`))).toBe(false);
  });

  it("the keys are the fixed text, literally, and Enter: never Escape or Ctrl-C", () => {
    expect(NUDGE_KEYS).toEqual({
      text: ["-l", NUDGE_TEXT],
      submit: ["Enter"],
      erase: ["-N", String(NUDGE_TEXT.length), "BSpace"],
    });
    expect(NUDGE_TEXT).toMatch(/^[ -~]+$/);
  });
});

describe("nudgeArgs", () => {
  it("names the pane's server and the pane; a pane id that is not one names nothing", () => {
    const args = nudgeArgs({ name: "work" }, "%3");
    expect(args?.look).toEqual([
      "-u",
      "-L",
      "work",
      "display-message",
      "-p",
      "-t",
      "%3",
      NUDGE_LOOK_FORMAT,
    ]);
    expect(args?.text).toEqual(["-u", "-L", "work", "send-keys", "-t", "%3", "-l", NUDGE_TEXT]);
    expect(args?.submit).toEqual(["-u", "-L", "work", "send-keys", "-t", "%3", "Enter"]);
    for (const pane of ["%3;kill-server", "3", "%", "{last}"])
      expect(nudgeArgs({ name: "work" }, pane)).toBeUndefined();
  });
});

describe("parseLook", () => {
  it("reads the fields tmux prints and the screen, the command last", () => {
    expect(parseLook("0\t0\t0\t0\t2\t1\t80\t123\tba\tsh\n", "$ x\n> \n")).toEqual({
      inMode: false,
      synchronized: false,
      dead: false,
      cursorX: 2,
      cursorY: 1,
      width: 80,
      panePid: 123,
      command: "ba\tsh",
      screen: ["$ x", "> "],
    });
  });

  it("input off counts as a mode", () => {
    expect(parseLook("0\t1\t0\t0\t2\t1\t80\t123\tbash", "> ")?.inMode).toBe(true);
  });

  it.each(["", "0\t0\t0", "x\t0\t0\t0\t2\t1\t80\t123\tbash", "0\t0\t0\t0\t-2\t1\t80\t123\tbash"])(
    "refuses %j",
    (line) => {
      expect(parseLook(line, "> ")).toBeUndefined();
    },
  );
});
