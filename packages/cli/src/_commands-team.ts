// The command rows for being on the team and seeing it: status, roster, agents, join, nudge,
// beat, leave, heartbeat, seat. What a row runs is imported when it runs (see _commands.ts).
import { MAIL_MODES } from "@muster/core";
import { type Command, stringOption } from "./_command.js";
import { UsageError } from "./_context.js";

const ID_HELP = "--id ID           the member id (default: the agent this shell belongs to)";

export const TEAM_COMMANDS = {
  status: {
    summary:
      "this repository's team at a glance: members, and the agents in tmux panes (the default)",
    usage: "muster status [--watch | --line] [--json]",
    options: { watch: { type: "boolean", short: "w" }, line: { type: "boolean" } },
    help: [
      "-w, --watch       on a terminal, the live dashboard: each member's activity, mail, cards and",
      "                  leases in a 60-column pane; arrows select, Enter goes to its pane, n starts a",
      "                  member, x stops it, s sends it mail, u brings the team up, q quits. A member",
      "                  whose process died without muster stop or down shows crashed (muster up L).",
      "                  With --json one status document per change (NDJSON); else the text per change.",
      "--line            one short line for tmux's status bar: who works, idles, needs you, and your",
      "                  mail (⚑ 2 working · 1 idle · ❗ reviewer needs you · ✉ 3); muster install tmux",
      "                  adds it. No tmux call and no process table: two git calls find the team",
      "                  (the repository, its main checkout), and the roster reads /proc for each",
      "                  member's process (alive, and started when it says).",
      "                  ASCII where the locale (LC_ALL, LC_CTYPE, LANG) names no UTF-8:",
      "                  2 working | 1 idle | ! reviewer needs you | mail 3",
      "Examples: muster status   muster status --json   muster status --watch   muster status --line",
    ],
    positionals: [0, 0],
    serves: { roster: true, activity: true },
    run: async (context, values) => {
      if (values.watch && values.line) throw new UsageError("pass --watch or --line, not both");
      if (values.line) {
        const { statusLineCommand } = await import("./_status-line.js");
        return statusLineCommand(context);
      }
      if (values.watch) {
        const { watchStatus } = await import("./_status-watch.js");
        return watchStatus(context);
      }
      const { statusCommand } = await import("./_status.js");
      return statusCommand(context);
    },
  },
  go: {
    summary: "take you to a member's pane; with no label, the one waiting for you longest",
    usage: "muster go [label] [--json]",
    options: {},
    help: [
      "Switches the tmux client (this shell's, else the server's first attached one) to the",
      "member's session, window and pane. Bind it to a key: bind-key g run-shell 'muster go'",
      "Examples: muster go reviewer   muster go",
    ],
    positionals: [0, 1],
    serves: { activity: true },
    run: async (context, _values, [label]) => {
      const { goCommand } = await import("./_go.js");
      return goCommand(context, label);
    },
  },
  roster: {
    summary: "the members of this repository's team",
    usage: "muster roster [--all] [--json]",
    options: { all: { type: "boolean" } },
    help: [
      "--all             include expired records",
      "Examples: muster roster   muster roster --all --json",
    ],
    positionals: [0, 0],
    serves: { roster: true },
    run: async (context, values) => {
      const { rosterCommand } = await import("./_status.js");
      return rosterCommand(context, { all: values.all === true });
    },
  },
  agents: {
    summary: "the coding agents in the panes of the tmux server, wherever they work",
    usage: "muster agents [--json]",
    options: {},
    help: ["Examples: muster agents   muster agents --json -L work"],
    positionals: [0, 0],
    run: async (context) => {
      const { agentsCommand } = await import("./_agents.js");
      return agentsCommand(context);
    },
  },
  join: {
    summary: "join the team under a label, as the agent this shell belongs to",
    usage: "muster join <label> [--id ID] [--agent NAME] [--no-listen] [--wake] [--nudge] [--json]",
    options: {
      id: { type: "string" },
      agent: { type: "string" },
      "no-listen": { type: "boolean" },
      wake: { type: "boolean" },
      nudge: { type: "boolean" },
    },
    help: [
      "--id ID           the member id (default: derived from the agent process this shell runs under)",
      "--agent NAME      the agent's name as peers see it (default: the engine found, e.g. codex)",
      `--no-listen       mail: off — ${MAIL_MODES.off}`,
      `--wake            mail: wakes — ${MAIL_MODES.wakes}`,
      "--nudge           --wake, for an engine with no native wake: when mail arrives and the agent is",
      "                  idle at an empty input line, type one fixed line into its pane and press Enter",
      "                  (never the mail's text, never Escape or Ctrl-C; a half-typed line is left alone)",
      "Neither: MUSTER_MAIL=off|quiet|wakes, the mail setting every door reads (the MCP server and",
      `pi too); unset, a new member's mail is quiet — ${MAIL_MODES.quiet}; a re-join keeps the last choice.`,
      "Labels are 1-32 letters, digits, '.', '_' or '-'. Re-joining under another label renames.",
      "Examples: muster join reviewer --wake   muster join alice --no-listen --json",
    ],
    positionals: [1, 1],
    serves: { join: true },
    run: async (context, values, [label]) => {
      if (values["no-listen"] && (values.wake || values.nudge))
        throw new UsageError(
          `--no-listen and --${values.wake ? "wake" : "nudge"} contradict each other; pick one`,
        );
      const watching = values["no-listen"]
        ? { armed: false, wake: false }
        : values.wake || values.nudge
          ? { armed: true, wake: true }
          : undefined;
      const { joinCommand } = await import("./_membership.js");
      return joinCommand(context, {
        label: label!,
        id: stringOption(values.id),
        agent: stringOption(values.agent),
        watching,
        nudge: values.nudge === true,
      });
    },
  },
  nudge: {
    summary:
      "type a fixed nudge into a member's pane when mail arrives and it is idle (join --nudge starts it)",
    usage: "muster nudge [--id ID] [--json]",
    options: { id: { type: "string" } },
    help: [
      ID_HELP,
      "Runs until the member leaves or its process ends; one per member. It types only when the",
      "pane's input line shows an empty prompt and the screen, cursor and the agent's CPU time",
      "stay still for 0.4 s; it checks that the line holds exactly the prompt and its text before",
      "pressing Enter, and marks the mail's receipt woke. --json: one line per nudge.",
      "Example: muster nudge --id aider-1 --json   (muster join aider-1 --nudge starts it in the background)",
    ],
    positionals: [0, 0],
    run: async (context, values) => {
      const { nudgeCommand } = await import("./_nudge.js");
      return nudgeCommand(context, { id: stringOption(values.id) });
    },
  },
  beat: {
    summary:
      "beat this host's members on a team on NATS while their processes live (join starts it)",
    usage: "muster beat [--json]",
    options: {},
    help: [
      "Another machine sees a member kept live by its process (a shell, Codex, Claude Code) only",
      "by its heartbeat. One beater per host and team (a lock the kernel frees when it dies) beats",
      "them every heartbeat interval while their processes run, takes off the team those that",
      "died (only this host can prove it), and ends when none is left. A team on its folder needs",
      "none. --json: one line per round that beat or took off someone, and one at the end.",
      "Example: muster beat --json   (in the foreground; muster join starts it in the background)",
    ],
    positionals: [0, 0],
    run: async (context) => {
      const { beatCommand } = await import("./_beat.js");
      return beatCommand(context);
    },
  },
  leave: {
    summary: "leave the team (unread mail stays readable until pruned)",
    usage: "muster leave [--id ID] [--json]",
    options: { id: { type: "string" } },
    help: [ID_HELP, "Examples: muster leave   muster leave --id aider-1 --json"],
    positionals: [0, 0],
    serves: { join: true },
    run: async (context, values) => {
      const { leaveCommand } = await import("./_membership.js");
      return leaveCommand(context, { id: stringOption(values.id) });
    },
  },
  heartbeat: {
    summary: "tell the team this member is alive (for members that want a heartbeat)",
    usage: "muster heartbeat [--id ID] [--json]",
    options: { id: { type: "string" } },
    help: [ID_HELP, "Examples: muster heartbeat   muster heartbeat --id aider-1 --json"],
    positionals: [0, 0],
    run: async (context, values) => {
      const { heartbeatCommand } = await import("./_membership.js");
      return heartbeatCommand(context, { id: stringOption(values.id) });
    },
  },
} satisfies Record<string, Command>;

