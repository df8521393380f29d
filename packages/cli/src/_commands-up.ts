// The command rows for the declared team: up and down. What a row runs is imported when it runs.
import { type Command, stringOption, waitLimitError, waitLimitMs } from "./_command.js";
import { UsageError } from "./_context.js";

const seconds = (value: string | undefined) => {
  const timeout = value ?? "60";
  const ms = waitLimitMs(timeout);
  if (ms === undefined) throw new UsageError(waitLimitError(timeout));
  return ms;
};

export const UP_COMMANDS = {
  up: {
    summary:
      "bring the team muster.toml declares up: each member not live, resumed into its last session",
    usage: "muster up [label…] [--fresh] [--here] [--timeout S] [--json]",
    options: { fresh: { type: "boolean" }, here: { type: "boolean" }, timeout: { type: "string" } },
    help: [
      "[label…]          only these members (default: every [[member]] of muster.toml); a member",
      "                  muster spawned by hand comes back by its label too",
      "--fresh           new engine sessions, never a resume (the task is given again)",
      "--here            open them beside this shell's pane, as spawn does (default: one window of",
      "                  their own, named for the team, laid out evenly; with no tmux server, a new",
      "                  session of that name; -L/-S name the server from outside tmux)",
      "--timeout S       how long each member is waited for until it is on the team (default 60;",
      "                  seconds, or a duration: 90s, 2m)",
      "muster.toml declares the team, one table per member:",
      '  [[member]]  label = "alice"  engine = "pi"  task = "review the parser"',
      '              worktree = true (or "feature/x")  args = ["--model", "sonnet"]  wake = true',
      "  args may only choose the model (the file is the repository's, not yours); anything else",
      "  goes in the engine's own config. A bad table is refused with its line, nothing started.",
      "A member already live is left alone; two ups at once start each member once. A member with",
      "  a recorded session (pi, Claude Code, a Codex thread) is resumed in it, in the same folder,",
      "  worktree and branch; one whose session is gone starts fresh and says so. A worktree is",
      "  never reset or removed.",
      "Example: muster up   muster up alice bob --fresh   muster up --here",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    run: async (context, values, labels) => {
      const { upCommand } = await import("./_up.js");
      return upCommand(context, {
        labels,
        fresh: values.fresh === true,
        here: values.here === true,
        timeoutMs: seconds(stringOption(values.timeout)),
      });
    },
  },
  down: {
    summary:
      "take members muster started down: ask each to quit, close its pane, keep its session for up",
    usage: "muster down [label…] [--json]",
    options: {},
    help: [
      "[label…]          only these members (default: every declared member and every one spawned)",
      "Each is asked to quit with its engine's own signal, then its pane is closed (only a pane muster",
      "  opened). Its engine session, worktree, cards and mail are kept: muster up brings it back.",
      "The app-server daemon its Codex members started ends once no Codex of that home is left.",
      "Example: muster down   muster down alice",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    run: async (context, _values, labels) => {
      const { downCommand } = await import("./_up.js");
      return downCommand(context, labels);
    },
  },
} satisfies Record<string, Command>;
