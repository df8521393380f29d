// The command rows around the team rather than on it: prune, mcp, install, hook, nats, migrate,
// doctor.
// What a row runs is imported when it runs, so that no command loads another's code (see
// _commands.ts).
import { nearestName } from "@muster/core";
import { type Command, listOption, stringOption } from "./_command.js";
import { UsageError } from "./_context.js";

/** What `muster install` sets up, and the subcommands of `muster nats`: completed and suggested. */
const INSTALL_TARGETS = ["codex", "claude", "pi", "git-hook", "tmux"] as const;

/** The options each install target acts on: any other is refused rather than silently ignored. */
const INSTALL_OPTIONS: Record<(typeof INSTALL_TARGETS)[number], readonly string[]> = {
  codex: ["project", "uninstall", "wake", "dry-run"],
  claude: ["project", "uninstall", "wake", "dry-run"],
  pi: ["uninstall", "dry-run", "from"],
  "git-hook": ["uninstall"],
  tmux: ["uninstall", "dry-run"],
};

/** A usage error for an install option its target would ignore (git-hook --dry-run would write). */
function refuseIgnoredOptions(target: string, values: Record<string, unknown>) {
  const takes = INSTALL_OPTIONS[target as keyof typeof INSTALL_OPTIONS];
  if (!takes) return;
  const all = new Set(Object.values(INSTALL_OPTIONS).flat());
  const ignored = [...all].find(
    (option) => values[option] !== undefined && !takes.includes(option),
  );
  if (ignored === undefined) return;
  const which = Object.entries(INSTALL_OPTIONS)
    .filter(([, options]) => options.includes(ignored))
    .map(([name]) => name);
  const named =
    which.length === 1 ? which[0] : `${which.slice(0, -1).join(", ")} and ${which.at(-1)}`;
  throw new UsageError(
    `install ${target} takes no --${ignored} (only ${named} ${which.length === 1 ? "does" : "do"})`,
  );
}
const NATS_COMMANDS = ["config", "init", "allow", "deny"] as const;

