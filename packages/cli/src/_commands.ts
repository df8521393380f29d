// The commands as a table: name, summary, options, help, and what runs. Global options are the
// same for every command. `_main.ts` parses against this table and turns outcomes into exit codes.
import type { ParseArgsConfig } from "node:util";
import { MAIL_MODES, parseWaitGoal } from "@muster/core";
import { boardCommand } from "./_board.js";
import { type Context, UsageError } from "./_context.js";
import { installGitHook } from "./_git-hook.js";
import { hookCommand } from "./_hook.js";
import { installCommand } from "./_install.js";
import { guardCommand, leaseCommand, parseTtl, releaseCommand } from "./_leases.js";
import { inboxCommand, sendCommand } from "./_mail.js";
import { doctorCommand, pruneCommand } from "./_maintenance.js";
import { mcpCommand } from "./_mcp.js";
import { heartbeatCommand, joinCommand, leaveCommand } from "./_membership.js";
import { nudgeCommand } from "./_nudge.js";
import { seatCommand } from "./_seat.js";
import { spawnCommand } from "./_spawn.js";
import { agentsCommand, rosterCommand, statusCommand } from "./_status.js";
import { watchStatus } from "./_status-watch.js";
import { spawnListCommand, stopCommand } from "./_stop.js";
import { parseTimeout } from "./_wait.js";

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | undefined>;

export type Command = {
  summary: string;
  usage: string;
  options: Options;
  help: string[];
  positionals: [min: number, max: number];
  /** String options that may also be given bare (`--wait`), and the value they then take. */
  bare?: Record<string, string>;
  run: (context: Context, values: Values, positionals: string[]) => Promise<void>;
};

export const GLOBAL: Options = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "team-dir": { type: "string" },
  "socket-name": { type: "string", short: "L" },
  "socket-path": { type: "string", short: "S" },
  version: { type: "boolean", short: "v" },
};

/** A string option's value; undefined when absent or given as a bare flag. */
export const stringOption = (value: string | boolean | undefined) =>
  typeof value === "string" ? value : undefined;

