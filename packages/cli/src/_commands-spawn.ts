// The command rows for starting and ending teammates: spawn and stop. What a row runs is imported
// when it runs (see _commands.ts).
import { type Command, stringOption, waitLimitError, waitLimitMs } from "./_command.js";
import { UsageError } from "./_context.js";

export const SPAWN_COMMANDS = {
  spawn: {
    summary: "open a pane beside this shell's seat and start an engine there as a new member",
    usage:
      "muster spawn <engine> [--label L | --count N] [--task T | --task-file F] [--window] [--cwd DIR | --worktree [--branch B]] [--timeout S] [--command CMD] [--quiet] [-- args…] | muster spawn --list",
    options: {
      label: { type: "string" },
      task: { type: "string" },
      "task-file": { type: "string" },
      window: { type: "boolean" },
      cwd: { type: "string" },
      worktree: { type: "boolean" },
      branch: { type: "string" },
      timeout: { type: "string" },
      command: { type: "string" },
      list: { type: "boolean" },
      quiet: { type: "boolean" },
      count: { type: "string" },
    },
    help: [
      "<engine>          pi, codex, claude, gemini, opencode or aider (others with --command)",
      "--label L         the label it joins under (default: generated, e.g. pi-oak)",
      "--task TEXT       its first prompt where the engine takes one, and its first mail in every case",
      "--task-file F     the task, read from a file",
      "--window          a new window after this one (default: split this pane, to the right); from a",
      "                  plain terminal, a new window of the server -L/-S names (or tmux's default)",
      "--cwd DIR         where it starts (default: here)",
      "--worktree        start it in a new git worktree beside the repository (the team is shared)",
      "--branch B        the worktree's branch (default muster/<label>); one checked out elsewhere is refused",
      "--timeout S       how long to wait for it to start and join (default 30; seconds, or 45s, 2m)",
      "--command CMD     the command that starts it (words split on spaces, run without a shell)",
      "--quiet           its mail does not wake it (default: a spawned member wakes for its mail, within",
      "                  the wake rate; the shell's MUSTER_MAIL, MUSTER_WAKE_PER_MINUTE reach it too)",
      "--count N         start N of it, one after another, each under a label of its own (no --label)",
      "--list            what muster spawned here, by whom, and its state",
      "An engine muster is not set up in (muster install pi|codex|claude) is refused at once, nothing opened;",
      "  --command is not checked. On a terminal the wait shows its progress; a time limit says what it saw.",
      "Codex's own arguments after -- are refused unless known to keep its app-server daemon (-m, -s, -a,",
      "  -C, --add-dir, --no-alt-screen): -c or --profile would leave mail waking it only every 10 s.",
      "An engine that says it cannot run a turn (no model or key, not signed in, cannot reach its service)",
      "  or that dies at start fails the spawn (exit 1) with its own words and the fix; its pane is kept",
      "  for you to read, and muster stop L closes it. muster doctor says which engines have no model.",
      "Its model, after --: pi -- --provider anthropic --model claude-sonnet-4-5 (the key in",
      "  ANTHROPIC_API_KEY, or /login in pi); codex -- -m o4-mini (signed in: codex login);",
      "  claude -- --model sonnet (ANTHROPIC_API_KEY, or /login in Claude Code).",
      "Example: muster spawn pi --label bob --task 'review the parser'",
      "Example: muster spawn pi --label bob -- --provider anthropic --model claude-sonnet-4-5",
      "Example: muster spawn codex --window -- --model o4-mini",
      "Example: muster spawn pi --count 3 --task 'take a card from the board'",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    serves: { spawn: true },
    run: async (context, values, [engine, ...extra]) => {
      if (values.list) {
        if (engine !== undefined) throw new UsageError("--list takes no engine");
        const { spawnListCommand } = await import("./_stop.js");
        return spawnListCommand(context);
      }
      if (engine === undefined)
        throw new UsageError("name the engine to spawn, e.g. muster spawn pi");
      if (values.task !== undefined && values["task-file"] !== undefined)
        throw new UsageError("pass --task or --task-file, not both");
      const timeout = stringOption(values.timeout) ?? "30";
      const timeoutMs = waitLimitMs(timeout);
      if (timeoutMs === undefined) throw new UsageError(waitLimitError(timeout));
      if (values.branch !== undefined && !values.worktree)
        throw new UsageError("--branch names the worktree's branch: pass --worktree too");
      if (values.worktree && values.cwd !== undefined)
        throw new UsageError("pass --cwd or --worktree, not both");
      const command = stringOption(values.command)?.split(" ").filter(Boolean);
      const count = stringOption(values.count) ?? "1";
      if (!/^[1-9]\d?$/.test(count)) throw new UsageError(`--count takes 1 to 99, not "${count}"`);
      if (count !== "1" && values.label !== undefined)
        throw new UsageError("--count starts several, each under a label of its own: drop --label");
      const { spawnCommand } = await import("./_spawn.js");
      return spawnCommand(context, {
        engine,
        label: stringOption(values.label),
        task: stringOption(values.task),
        taskFile: stringOption(values["task-file"]),
        window: values.window === true,
        cwd: stringOption(values.cwd),
        worktree: values.worktree ? { branch: stringOption(values.branch) } : undefined,
        timeoutMs,
        extra,
        command,
        quiet: values.quiet === true,
        count: Number(count),
      });
    },
  },
  stop: {
    summary:
      "end a member muster spawned: ask it to quit, then close its pane (only panes muster opened)",
    usage: "muster stop <label> [--keep-worktree] [--json]",
    options: { "keep-worktree": { type: "boolean" } },
    help: [
      "--keep-worktree   keep the worktree spawn --worktree made, even with no uncommitted changes",
      "Refused for a pane muster did not open, or one whose server restarted since.",
      "A member spawned with --worktree: once it is stopped, its worktree is removed when it has no",
      "  uncommitted changes (its branch stays, with its commits); one with changes is kept, and",
      "  stop says how many and how to finish (commit them, or git worktree remove --force).",
      "A Codex member: the app-server daemon its Codex started is ended too, unless another Codex of",
      "  the same Codex home runs (it serves them all); stop says which. A daemon its Codex found",
      "  running (started by a Codex of yours, not by muster) is never ended: stop says it stays.",
      "Example: muster stop bob   muster stop bob --keep-worktree",
    ],
    positionals: [1, 1],
    serves: { stop: true },
    run: async (context, values, [label]) => {
      const { stopCommand } = await import("./_stop.js");
      return stopCommand(context, label!, values["keep-worktree"] === true);
    },
  },
} satisfies Record<string, Command>;
