// The dashboard's actions as keys: `n` starts a member (the engine, then its label), `x` stops the
// selected one (after a confirmation that names it; `d` there takes it down instead, keeping its
// session, where this muster has `muster down`), `s` sends it mail (the text typed), `u` brings
// the declared team up. Each ends in a command line — the CLI's own, run by the dashboard
// as the CLI runs it (_dashboard-actions.ts) — or in nothing (Esc). Pure: a key in, the prompt
// and the command line out; what the prompt shows is `promptLine`.

/** What the dashboard is asking, if anything. */
export type Prompt =
  | { kind: "engine" }
  | { kind: "label"; engine: string; text: string }
  | { kind: "stop"; label: string; down: boolean }
  | { kind: "mail"; label: string; text: string };

/** A command line to run as the CLI runs it, and what to show while it runs. */
export type Action = { argv: string[]; doing: string };

/** The keys a prompt reads (Ink's names for them). */
export type PromptKey = {
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
};

/** The engines `n` offers, each by one key. */
export const START_ENGINES = [
  { key: "p", engine: "pi" },
  { key: "c", engine: "codex" },
  { key: "l", engine: "claude" },
] as const;

/** The longest text a prompt takes (a label or a line of mail typed in the dashboard). */
const MAX_TEXT = 2000;

export type Step = { prompt?: Prompt | undefined; action?: Action | undefined; note?: string };

/**
 * What a key does when no prompt is open: the action keys open one (or, for `u`, act at once);
 * `undefined` when the key is not an action key. `selected`: the selected member's label.
 */
export function actionKey(
  input: string,
  selected: string | undefined,
  has: { up: boolean; down: boolean },
): Step | undefined {
  if (input === "n") return { prompt: { kind: "engine" } };
  if (input === "u")
    return has.up
      ? { action: { argv: ["up"], doing: "bringing the team up…" } }
      : { note: "this muster has no muster up" };
  if (input !== "x" && input !== "s") return undefined;
  if (!selected) return { note: "no member selected" };
  return input === "x"
    ? { prompt: { kind: "stop", label: selected, down: has.down } }
    : { prompt: { kind: "mail", label: selected, text: "" } };
}

/** Text typed into a prompt: printable characters added, backspace takes the last away. */
function typed(text: string, input: string, key: PromptKey): string {
  if (key.backspace || key.delete) return text.slice(0, -1);
  if (key.ctrl || key.meta) return text;
  // One character of a control range would move the cursor or end the line: never kept.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the bytes to drop
  const clean = input.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
  return `${text}${clean}`.slice(0, MAX_TEXT);
}

/** The next step of an open prompt for a key: a new prompt, closed (undefined), an action. */
export function promptKey(prompt: Prompt, input: string, key: PromptKey): Step {
  if (key.escape) return { prompt: undefined, note: "cancelled" };
  // Text and its Enter read in one chunk (typed fast, or pasted): the text, then the Enter.
  const end = input.search(/[\r\n]/);
  if (end > 0 && !key.return && (prompt.kind === "label" || prompt.kind === "mail")) {
    const step = promptKey(prompt, input.slice(0, end), key);
    return step.prompt ? promptKey(step.prompt, "", { return: true }) : step;
  }
  switch (prompt.kind) {
    case "engine": {
      const chosen = START_ENGINES.find((each) => each.key === input);
      return chosen ? { prompt: { kind: "label", engine: chosen.engine, text: "" } } : { prompt };
    }
    case "label": {
      if (!key.return) return { prompt: { ...prompt, text: typed(prompt.text, input, key) } };
      const label = prompt.text.trim();
      const argv = ["spawn", prompt.engine, ...(label ? ["--label", label] : []), "--window"];
      return { action: { argv, doing: `starting ${label || "a"} ${prompt.engine}…` } };
    }
    case "stop":
      if (input === "y")
        return { action: { argv: ["stop", prompt.label], doing: `stopping ${prompt.label}…` } };
      // `down` keeps its engine session for `muster up` (where this muster has it).
      if (input === "d" && prompt.down)
        return { action: { argv: ["down", prompt.label], doing: `taking ${prompt.label} down…` } };
      return { prompt: undefined, note: `${prompt.label} left running` };
    case "mail": {
      if (!key.return) return { prompt: { ...prompt, text: typed(prompt.text, input, key) } };
      if (prompt.text.trim() === "") return { prompt: undefined, note: "nothing sent" };
      return {
        action: {
          argv: ["send", prompt.label, "--", prompt.text],
          doing: `sending to ${prompt.label}…`,
        },
      };
    }
  }
}

/** The prompt as one line, in place of the keys. */
export function promptLine(prompt: Prompt, between: string): string {
  switch (prompt.kind) {
    case "engine":
      return `start which engine? ${START_ENGINES.map((each) => `${each.key} ${each.engine}`).join(between)}${between}esc cancel`;
    case "label":
      return `start ${prompt.engine} as (label; enter for a generated one): ${prompt.text}_`;
    case "stop":
      return `stop ${prompt.label}? y yes${prompt.down ? `${between}d down (keeps its session)` : ""}${between}any other key no`;
    case "mail":
      return `mail to ${prompt.label} (enter send${between}esc cancel): ${prompt.text}_`;
  }
}
