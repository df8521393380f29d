// Opening a pane beside a seat: the tmux arguments (split the seat's pane, or a new window after
// its window, in its session), and the one line tmux prints about the pane it made. The command
// is handed to tmux as separate arguments, so tmux runs it without a shell: no text in it (a task,
// a label) is ever parsed as shell. No text another process chose goes where tmux expands formats
// either (`#(…)` runs a command there): see `openPaneArgs`.
import { PANE_ID, runTmux, type ServerTarget, serverArgs, type TmuxRunner } from "./_server.js";

export type OpenPaneSpec = {
  /** The seat's pane (`%N`): the new pane opens beside it. */
  beside: string;
  /**
   * A new window right after this window (`@N`: the seat's) instead of a split of its pane.
   * `new-window -t` takes a window, not a pane (tmux 3.3a: "can't specify pane here").
   */
  afterWindow?: string | undefined;
  /** The working directory, an absolute path. */
  cwd: string;
  /** Variables set in the new pane's environment. */
  env?: Readonly<Record<string, string>> | undefined;
  /** The program and its arguments; tmux runs it without a shell. */
  command: readonly string[];
  /**
   * Keep the pane, with the program's last words, when the program ends with a failure (tmux's
   * `remain-on-exit failed` on this pane alone, set by the pane's own first step: no race with a
   * program that dies at once). A program that ends well closes its pane as before.
   */
  keepOnFailure?: boolean | undefined;
};

/** The pane tmux made: ids that name it, the process it started, and which server it is on. */
export type OpenedPane = {
  pane: string;
  /** The pid of the process tmux started in the pane (the command itself: no shell between). */
  pid: number;
  session: string;
  window: string;
  serverPid: number;
};

export type OpenPaneResult =
  | { ok: true; opened: OpenedPane }
  | { ok: false; reason: OpenPaneRefusal; error: string; fix: string };

export type OpenPaneRefusal = "bad-spec" | "refused";

/** What to do about each refusal: defined here, beside the checks; composers join it. */
const OPEN_PANE_FIXES: Record<OpenPaneRefusal, string> = {
  "bad-spec":
    "open it beside a pane id (%N) or after a window id (@N), in an absolute folder, with a command and plain variable names",
  refused: "check the pane to open beside is still there and its tmux server answers",
};

const refuse = (reason: OpenPaneRefusal, error: string): OpenPaneResult => ({
  ok: false,
  reason,
  error,
  fix: OPEN_PANE_FIXES[reason],
});

/** Only fixed-form fields, tab-separated: nothing another process can write. */
export const OPENED_FORMAT = "#{pane_id}\t#{pane_pid}\t#{session_id}\t#{window_id}\t#{pid}";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why this spec cannot be opened, or undefined. */
export function checkOpenPaneSpec(spec: OpenPaneSpec): string | undefined {
  if (!PANE_ID.test(spec.beside)) return `"${spec.beside}" is not a pane id (% and a number)`;
  if (spec.afterWindow !== undefined && !/^@\d+$/.test(spec.afterWindow))
    return `"${spec.afterWindow}" is not a window id (@ and a number)`;
  if (!spec.cwd.startsWith("/")) return "the working directory must be an absolute path";
  if (spec.command.length === 0 || spec.command[0] === "") return "no command to run";
  for (const [name, value] of Object.entries(spec.env ?? {})) {
    if (!ENV_NAME.test(name)) return `"${name}" is not an environment variable name`;
    if (value.includes("\0")) return `the value of ${name} holds a NUL byte`;
  }
  if ([spec.cwd, ...spec.command].some((arg) => arg.includes("\0")))
    return "an argument holds a NUL byte";
  return undefined;
}

/**
 * The program every pane starts with: it changes to the folder given as its first argument, then
 * execs the rest (so the pane's pid is the program's). A fixed script: the folder and the command
 * are its arguments, never parsed as shell.
 */
export const START_IN_FOLDER = [
  "/bin/sh",
  "-c",
  'cd -- "$1" || exit 1; shift; exec "$@"',
  "muster",
];

/**
 * START_IN_FOLDER that first sets `remain-on-exit failed` on its own pane, through the server and
 * pane tmux put in its environment ($TMUX is `socket,pid,session`; the socket path may hold a
 * comma), before the program starts. Where that fails (no tmux on PATH), the program still starts.
 */
