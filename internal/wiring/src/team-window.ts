// The team's own tmux window, where `muster up` opens its members: found by its name (the team's),
// made when there is none (in a new session of that name when no server runs), and laid out
// evenly after each member opens. A window muster makes holds a placeholder pane until its first
// member is there (a pane option marks it, so a later `up` after a SIGKILL finds and ends it).
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

/** The team's window on the target server: found, or made (with a server, if none runs). */
export async function teamWindow(
  run: TmuxRunner,
  target: ServerTarget,
  name: string,
): Promise<TeamWindow> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const rows = await listRows(run, target);
    const found = rows?.find((row) => row.name === name);
    let pane = found?.pane;
    let started = false;
    if (!pane) {
      // No server: a session named for the team; a server: a window of the team's name in it.
      const made = await runTmux(run, [
        ...serverArgs(target),
        ...(rows === undefined
          ? ["new-session", "-d", "-s", name, "-n", name, "-x", "220", "-y", "60"]
          : ["new-window", "-d", "-n", name]),
        "-P",
        "-F",
        "#{pane_id}",
        "--",
        ...HOLD,
      ]);
      // Another `up` made it meanwhile (a duplicate session): look again.
      if (made.status !== 0) continue;
      pane = made.stdout.trim();
      started = rows === undefined;
      await mark(run, target, pane);
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

/** Lay the window out evenly, and end its placeholder once a member is there. */
export async function settleWindow(run: TmuxRunner, target: ServerTarget, window: string) {
  const rows = (await listRows(run, target))?.filter((row) => row.window === window) ?? [];
  const placeholders = rows.filter((row) => row.placeholder);
  if (rows.length > placeholders.length)
    for (const row of placeholders)
      await runTmux(run, [...serverArgs(target), "kill-pane", "-t", row.pane]);
  await tile(run, target, window);
}

/** `select-layout tiled`: every pane of the window the same size (room for the next split). */
export async function tile(run: TmuxRunner, target: ServerTarget, window: string) {
  await runTmux(run, [...serverArgs(target), "select-layout", "-t", window, "tiled"]);
}