export const SEAT_COMMAND: Command = {
  summary: "where an agent sits in tmux (default: this shell's agent, proven by ancestry)",
  usage: "muster seat [--pane %N | --pid N | --codex-thread ID] [--json]",
  options: {
    pane: { type: "string" },
    pid: { type: "string" },
    "codex-thread": { type: "string" },
  },
  help: [
    "--pane %N           the seat of this pane",
    "--pid N             the pane this process descends from",
    "--codex-thread ID   the pane whose title shows this Codex thread id",
    "Examples: muster seat   muster seat --pane %3 --json   muster seat --pid 4242",
  ],
  positionals: [0, 0],
  run: async (context, values) => {
    const chosen = ["pane", "pid", "codex-thread"].filter((name) => values[name] !== undefined);
    if (chosen.length > 1)
      throw new UsageError(
        `pass one of --pane, --pid, --codex-thread, not ${chosen.map((name) => `--${name}`).join(" and ")}`,
      );
    const pid = stringOption(values.pid);
    if (pid !== undefined && !/^\d+$/.test(pid))
      throw new UsageError(`--pid takes a process id, not "${pid}"`);
    const { seatCommand } = await import("./_seat.js");
    return seatCommand(context, {
      pane: stringOption(values.pane),
      pid: pid === undefined ? undefined : Number(pid),
      codexThread: stringOption(values["codex-thread"]),
    });
  },
};
