// The team's own tmux window, where `muster up` opens its members: found by its name (the team's),
// made when there is none (in a new session of that name when no server runs), and laid out
// evenly after each member opens. A window muster makes holds a placeholder pane until its first
// member is there (a pane option marks it, so a later `up` after a SIGKILL finds and ends it). Two
// `up`s at once may each make one: the first made is the team's, and the other closes its own.
import {
  runTmux,
  type Seat,
  type ServerTarget,
  seatByPane,
  serverArgs,
  type TmuxRunner,
} from "@muster/tmux";

const PLACEHOLDER = "@muster-placeholder";
const HOLD = ["tail", "-f", "/dev/null"];

export type TeamWindow =
  | { ok: true; seat: Seat; started: boolean }
  | { ok: false; reason: string; error: string; fix: string };

type Row = { window: string; name: string; pane: string; placeholder: boolean };

/**
 * The panes of every window. A placeholder is marked by its pane option, or known by the command
 * muster started it with (an `up` SIGKILLed between making it and marking it leaves one unmarked).
 */
async function listRows(run: TmuxRunner, target: ServerTarget): Promise<Row[] | undefined> {
  const format = `#{window_id} #{pane_id} #{${PLACEHOLDER}}. #{window_name} #{pane_start_command}`;
  const listed = await runTmux(run, [...serverArgs(target), "list-panes", "-a", "-F", format]);
  if (listed.status !== 0) return undefined;
  return listed.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [window = "", pane = "", mark = "", name = "", ...start] = line.split(" ");
      const held = start.join(" ").replaceAll('"', "") === HOLD.join(" ");
      return { window, pane, placeholder: mark === "1." || held, name };
    });
}

async function mark(run: TmuxRunner, target: ServerTarget, pane: string) {
  await runTmux(run, [...serverArgs(target), "set-option", "-p", "-t", pane, PLACEHOLDER, "1"]);
}

/** A window id's number (`@12` → 12): the order tmux made the windows in. */
const windowNumber = (row: Row) => Number(row.window.slice(1));

/** The team's window: of the windows of its name, the first made (two `up`s may each make one). */
function firstNamed(rows: readonly Row[] | undefined, name: string): Row | undefined {
  const named = (rows ?? []).filter((row) => row.name === name);
  return named.sort((one, two) => windowNumber(one) - windowNumber(two))[0];
}

/** Make the team's window (a session of its name when no server runs); its pane and window. */
async function makeWindow(
  run: TmuxRunner,
  target: ServerTarget,
  name: string,
  serverRuns: boolean,
) {
  const made = await runTmux(run, [
    ...serverArgs(target),
    ...(serverRuns
      ? ["new-window", "-d", "-n", name]
      : ["new-session", "-d", "-s", name, "-n", name, "-x", "220", "-y", "60"]),
    "-P",
    "-F",
    "#{pane_id} #{window_id}",
    "--",
    ...HOLD,
  ]);
  if (made.status !== 0) return undefined;
  const [pane = "", window = ""] = made.stdout.trim().split(" ");
  await mark(run, target, pane);
  return { pane, window };
}

/**
 * Made, then looked for again: two `up`s that both found no window both made one, and of those the
 * first made is the team's; this one's own (its placeholder alone) is closed if it is not that.
 */
async function madeOnce(run: TmuxRunner, target: ServerTarget, name: string, serverRuns: boolean) {
  const made = await makeWindow(run, target, name, serverRuns);
  if (!made) return undefined;
  const first = firstNamed(await listRows(run, target), name);
  if (!first || first.window === made.window) return made.pane;
  await runTmux(run, [...serverArgs(target), "kill-window", "-t", made.window]);
  return first.pane;
}

/** The team's window on the target server: found, or made (with a server, if none runs). */
export async function teamWindow(
  run: TmuxRunner,
  target: ServerTarget,
  name: string,
): Promise<TeamWindow> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const rows = await listRows(run, target);
    let pane = firstNamed(rows, name)?.pane;
    let started = false;
    if (!pane) {
      // No server: a session named for the team; a server: a window of the team's name in it.
      // Another `up` that made the session first fails this one's: look again.
      pane = await madeOnce(run, target, name, rows !== undefined);
      if (!pane) continue;
      started = rows === undefined;
    }
    const seat = await seatByPane(run, pane, target);
    if (seat.ok) return { ok: true, seat: seat.seat, started };
  }
  return {
    ok: false,
    reason: "no-window",
    error: `tmux would not open the team's window ${name}`,
    fix: "check tmux runs (tmux -L/-S names a server), then run muster up again",
  };
}

/**
 * Lay the window out evenly, and end its placeholder once a member is there, or when this up
 * `opened` no member (the window goes with it: another up splitting it then opens a new one).
 */
export async function settleWindow(
  run: TmuxRunner,
  target: ServerTarget,
  window: string,
  opened = true,
) {
  const rows = (await listRows(run, target))?.filter((row) => row.window === window) ?? [];
  const placeholders = rows.filter((row) => row.placeholder);
  if (rows.length > placeholders.length || !opened)
    for (const row of placeholders)
      await runTmux(run, [...serverArgs(target), "kill-pane", "-t", row.pane]);
  await tile(run, target, window);
}

/** `select-layout tiled`: every pane of the window the same size (room for the next split). */
export async function tile(run: TmuxRunner, target: ServerTarget, window: string) {
  await runTmux(run, [...serverArgs(target), "select-layout", "-t", window, "tiled"]);
}
