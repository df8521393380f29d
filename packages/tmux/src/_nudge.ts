// The typed nudge's rules: whether a pane may be typed into now, and whether what was typed was
// submitted. A nudge is for an engine with no way to be woken but its keyboard, and only when its
// member opted in (`muster join --nudge`). It types one fixed line, never a message's text.
// Pure: the caller runs the arguments `nudgeArgs` names and reads the process table.
import { PANE_ID, type ServerTarget, serverArgs } from "./_server.js";

/** The one line a nudge types. Fixed: no text another process wrote ever becomes keystrokes. */
export const NUDGE_TEXT = "Team mail is waiting: read it with muster inbox";

/**
 * The keys a nudge may send, and nothing else: the literal text, then Enter; and, when someone
 * typed at the same moment, one Backspace per character of the text, to take back only its own.
 */
export const NUDGE_KEYS = {
  text: ["-l", NUDGE_TEXT],
  submit: ["Enter"],
  erase: ["-N", String(NUDGE_TEXT.length), "BSpace"],
} as const;

/**
 * What `display-message -p` prints about the pane before a nudge: fixed-form fields, then the
 * current command (free text) last, so nothing in it can move another field.
 */
export const NUDGE_LOOK_FORMAT =
  "#{pane_in_mode}\t#{pane_input_off}\t#{pane_synchronized}\t#{pane_dead}\t#{cursor_x}\t#{cursor_y}\t#{pane_width}\t#{pane_pid}\t#{pane_current_command}";

/** One look at a pane: its state from tmux and the visible screen (`capture-pane -p`), by row. */
export type PaneLook = {
  /** Copy mode or another mode, or input turned off: keys would not reach the program. */
  inMode: boolean;
  /** synchronize-panes is on: keys sent to it could reach every pane of its window. */
  synchronized: boolean;
  dead: boolean;
  cursorX: number;
  cursorY: number;
  width: number;
  panePid: number;
  command: string;
  screen: readonly string[];
};

/** The processes of the pane's program at one moment: CPU time used so far, and any running. */
export type PaneProcesses = { cpuTicks: number; running: boolean };

/** Prompts an agent's input line starts with; the input line is empty when only one is there. */
export const PROMPTS = [">", "$", "#", "%", "❯", "›", "»", ">>>", "→"] as const;

/** Borders a TUI draws around its input box: not input. */
const BORDER = /^[\s│┃|╭╰╮╯─━]*/u;
const BORDER_END = /[\s│┃|╭╰╮╯─━]*$/u;

/** A NUDGE_LOOK_FORMAT line and the `capture-pane -p` text, read strictly: undefined if either is off. */
export function parseLook(line: string, screen: string): PaneLook | undefined {
  const fields = line.replace(/\n$/, "").split("\t");
  if (fields.length < 9) return undefined;
  const flags = fields.slice(0, 4);
  if (!flags.every((flag) => flag === "0" || flag === "1")) return undefined;
  const numbers = fields.slice(4, 8).map((value) => (/^\d+$/.test(value) ? Number(value) : NaN));
  if (numbers.some(Number.isNaN)) return undefined;
  const [mode, inputOff, synchronized, dead] = flags;
  return {
    inMode: mode === "1" || inputOff === "1",
    synchronized: synchronized === "1",
    dead: dead === "1",
    cursorX: numbers[0]!,
    cursorY: numbers[1]!,
    width: numbers[2]!,
    panePid: numbers[3]!,
    command: fields.slice(8).join("\t"),
    screen: screen.replace(/\n$/, "").split("\n"),
  };
}

/** The cursor's line, split at the cursor (by character; prompts are one cell wide). */
function cursorLine(look: PaneLook): { before: string; after: string } {
  const line = [...(look.screen[look.cursorY] ?? "")];
  return { before: line.slice(0, look.cursorX).join(""), after: line.slice(look.cursorX).join("") };
}

