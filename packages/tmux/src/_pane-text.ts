// What a pane shows: whether its program ended (and with what status), and its text — the screen
// and the lines above it — for a reader that looks for an engine's own words (a spawn that asks
// whether the engine it started can work). One tmux call: a fixed-form line first, then the text.
// It decides nothing about the text: that is the caller's (core's engineTrouble).
import { PANE_ID, runTmux, type ServerTarget, serverArgs, type TmuxRunner } from "./_server.js";

/** A pane's program and text at one moment. */
export type PaneText = {
  /** The program tmux started ended; the pane stays only where remain-on-exit kept it. */
  dead: boolean;
  /** Its exit status, when it ended with one. */
  status?: number | undefined;
  /** The signal that ended it, when one did. */
  signal?: number | undefined;
  /** The screen and up to `history` lines above it, lines joined where tmux wrapped them. */
  text: string;
};

/** Fixed-form fields only: nothing the pane's program writes can move them. */
const PANE_STATE_FORMAT = "#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}";

/** `display-message` of the pane's state, then `capture-pane` of its text (wrapped lines joined). */
export function paneTextArgs(target: ServerTarget, pane: string, history = 200): string[] {
  return [
    ...serverArgs(target),
    "display-message",
    "-p",
    "-t",
    pane,
    PANE_STATE_FORMAT,
    ";",
    "capture-pane",
    "-p",
    "-J",
    // One argument: a lone `-S` reads as a socket to whoever checks the server arguments.
    `-S-${Math.max(0, Math.floor(history))}`,
    "-t",
    pane,
  ];
}

/** The state line and the text after it, read strictly: undefined when the first line is off. */
export function parsePaneText(stdout: string): PaneText | undefined {
  const newline = stdout.indexOf("\n");
  const line = newline < 0 ? stdout : stdout.slice(0, newline);
  const match = /^([01])\t(\d*)\t(\d*)$/.exec(line);
  if (!match) return undefined;
  const dead = match[1] === "1";
  let text = newline < 0 ? "" : stdout.slice(newline + 1).replace(/\n$/, "");
  // tmux's own line under a kept pane's last words (3.3a: "Pane is dead (status 3, <date>)"); its
  // status where the format has none yet (seen under load).
  const said = dead ? /\n?Pane is dead \((?:status (\d+), )?[^\n]*\)\s*$/.exec(text) : null;
  if (said) text = text.slice(0, said.index);
  const status = match[2] !== "" ? match[2] : said?.[1];
  const signal = dead && match[3] !== "" ? { signal: Number(match[3]) } : {};
  return {
    dead,
    ...(dead && status !== undefined ? { status: Number(status) } : {}),
    ...signal,
    text,
  };
}

/** The pane's state and text; undefined when the pane is gone or tmux did not answer. */
export async function readPaneText(
  run: TmuxRunner,
  target: ServerTarget,
  pane: string,
  history?: number,
): Promise<PaneText | undefined> {
  if (!PANE_ID.test(pane)) return undefined;
  const result = await runTmux(run, paneTextArgs(target, pane, history));
  return result.status === 0 ? parsePaneText(result.stdout) : undefined;
}