export const SETUP_COMMANDS = {
  prune: {
    summary: "remove expired members, their claims and mailboxes, and leftovers of crashes",
    usage: "muster prune [--json]",
    options: {},
    help: ["Example: muster prune --json"],
    positionals: [0, 0],
    run: async (context) => {
      const { pruneCommand } = await import("./_maintenance.js");
      return pruneCommand(context);
    },
  },
  mcp: {
    summary:
      "serve the team's tools to Codex, Claude Code and other MCP clients: roster, mail, board, leases, spawn",
    usage: "muster mcp",
    options: {},
    help: [
      "Speaks MCP on stdin/stdout; an engine starts it. Set it up with muster install codex|claude.",
      "Environment: MUSTER_LABEL (the label to join under), MUSTER_MAIL=off|quiet|wakes (the mail mode; MUSTER_WAKE=1 is wakes).",
      "Example: MUSTER_LABEL=reviewer muster mcp   (as an engine starts it, talking MCP on stdin)",
    ],
    moreHelp: async () => (await import("./_mcp.js")).mcpToolsHelp(),
    positionals: [0, 0],
    run: async (context) => {
      const { mcpCommand } = await import("./_mcp.js");
      return mcpCommand(context);
    },
  },
  install: {
    summary:
      "set up Codex, Claude Code or pi as team members, the git hook that enforces leases, or tmux's status line",
    usage:
      "muster install <codex|claude|pi|git-hook|tmux> [--project] [--uninstall] [--wake] [--dry-run] [--from SOURCE] [--json]",
    words: INSTALL_TARGETS,
    options: {
      project: { type: "boolean" },
      uninstall: { type: "boolean" },
      wake: { type: "boolean" },
      "dry-run": { type: "boolean" },
      from: { type: "string" },
    },
    help: [
      "--project         this repository's config (.codex/config.toml; .mcp.json and .claude/settings.json)",
      "--uninstall       remove muster's entries; a file muster has not touched since comes back byte for byte",
      "--wake            let team mail wake the Codex members this server serves (MUSTER_WAKE=1)",
      "--dry-run         show the change as a diff (pi: the pi command), and write nothing",
      "--from SOURCE     pi: the extension from a folder, npm: spec or git URL (default: the one",
      "                  installed beside muster, else npm)",
      'Codex: [mcp_servers.muster], "thread-id" in [tui] terminal_title (how muster finds the pane),',
      "  and mcp_optional_startup_grace_ms = 10000 (a turn waits for muster's tools) unless yours is set.",
      "Claude Code: mcpServers.muster, and hooks that join, deliver mail, wake an idle session and",
      "  refuse edits of paths another member leased.",
      "git-hook: the lease guard before each commit (muster guard --install), chained with your hooks.",
      "pi: runs pi install npm:@muster/pi-extension@<this version> (or --from, or the extension of this",
      "  version npm installed beside muster, as from a clone), and checks pi loads it.",
      "tmux: muster status --line after your own status-right, and prefix+g runs muster go (~/.tmux.conf);",
      "  a prefix+g you bind already (your file, or the server with -L/-S or inside tmux) is kept.",
      "Examples: muster install codex --dry-run; muster install claude --project; muster install pi;",
      "  muster install tmux --dry-run; muster install tmux --uninstall",
    ],
    positionals: [1, 1],
    run: async (context, values, [engine]) => {
      refuseIgnoredOptions(engine!, values);
      if (engine === "git-hook") {
        const { installGitHook } = await import("./_git-hook.js");
        return installGitHook(context, { uninstall: values.uninstall === true });
      }
      if (engine === "pi") {
        const { installPiCommand } = await import("./_install-pi.js");
        return installPiCommand(context, {
          uninstall: values.uninstall === true,
          dryRun: values["dry-run"] === true,
          from: stringOption(values.from),
        });
      }
      if (engine === "tmux") {
        const { installTmuxCommand } = await import("./_install-tmux.js");
        return installTmuxCommand(context, {
          uninstall: values.uninstall === true,
          dryRun: values["dry-run"] === true,
        });
      }
      if (engine !== "codex" && engine !== "claude")
        throw new UsageError(
          `install sets up codex, claude, pi, git-hook or tmux, not "${engine}"`,
          { suggestion: nearestName(engine!, INSTALL_TARGETS) },
        );
      const { installCommand } = await import("./_install.js");
      return installCommand(context, {
        engine,
        project: values.project === true,
        uninstall: values.uninstall === true,
        wake: values.wake === true,
        dryRun: values["dry-run"] === true,
      });
    },
  },
  hook: {
    summary: "what Claude Code's hooks and Codex's notify run (written by muster install)",
    usage:
      "muster hook claude <session-start|user-prompt-submit|stop|session-end|file-changed|notification|pre-tool-use|permission-request> | muster hook codex notify [-- <program>…] <json>",
    words: ["claude", "codex"],
    options: {},
    help: [
      "claude: reads the hook's JSON on stdin; answers as Claude Code expects for that event.",
      "codex notify: runs the notify program it chains (after --) with the same JSON argument, then",
      "  queues mail still waiting for the thread's member (once per message).",
      "--json: the answer as one document (ok, engine, event, status, stdout, stderr), for a test or a look.",
      "Example: muster hook claude stop --json < hook-input.json",
    ],
    positionals: [2, Number.POSITIVE_INFINITY],
    run: async (context, _values, [engine, event, ...rest]) => {
      const { hookCommand } = await import("./_hook.js");
      return hookCommand(context, engine!, event!, rest);
    },
  },
  nats: {
    summary:
      "print the NATS server configuration for this repository's team; make its bucket; allow or deny the server its muster.toml names",
    usage:
      "muster nats config --member NAME[=KEY]… --out DIR [--operator KEY] [--team NAME] [--listen H:P] [--store-dir DIR] [--tls-cert F --tls-key F] | muster nats init|allow|deny [--json]",
    words: NATS_COMMANDS,
    options: {
      member: { type: "string", multiple: true },
      out: { type: "string" },
      team: { type: "string" },
      listen: { type: "string" },
      "store-dir": { type: "string" },
      "tls-cert": { type: "string" },
      "tls-key": { type: "string" },
      operator: { type: "string" },
    },
    help: [
      "config: for the operator of a shared NATS server (nats-server 2.9+ with JetStream): one",
      "  account for the team, one nkey user per member, who may use the team's bucket and mail",
      "  stream and send mail only under its own name, and the team's operator, who alone makes the",
      "  bucket (members may not make, change or purge it). New seeds go to DIR/NAME.nk (0600),",
      "  the operator's to DIR/operator.nk.",
      "--operator KEY    keep the operator's public key (default: a new operator seed)",
      "--member NAME     a member (again for each); NAME=KEY keeps the public key that member has",
      "--out DIR         where new seeds go: a folder outside the repository",
      "--team NAME       the team's name (default: the origin URL, normalised)",
      "--listen H:P      where the server listens (default 127.0.0.1:4222; beyond loopback needs TLS)",
      "allow: use the server (and credentials) this repository's muster.toml names for its team;",
      "  until you do, muster connects nowhere a repository chose. Kept in ~/.config/muster/allowed.json.",
      "deny: take that back, for this repository's team (every URL allowed for it).",
      "init: with the operator's seed (MUSTER_NATS_CREDS), make the team's bucket with its settings,",
      "  or put them back on a bucket made with others (a member's open refuses such a bucket).",
      "Example: muster nats config --member alice --member bob --out ~/muster-seeds > nats.conf",
      "Example: MUSTER_NATS=nats://127.0.0.1:4222 MUSTER_NATS_CREDS=~/muster-seeds/operator.nk muster nats init",
      "Example: muster nats allow",
    ],
    positionals: [1, 1],
    run: async (context, values, [what]) => {
      if (what === "allow" || what === "deny" || what === "init") {
        const nats = await import("./_nats.js");
        if (what === "allow") return nats.natsAllowCommand(context);
        return what === "deny" ? nats.natsDenyCommand(context) : nats.natsInitCommand(context);
      }
      if (what !== "config")
        throw new UsageError(`nats's subcommands are config, init, allow and deny, not "${what}"`, {
          suggestion: nearestName(what!, NATS_COMMANDS),
        });
      const { natsConfigCommand } = await import("./_nats.js");
      return natsConfigCommand(context, {
        members: listOption(values.member),
        out: stringOption(values.out),
        team: stringOption(values.team),
        listen: stringOption(values.listen),
        storeDir: stringOption(values["store-dir"]),
        tlsCert: stringOption(values["tls-cert"]),
        tlsKey: stringOption(values["tls-key"]),
        operator: stringOption(values.operator),
      });
    },
  },
  migrate: {
    summary:
      "move the team between its folder and its NATS server, losing no record, mail, card or lease",
    usage: "muster migrate --to nats|folder [--dry-run] [--json]",
    options: { to: { type: "string" }, "dry-run": { type: "boolean" } },
    help: [
      "--to nats         from this machine's team folder to the NATS server MUSTER_NATS (or",
      "                  muster.toml's [nats]) names; the folder is kept aside, renamed",
      "--to folder       back from NATS to this machine's team folder; then unset MUSTER_NATS",
      "--dry-run         read both sides and say what would move; write nothing",
      "It refuses while a member is live (have them leave first) and when the destination already",
      "holds a team. Everything is copied, read back and counted before the source is cleared.",
      "Example: MUSTER_NATS=nats://host:4222 MUSTER_NATS_CREDS=~/alice.nk muster migrate --to nats --dry-run",
      "Example: muster migrate --to folder --json",
    ],
    positionals: [0, 0],
    run: async (context, values) => {
      const to = stringOption(values.to);
      if (to !== "nats" && to !== "folder")
        throw new UsageError("say where the team goes: --to nats or --to folder");
      const { migrateCommand } = await import("./_migrate.js");
      return migrateCommand(context, { to, dryRun: values["dry-run"] === true });
    },
  },
  doctor: {
    summary: "check tmux, the team folder, the process table and Node, and say what to fix",
    usage: "muster doctor [--json]",
    options: {},
    help: [
      "Each engine muster is set up in is asked, offline, whether it has a model (pi --offline",
      "  --list-models, codex login status, claude auth status): none is a warning with its fix; a key",
      "  or login is 'not verified', since only a model call would know it works, and doctor makes none.",
      "Examples: muster doctor   muster doctor --json -L work",
    ],
    positionals: [0, 0],
    run: async (context) => {
      const { doctorCommand } = await import("./_maintenance.js");
      return doctorCommand(context);
    },
  },
} satisfies Record<string, Command>;