/** The prompt before the cursor, with nothing typed after it; undefined when anything is typed. */
function promptOnly(before: string): string | undefined {
  const text = before.replace(BORDER, "").trimEnd();
  return (PROMPTS as readonly string[]).includes(text) ? text : undefined;
}

export type NudgeVerdict =
  | { ok: true }
  | {
      ok: false;
      reason: "pane-dead" | "in-mode" | "synchronized" | "too-narrow" | "input-not-empty" | "busy";
      why: string;
    };

/**
 * Whether a nudge may type into the pane now. Input line empty: on the cursor's line, before the
 * cursor only a known prompt (and a TUI's border), after it nothing but spaces and border. Idle:
 * two looks `first` and `second` taken a moment apart show the same screen and cursor, and the
 * pane's processes used no CPU between them and none is running.
 */
export function nudgeVerdict(
  first: { look: PaneLook; processes: PaneProcesses },
  second: { look: PaneLook; processes: PaneProcesses },
): NudgeVerdict {
  for (const { look } of [first, second]) {
    if (look.dead) return { ok: false, reason: "pane-dead", why: "the pane's program has exited" };
    if (look.inMode)
      return { ok: false, reason: "in-mode", why: "the pane is in copy mode, or its input is off" };
    if (look.synchronized)
      return {
        ok: false,
        reason: "synchronized",
        why: "the pane's window has synchronize-panes on: keys would reach every pane",
      };
    if (look.cursorX + NUDGE_TEXT.length + 1 >= look.width)
      return {
        ok: false,
        reason: "too-narrow",
        why: "the line would wrap: the pane is too narrow",
      };
    const { before, after } = cursorLine(look);
    if (promptOnly(before) === undefined || after.replace(BORDER_END, "") !== "")
      return {
        ok: false,
        reason: "input-not-empty",
        why: "the input line holds text, or shows no prompt",
      };
  }
  const still =
    first.look.cursorX === second.look.cursorX &&
    first.look.cursorY === second.look.cursorY &&
    first.look.screen.join("\n") === second.look.screen.join("\n");
  if (!still) return { ok: false, reason: "busy", why: "the screen is changing" };
  if (second.processes.running || second.processes.cpuTicks !== first.processes.cpuTicks)
    return { ok: false, reason: "busy", why: "the agent is using the CPU" };
  return { ok: true };
}

/**
 * After typing NUDGE_TEXT, before Enter: `typed` when the input line is exactly the prompt and the
 * nudge, so Enter submits the nudge and nothing else; `ours-at-end` when something else is on the
 * line too but the nudge ends it (someone typed at the same moment: erase NUDGE_TEXT.length
 * characters, never more); `unknown` otherwise (leave the line alone).
 */
export function typedCheck(look: PaneLook): "typed" | "ours-at-end" | "unknown" {
  const { before, after } = cursorLine(look);
  if (after.replace(BORDER_END, "") !== "") return "unknown";
  const text = before.replace(BORDER, "").trimEnd();
  if (!text.endsWith(NUDGE_TEXT)) return "unknown";
  const rest = text.slice(0, -NUDGE_TEXT.length).trimEnd();
  return (PROMPTS as readonly string[]).includes(rest) ? "typed" : "ours-at-end";
}

/** After Enter: submitted when the nudge no longer sits on the input line. */
export function submitted(look: PaneLook): boolean {
  return !cursorLine(look).before.includes(NUDGE_TEXT);
}

/** The tmux arguments a nudge runs, for one pane; undefined for a pane id that is not one. */
export function nudgeArgs(target: ServerTarget, pane: string) {
  if (!PANE_ID.test(pane)) return undefined;
  const server = serverArgs(target);
  const keys = (more: readonly string[]) => [...server, "send-keys", "-t", pane, ...more];
  return {
    look: [...server, "display-message", "-p", "-t", pane, NUDGE_LOOK_FORMAT],
    screen: [...server, "capture-pane", "-p", "-t", pane],
    text: keys(NUDGE_KEYS.text),
    submit: keys(NUDGE_KEYS.submit),
    erase: keys(NUDGE_KEYS.erase),
  };
}