export const COMMANDS: Record<string, Command> = {
  status: {
    summary:
      "this repository's team at a glance: members, and the agents in tmux panes (the default)",
    usage: "muster status [--watch] [--json]",
    options: { watch: { type: "boolean", short: "w" } },
    help: ["-w, --watch       redraw every couple of seconds from the reconcile loop until Ctrl-C"],
    positionals: [0, 0],
    run: (context, values) => (values.watch ? watchStatus(context) : statusCommand(context)),
  },
  roster: {
    summary: "the members of this repository's team",
    usage: "muster roster [--all] [--json]",
    options: { all: { type: "boolean" } },
    help: ["--all             include expired records"],
    positionals: [0, 0],
    run: (context, values) => rosterCommand(context, { all: values.all === true }),
  },
  agents: {
    summary: "the coding agents in the panes of the tmux server, wherever they work",
    usage: "muster agents [--json]",
    options: {},
    help: [],
    positionals: [0, 0],
    run: (context) => agentsCommand(context),
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
      `Neither: a new member's mail is quiet — ${MAIL_MODES.quiet}; a re-join keeps the last choice.`,
      "Labels are 1-32 letters, digits, '.', '_' or '-'. Re-joining under another label renames.",
    ],
    positionals: [1, 1],
    run: (context, values, [label]) => {
      if (values["no-listen"] && (values.wake || values.nudge))
        throw new UsageError(
          `--no-listen and --${values.wake ? "wake" : "nudge"} contradict each other; pick one`,
        );
      const watching = values["no-listen"]
        ? { armed: false, wake: false }
        : values.wake || values.nudge
          ? { armed: true, wake: true }
          : undefined;
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
      "--id ID           the member id (default: the agent this shell belongs to)",
      "Runs until the member leaves or its process ends; one per member. It types only when the",
      "pane's input line shows an empty prompt and the screen, cursor and the agent's CPU time",
      "stay still for 0.4 s; it checks that the line holds exactly the prompt and its text before",
      "pressing Enter, and marks the mail's receipt woke. --json: one line per nudge.",
      "Example: muster join aider-1 --nudge   (from the agent's pane: starts this in the background)",
    ],
    positionals: [0, 0],
    run: (context, values) => nudgeCommand(context, { id: stringOption(values.id) }),
  },
  leave: {
    summary: "leave the team (unread mail stays readable until pruned)",
    usage: "muster leave [--id ID] [--json]",
    options: { id: { type: "string" } },
    help: ["--id ID           the member id (default: the agent this shell belongs to)"],
    positionals: [0, 0],
    run: (context, values) => leaveCommand(context, { id: stringOption(values.id) }),
  },
  heartbeat: {
    summary: "tell the team this member is alive (for members that want a heartbeat)",
    usage: "muster heartbeat [--id ID] [--json]",
    options: { id: { type: "string" } },
    help: ["--id ID           the member id (default: the agent this shell belongs to)"],
    positionals: [0, 0],
    run: (context, values) => heartbeatCommand(context, { id: stringOption(values.id) }),
  },
  send: {
    summary: "send mail to members by label (a,b for several), or to all",
    usage:
      "muster send <label[,label…]|all> [message…] [--reply-to ID] [--from LABEL | --id ID] [--urgent] [--wait[=ack] [--timeout 30s]] [--json]",
    options: {
      from: { type: "string" },
      id: { type: "string" },
      urgent: { type: "boolean" },
      "reply-to": { type: "string" },
      wait: { type: "string" },
      timeout: { type: "string" },
    },
    bare: { wait: "delivered" },
    help: [
      "message…          the words of the message; '-' or none reads it from stdin",
      "--reply-to ID     answer the message with this id (inbox --all shows the thread)",
      "--from LABEL      send as this member (default: the agent this shell belongs to)",
      "--id ID           send as the member with this id",
      "--urgent          may interrupt the recipient's current turn (if it lets mail wake it)",
      "--wait[=ack]      then wait until every recipient was shown it (=ack: until each read it),",
      "                  and say which phase each reached: written, woke, delivered, read",
      "--timeout D       how long --wait waits: 30s (default), 2m, 500ms; exit 1 if not all got there",
      "Reports per recipient when they will see it: now (it wakes them), at their next turn, or",
      "only when they read their inbox. A label nobody live holds sends nothing at all.",
      "Examples: muster send alice,bob 'tests pass on main'   echo done | muster send all",
      "          muster send reviewer 'PR #12 is ready' --wait --timeout 1m",
      "          muster send all 'freeze main' --wait=ack --json",
    ],
    positionals: [1, Number.POSITIVE_INFINITY],
    run: (context, values, [to, ...words]) => {
      if (values.from && values.id) throw new UsageError("pass --from or --id, not both");
      if (values.timeout !== undefined && values.wait === undefined)
        throw new UsageError("--timeout is for --wait; add --wait");
      const goal =
        values.wait === undefined ? undefined : parseWaitGoal(stringOption(values.wait) ?? "");
      if (goal && !goal.ok) throw new UsageError(goal.error);
      return sendCommand(context, {
        wait: goal?.ok
          ? { goal: goal.goal, timeoutMs: parseTimeout(stringOption(values.timeout) ?? "30s") }
          : undefined,
        to: to!,
        words,
        from: stringOption(values.from),
        id: stringOption(values.id),
        urgent: values.urgent === true,
        replyTo: stringOption(values["reply-to"]),
      });
    },
  },
  inbox: {
    summary: "read new mail, oldest first, and mark it read (--all: read mail too, as threads)",
    usage: "muster inbox [--id ID | --label L] [--all] [--peek] [--follow] [--json]",
    options: {
      id: { type: "string" },
      label: { type: "string" },
      peek: { type: "boolean" },
      follow: { type: "boolean", short: "f" },
      all: { type: "boolean", short: "a" },
    },
    help: [
      "--id ID, --label L   whose inbox (default: the agent this shell belongs to)",
      "-a, --all            read mail too, newest thread last, each reply under what it answers",
      "--peek               do not mark the mail read",
      "-f, --follow         keep waiting for mail until Ctrl-C (with --json: one JSON line per message)",
    ],
    positionals: [0, 0],
    run: (context, values) => {
      if (values.id && values.label) throw new UsageError("pass --id or --label, not both");
      if (values.all && values.follow) throw new UsageError("pass --all or --follow, not both");
      return inboxCommand(context, {
        id: stringOption(values.id),
        label: stringOption(values.label),
        peek: values.peek === true,
        follow: values.follow === true,
        all: values.all === true,
      });
    },
  },
  seat: {
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
    ],
    positionals: [0, 0],
    run: (context, values) => {
      const chosen = ["pane", "pid", "codex-thread"].filter((name) => values[name] !== undefined);
      if (chosen.length > 1)
        throw new UsageError(
          `pass one of --pane, --pid, --codex-thread, not ${chosen.map((name) => `--${name}`).join(" and ")}`,
        );
      const pid = stringOption(values.pid);
      if (pid !== undefined && !/^\d+$/.test(pid))
        throw new UsageError(`--pid takes a process id, not "${pid}"`);
      return seatCommand(context, {
        pane: stringOption(values.pane),
        pid: pid === undefined ? undefined : Number(pid),
        codexThread: stringOption(values["codex-thread"]),
      });
    },
  },
  board: {
    summary: "the team's task board: cards to claim, with dependencies, hand-offs and a lead",
    usage:
      "muster board [list|show|add|claim|done|drop|handoff|ask|lead] [args…] [options] [--json]",
    options: {
      state: { type: "string" },
      owner: { type: "string" },
      mine: { type: "boolean" },
      body: { type: "string" },
      after: { type: "string" },
      as: { type: "string" },
      id: { type: "string" },
    },
    help: [
      "list                        open and held cards (the default); --state open|held|done|ready|blocked|all,",
      "                            --owner LABEL, --mine",
      "show <card>                 one card with its history",
      "add <title…>                a new card; --body TEXT, --after c3,c4 (it waits for those)",
      "claim <card>                take a card: exactly one of many claimers wins",
      "done <card> [note…]         finish the card you hold",
      "drop <card> <reason…>       put the card you hold back to open",
      "handoff <card> <label> [message…]   pass the card you hold to a live member (they get mail)",
      "ask <card> <question…>      mail the card's holder (else its creator) about it",
      "lead [<label> | none]       show or set the board's lead (told of finished, dropped, released, blocked)",
      "--as LABEL                  the label to join under when this shell is not on the team (add, claim, ask)",
      "--id ID                     act as the member with this id",
      "",
      "Examples:",
      '  muster board add "fix the login redirect" --after c3',
      "  muster board claim c4",
      '  muster board done c4 "merged in #212"',
      '  muster board handoff c4 bob "needs the API key from ops"',
      "  muster board --state ready --json",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    run: (context, values, words) =>
      boardCommand(context, words, {
        id: stringOption(values.id),
        as: stringOption(values.as),
        state: stringOption(values.state),
        owner: stringOption(values.owner),
        mine: values.mine === true,
        body: stringOption(values.body),
        after: stringOption(values.after),
      }),
  },
  spawn: {
    summary: "open a pane beside this shell's seat and start an engine there as a new member",
    usage:
      "muster spawn <engine> [--label L] [--task TEXT | --task-file F] [--window] [--cwd DIR | --worktree [--branch B]] [--timeout S] [--command CMD] [-- engine arguments…] | muster spawn --list",
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
    },
    help: [
      "<engine>          pi, codex, claude, gemini, opencode or aider (others with --command)",
      "--label L         the label it joins under (default: generated, e.g. pi-oak)",
      "--task TEXT       its first prompt where the engine takes one, and its first mail in every case",
      "--task-file F     the task, read from a file",
      "--window          a new window after this one (default: split this pane, to the right)",
      "--cwd DIR         where it starts (default: here)",
      "--worktree        start it in a new git worktree beside the repository (the team is shared)",
      "--branch B        the worktree's branch (default muster/<label>); one checked out elsewhere is refused",
      "--timeout S       how long to wait for it to start and join (default 30)",
      "--command CMD     the command that starts it (words split on spaces, run without a shell)",
      "--list            what muster spawned here, by whom, and its state",
      "Example: muster spawn pi --label bob --task 'review the parser'",
      "Example: muster spawn codex --window -- --model o4-mini",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    run: (context, values, [engine, ...extra]) => {
      if (values.list) {
        if (engine !== undefined) throw new UsageError("--list takes no engine");
        return spawnListCommand(context);
      }
      if (engine === undefined)
        throw new UsageError("name the engine to spawn, e.g. muster spawn pi");
      if (values.task !== undefined && values["task-file"] !== undefined)
        throw new UsageError("pass --task or --task-file, not both");
      const timeout = stringOption(values.timeout) ?? "30";
      if (!/^\d+(\.\d+)?$/.test(timeout) || Number(timeout) <= 0)
        throw new UsageError(`--timeout takes seconds, not "${timeout}"`);
      if (values.branch !== undefined && !values.worktree)
        throw new UsageError("--branch names the worktree's branch: pass --worktree too");
      if (values.worktree && values.cwd !== undefined)
        throw new UsageError("pass --cwd or --worktree, not both");
      const command = stringOption(values.command)?.split(" ").filter(Boolean);
      return spawnCommand(context, {
        engine,
        label: stringOption(values.label),
        task: stringOption(values.task),
        taskFile: stringOption(values["task-file"]),
        window: values.window === true,
        cwd: stringOption(values.cwd),
        worktree: values.worktree ? { branch: stringOption(values.branch) } : undefined,
        timeoutMs: Number(timeout) * 1000,
        extra,
        command,
      });
    },
  },
  stop: {
    summary:
      "end a member muster spawned: ask it to quit, then close its pane (only panes muster opened)",
    usage: "muster stop <label> [--json]",
    options: {},
    help: ["Refused for a pane muster did not open, or one whose server restarted since."],
    positionals: [1, 1],
    run: (context, _values, [label]) => stopCommand(context, label!),
  },
  lease: {
    summary: "say which paths you are changing, so teammates do not overwrite them",
    usage:
      "muster lease <path or glob…> [--shared] [--ttl 30m] [--reason TEXT] [--json] | muster lease --list",
    options: {
      shared: { type: "boolean" },
      ttl: { type: "string" },
      reason: { type: "string" },
      list: { type: "boolean" },
      id: { type: "string" },
    },
    help: [
      "path or glob…     relative to the repository root, git's glob rules: src/auth/**, *.md, src/a.ts",
      "--shared          others may share it, but not lease it exclusively",
      "--ttl DURATION    how long it lasts unless renewed (default 30m; 90s, 2h, 1d)",
      "--reason TEXT     what you are doing, shown to whoever is refused",
      "--list            the leases that hold now (the default with no paths)",
      "--id ID           lease as the member with this id",
      "Examples: muster lease src/auth/** --reason 'auth refactor'   muster lease --list --json",
      "A conflicting lease is refused with its holder; there is no --force: ask the holder.",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    run: (context, values, patterns) =>
      leaseCommand(context, {
        patterns,
        shared: values.shared === true,
        ttlMs: parseTtl(stringOption(values.ttl) ?? "30m"),
        reason: stringOption(values.reason),
        list: values.list === true,
        id: stringOption(values.id),
      }),
  },
  release: {
    summary: "give back path leases you hold",
    usage: "muster release <pattern…> | --all [--json]",
    options: { all: { type: "boolean" }, id: { type: "string" } },
    help: [
      "pattern…          the patterns as leased (see muster lease --list)",
      "--all             every lease you hold",
      "--id ID           release as the member with this id",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    run: (context, values, patterns) =>
      releaseCommand(context, { patterns, all: values.all === true, id: stringOption(values.id) }),
  },
  guard: {
    summary: "the git pre-commit check: refuse a commit touching paths another member leased",
    usage: "muster guard [--warn] [--json] | muster guard --install | --uninstall",
    options: {
      warn: { type: "boolean" },
      install: { type: "boolean" },
      uninstall: { type: "boolean" },
    },
    help: [
      "--warn            only warn (also: MUSTER_GUARD=warn)",
      "--install         add it as this repository's pre-commit hook (an existing hook runs after it)",
      "--uninstall       remove it and put back the hook it chained",
      "Renames count on both sides; core.ignorecase is honoured. Bypass: git commit --no-verify.",
    ],
    positionals: [0, 0],
    run: (context, values) => {
      if (values.install && values.uninstall)
        throw new UsageError("pass --install or --uninstall, not both");
      if (values.install || values.uninstall)
        return installGitHook(context, { uninstall: values.uninstall === true });
      return guardCommand(context, { warn: values.warn === true });
    },
  },
  prune: {
    summary: "remove expired members, their claims and mailboxes, and leftovers of crashes",
    usage: "muster prune [--json]",
    options: {},
    help: [],
    positionals: [0, 0],
    run: (context) => pruneCommand(context),
  },
  mcp: {
    summary:
      "serve the team's tools (roster, send, inbox) to Codex, Claude Code and other MCP clients",
    usage: "muster mcp",
    options: {},
    help: [
      "Speaks MCP on stdin/stdout; an engine starts it. Set it up with muster install codex|claude.",
      "Environment: MUSTER_LABEL (the label to join under), MUSTER_WAKE=1 (let mail wake the caller).",
    ],
    positionals: [0, 0],
    run: (context) => mcpCommand(context),
  },
  install: {
    summary:
      "set up Codex or Claude Code as team members: muster's MCP server (and Claude Code's hooks)",
    usage: "muster install <codex|claude|git-hook> [--project] [--uninstall] [--wake] [--json]",
    options: {
      project: { type: "boolean" },
      uninstall: { type: "boolean" },
      wake: { type: "boolean" },
    },
    help: [
      "--project         this repository's config (.codex/config.toml; .mcp.json and .claude/settings.json)",
      "--uninstall       remove muster's entries; a file muster has not touched since comes back byte for byte",
      "--wake            let team mail wake the Codex members this server serves (MUSTER_WAKE=1)",
      'Codex: [mcp_servers.muster], and "thread-id" in [tui] terminal_title (how muster finds the pane).',
      "Claude Code: mcpServers.muster, and hooks that join, deliver mail, wake an idle session and",
      "  refuse edits of paths another member leased.",
      "git-hook: the pre-commit lease guard (muster guard --install), chained with the hook there.",
      "Examples: muster install codex; muster install claude --project; muster install git-hook",
    ],
    positionals: [1, 1],
    run: (context, values, [engine]) => {
      if (engine === "git-hook")
        return installGitHook(context, { uninstall: values.uninstall === true });
      if (engine !== "codex" && engine !== "claude")
        throw new UsageError(`install sets up codex, claude or git-hook, not "${engine}"`);
      return installCommand(context, {
        engine,
        project: values.project === true,
        uninstall: values.uninstall === true,
        wake: values.wake === true,
      });
    },
  },
  hook: {
    summary: "what Claude Code's hooks and Codex's notify run (written by muster install)",
    usage:
      "muster hook claude <session-start|user-prompt-submit|stop|session-end|file-changed> | muster hook codex notify [-- <program>…] <json>",
    options: {},
    help: [
      "claude: reads the hook's JSON on stdin; answers as Claude Code expects for that event.",
      "codex notify: runs the notify program it chains (after --) with the same JSON argument, then",
      "  queues mail still waiting for the thread's member (once per message).",
    ],
    positionals: [2, Number.POSITIVE_INFINITY],
    run: (context, _values, [engine, event, ...rest]) =>
      hookCommand(context, engine!, event!, rest),
  },
  doctor: {
    summary: "check tmux, the team folder, the process table and Node, and say what to fix",
    usage: "muster doctor [--json]",
    options: {},
    help: [],
    positionals: [0, 0],
    run: (context) => doctorCommand(context),
  },
};

export const GLOBAL_HELP = [
  "--json            one JSON document on stdout, nothing else there",
  "--team-dir DIR    use this team folder (default: found from the repository; MUSTER_TEAM_DIR)",
  "-L NAME           the tmux server with this socket name",
  "-S PATH           the tmux server at this socket path (default: this shell's $TMUX, else tmux's default)",
  "-h, --help        show help",
  "-v, --version     print muster's version",
];
