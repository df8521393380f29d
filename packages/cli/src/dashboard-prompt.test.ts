// The dashboard's action keys: what each key does to the prompt, and the command line it ends in
// (the CLI's own, which the dashboard runs as the CLI runs it).
import { describe, expect, it } from "vitest";
import {
  actionKey,
  type Prompt,
  type PromptKey,
  promptKey,
  promptLine,
  type Step,
} from "./_dashboard-prompt.js";

/** Keys typed one after another from a first step; the last step. */
function typeKeys(first: Step, keys: (string | PromptKey)[]): Step {
  let step = first;
  for (const key of keys) {
    if (!step.prompt) return step;
    step =
      typeof key === "string" ? promptKey(step.prompt, key, {}) : promptKey(step.prompt, "", key);
  }
  return step;
}

const enter = { return: true };

describe("the dashboard's action keys", () => {
  it.each<[string, Step | undefined]>([
    ["n", { prompt: { kind: "engine" } }],
    ["x", { prompt: { kind: "stop", label: "bob", down: false } }],
    ["s", { prompt: { kind: "mail", label: "bob", text: "" } }],
    ["u", { note: "this muster has no muster up" }],
    ["j", undefined],
    ["q", undefined],
  ])("%s opens its prompt (bob selected)", (input, step) => {
    expect(actionKey(input, "bob", { up: false, down: false })).toEqual(step);
  });

  it("u runs muster up at once where this muster has it; x and s need a member", () => {
    expect(actionKey("u", undefined, { up: true, down: true })).toEqual({
      action: { argv: ["up"], doing: "bringing the team up…" },
    });
    const none = { up: false, down: false };
    expect(actionKey("x", undefined, none)).toEqual({ note: "no member selected" });
    expect(actionKey("s", undefined, none)).toEqual({ note: "no member selected" });
  });

  it.each<[string, (string | PromptKey)[], Step]>([
    [
      "n: the engine by its key, then the label",
      ["z", "p", "b", "o", "x", { backspace: true }, "b", enter],
      {
        action: { argv: ["spawn", "pi", "--label", "bob", "--window"], doing: "starting bob pi…" },
      },
    ],
    [
      "n: no label typed, a generated one",
      ["c", enter],
      { action: { argv: ["spawn", "codex", "--window"], doing: "starting a codex…" } },
    ],
    ["n: Esc cancels", ["l", { escape: true }], { prompt: undefined, note: "cancelled" }],
  ])("%s", (_name, keys, last) => {
    expect(typeKeys({ prompt: { kind: "engine" } }, keys)).toEqual(last);
  });

  it("x stops only on y, and the prompt names the member", () => {
    const stop: Prompt = { kind: "stop", label: "bob", down: false };
    expect(promptLine(stop, " · ")).toBe("stop bob? y yes · any other key no");
    expect(promptKey(stop, "y", {})).toEqual({
      action: { argv: ["stop", "bob"], doing: "stopping bob…" },
    });
    expect(promptKey(stop, "n", {})).toEqual({ prompt: undefined, note: "bob left running" });
    expect(promptKey(stop, "d", {})).toEqual({ prompt: undefined, note: "bob left running" });
    expect(promptKey(stop, "", enter)).toEqual({ prompt: undefined, note: "bob left running" });
  });

  it("where muster down is, x's d takes the member down instead (its session kept)", () => {
    const stop: Prompt = { kind: "stop", label: "bob", down: true };
    expect(promptLine(stop, " · ")).toBe(
      "stop bob? y yes · d down (keeps its session) · any other key no",
    );
    expect(promptKey(stop, "d", {})).toEqual({
      action: { argv: ["down", "bob"], doing: "taking bob down…" },
    });
  });

  it("s sends the text typed (after --: a text starting with a dash is text), nothing when empty", () => {
    const mail: Step = { prompt: { kind: "mail", label: "bob", text: "" } };
    expect(typeKeys(mail, ["-v q", "\u001b[2J", enter])).toEqual({
      action: { argv: ["send", "bob", "--", "-v q[2J"], doing: "sending to bob…" },
    });
    expect(typeKeys(mail, [" ", enter])).toEqual({ prompt: undefined, note: "nothing sent" });
    // Text and its Enter read in one chunk (typed fast, pasted): sent up to the line's end.
    expect(typeKeys(mail, ["hello\rrest"])).toEqual({
      action: { argv: ["send", "bob", "--", "hello"], doing: "sending to bob…" },
    });
    expect(promptLine({ kind: "mail", label: "bob", text: "hi" }, " · ")).toBe(
      "mail to bob (enter send · esc cancel): hi_",
    );
  });
});