export const START_KEEPING_FAILURE = [
  "/bin/sh",
  "-c",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  'tmux -S "${TMUX%,*,*}" set-option -p -t "$TMUX_PANE" remain-on-exit failed >/dev/null 2>&1; cd -- "$1" || exit 1; shift; exec "$@"',
  "muster",
];

/**
 * An argument as tmux's command parser keeps it: tmux 3.3a ends a command at an argument that
 * ends in `;` (measured: `new-window -- sh -c … 'abc;' display-message` runs sh with `abc` and
 * then display-message), so a task, a folder or an engine argument ending so would end the
 * command and run the rest as tmux commands. A `\;` at the end is tmux's escape for a literal `;`.
 */
export const escapeTmuxArgument = (argument: string) =>
  argument.endsWith(";") ? `${argument.slice(0, -1)}\\;` : argument;

/**
 * `split-window -h` (or `new-window -a`) beside the seat's pane, detached (focus stays with the
 * caller), printing OPENED_FORMAT. Which arguments tmux expands as formats (measured on 3.3a):
 * `-c` does (`#(…)` runs, `#{…}` and `#D` substitute, and a `#[` style is kept as it is, so no
 * escape covers every name on every version); `-e` values and the command do not; `-t` is a pane
 * id and `-F` is fixed. So the folder never goes to `-c`: the pane starts START_IN_FOLDER with the
 * folder and the command as its arguments.
 */
export function openPaneArgs(target: ServerTarget, spec: OpenPaneSpec): string[] {
  const env = Object.entries(spec.env ?? {}).flatMap(([name, value]) => [
    "-e",
    escapeTmuxArgument(`${name}=${value}`),
  ]);
  const start = spec.keepOnFailure ? START_KEEPING_FAILURE : START_IN_FOLDER;
  return [
    ...serverArgs(target),
    ...(spec.afterWindow === undefined
      ? ["split-window", "-h", "-d", "-t", spec.beside]
      : ["new-window", "-a", "-d", "-t", spec.afterWindow]),
    ...env,
    "-P",
    "-F",
    OPENED_FORMAT,
    "--",
    ...start,
    ...[spec.cwd, ...spec.command].map(escapeTmuxArgument),
  ];
}

/** Parse what tmux printed about the new pane; undefined when it is not exactly one such line. */
export function parseOpenedPane(stdout: string): OpenedPane | undefined {
  const lines = stdout.split("\n").filter((line) => line !== "");
  if (lines.length !== 1) return undefined;
  const fields = lines[0]!.split("\t");
  if (fields.length !== 5) return undefined;
  const [pane = "", pid = "", session = "", window = "", serverPid = ""] = fields;
  const number = (text: string) => (/^[1-9]\d*$/.test(text) ? Number(text) : Number.NaN);
  const opened = { pane, pid: number(pid), session, window, serverPid: number(serverPid) };
  if (!PANE_ID.test(pane) || !/^\$\d+$/.test(session) || !/^@\d+$/.test(window)) return undefined;
  if (Number.isNaN(opened.pid) || Number.isNaN(opened.serverPid)) return undefined;
  return opened;
}

/** Open the pane: one tmux call. A refusal (no such pane, no server) carries tmux's own words. */
export async function openPane(
  run: TmuxRunner,
  target: ServerTarget,
  spec: OpenPaneSpec,
): Promise<OpenPaneResult> {
  const bad = checkOpenPaneSpec(spec);
  if (bad) return refuse("bad-spec", bad);
  const result = await runTmux(run, openPaneArgs(target, spec));
  if (result.status !== 0) {
    const said = result.stderr.trim().split("\n")[0] || `exit status ${result.status}`;
    return refuse("refused", `tmux did not open the pane: ${said}`);
  }
  const opened = parseOpenedPane(result.stdout);
  if (!opened) throw new Error(`tmux printed something other than the new pane: ${result.stdout}`);
  return { ok: true, opened };
}

/** `kill-pane` for a pane already proven to be the one muster opened. */
export const closePaneArgs = (target: ServerTarget, pane: string) => [
  ...serverArgs(target),
  "kill-pane",
  "-t",
  pane,
];
