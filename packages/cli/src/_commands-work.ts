// The command rows for sharing the work: the board, path leases and the git guard. What a row
// runs is imported when it runs (see _commands.ts).
import { DEFAULT_LEASE_MS, nearestName } from "@muster/core";
import { type Command, stringOption } from "./_command.js";
import { UsageError } from "./_context.js";

/** The board's subcommands: completed, and suggested for a mistyped one. */
export const BOARD_COMMANDS = [
  "list",
  "show",
  "add",
  "claim",
  "done",
  "drop",
  "handoff",
  "ask",
  "lead",
] as const;

export const WORK_COMMANDS = {
  board: {
    summary: "the team's task board: cards to claim, with dependencies, hand-offs and a lead",
    usage:
      "muster board [list|show|add|claim|done|drop|handoff|ask|lead] [args…] [options] [--json]",
    words: BOARD_COMMANDS,
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
    serves: {
      "board-list": ["list", "show"],
      "board-add": "add --after",
      "board-claim": "claim",
      "board-done": "done",
      "board-drop": "drop",
      "board-handoff": "handoff",
      "board-ask": "ask",
      "board-lead": "lead",
    },
    run: async (context, values, words) => {
      // A mistyped subcommand is told before the team is opened, with the one it meant.
      const [sub = "list"] = words;
      if (sub !== "ls" && !(BOARD_COMMANDS as readonly string[]).includes(sub))
        throw new UsageError(
          `unknown board command "${sub}": use ${BOARD_COMMANDS.slice(0, -1).join(", ")} or lead`,
          { suggestion: nearestName(sub, BOARD_COMMANDS) },
        );
      const { boardCommand } = await import("./_board.js");
      return boardCommand(context, words, {
        id: stringOption(values.id),
        as: stringOption(values.as),
        state: stringOption(values.state),
        owner: stringOption(values.owner),
        mine: values.mine === true,
        body: stringOption(values.body),
        after: stringOption(values.after),
      });
    },
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
      "path or glob…     relative to the repository root, git's glob rules: 'src/auth/**', '*.md', src/a.ts",
      "                  (quote a glob, or the shell expands it into many leases first)",
      "--shared          others may share it, but not lease it exclusively",
      "--ttl DURATION    how long it lasts unless renewed (default 30m; 90s, 2h, 1d)",
      "--reason TEXT     what you are doing, shown to whoever is refused",
      "--list            the leases that hold now (the default with no paths)",
      "--id ID           lease as the member with this id",
      "Examples: muster lease 'src/auth/**' --reason 'auth refactor'   muster lease --list --json",
      "A conflicting lease is refused with its holder; there is no --force: ask the holder.",
      "Warned of: a pattern no file matches yet (a typo such as scr/**), and, where muster's git hook",
      "  is not installed (muster install git-hook), that commits do not check leases (advisory).",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    serves: { lease: true, leases: "--list" },
    run: async (context, values, patterns) => {
      const { leaseCommand, parseTtl } = await import("./_leases.js");
      return leaseCommand(context, {
        patterns,
        shared: values.shared === true,
        ttlMs:
          values.ttl === undefined ? DEFAULT_LEASE_MS : parseTtl(stringOption(values.ttl) ?? ""),
        reason: stringOption(values.reason),
        list: values.list === true,
        id: stringOption(values.id),
      });
    },
  },
  release: {
    summary: "give back path leases you hold",
    usage: "muster release <pattern…> | --all [--json]",
    options: { all: { type: "boolean" }, id: { type: "string" } },
    help: [
      "pattern…          the patterns as leased (see muster lease --list)",
      "--all             every lease you hold",
      "--id ID           release as the member with this id",
      "Examples: muster release 'src/auth/**'   muster release --all --json",
    ],
    positionals: [0, Number.POSITIVE_INFINITY],
    serves: { release: true },
    run: async (context, values, patterns) => {
      const { releaseCommand } = await import("./_leases.js");
      return releaseCommand(context, {
        patterns,
        all: values.all === true,
        id: stringOption(values.id),
      });
    },
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
      "--install         add it as this repository's pre-commit, pre-merge-commit and pre-applypatch",
      "                  hooks (git am); a hook already there runs after it, as itself",
      "--uninstall       remove them and put back the hooks they chained",
      "Not checked: git runs no hook before a cherry-pick, a rebase or a revert commits, nor for a",
      "  fast-forward merge. Examples: muster guard --install; MUSTER_GUARD=warn git commit",
      "Renames count on both sides; core.ignorecase is honoured. Bypass: git commit --no-verify.",
      "A guard that cannot check (the team's leases cannot be read) refuses the commit, saying why;",
      "  --warn lets it through. Claude Code's and pi's edit guards refuse what they cannot check",
      "  the same way, and follow symlinks: a link to a leased file is that file.",
    ],
    positionals: [0, 0],
    run: async (context, values) => {
      if (values.install && values.uninstall)
        throw new UsageError("pass --install or --uninstall, not both");
      if (values.install || values.uninstall) {
        const { installGitHook } = await import("./_git-hook.js");
        return installGitHook(context, { uninstall: values.uninstall === true });
      }
      const { guardCommand } = await import("./_guard.js");
      return guardCommand(context, { warn: values.warn === true });
    },
  },
  diff: {
    summary:
      "what a member's branch would land: the commits ahead of the base, the files, the patch",
    usage: "muster diff <label> [--stat] [--json]",
    options: { stat: { type: "boolean" } },
    help: [
      "label             a member muster spawned with --worktree (its branch muster/<label>)",
      "--stat            git's --stat instead of the whole patch",
      "Against the base: [land] base in muster.toml, else the branch the main checkout is on.",
      "What is only in the member's working tree (not committed) is listed apart: a land never takes it.",
      "",
      "Examples:",
      "  muster diff alice",
      "  muster diff alice --stat --json",
    ],
    positionals: [1, 1],
    serves: { diff: true },
    run: async (context, values, [label]) => {
      const { diffCommand } = await import("./_land.js");
      return diffCommand(context, { label: label!, stat: values.stat === true });
    },
  },
  land: {
    summary:
      "land a member's committed work on the base: rebased and checked apart, one land at a time",
    usage: "muster land <label|card> [--check CMD | --no-check] [--dry-run] [--no-wait] [--json]",
    options: {
      check: { type: "string" },
      "no-check": { type: "boolean" },
      "dry-run": { type: "boolean" },
      "no-wait": { type: "boolean" },
      id: { type: "string" },
    },
    help: [
      "label|card        the member's label, or a card (c12) whose holder's work lands",
      "--check CMD       run CMD on the result before the base moves (default: [land] check in muster.toml;",
      "                  a check from muster.toml runs only once you confirm it, once per repository and command)",
      "--no-check        land without a check",
      "--dry-run         say what would land, and what refuses it; change nothing",
      "--no-wait         while another land runs, say who is landing instead of waiting its turn",
      "--id ID           act as the member with this id",
      "A member lands its own work; the board's lead, or you at your own shell, anyone's.",
      "The member's commits are rebased onto the base in a scratch worktree (never the member's), the",
      "  check runs there (its output streamed to stderr and kept), and the base moves only if it is",
      "  still where the check started; its checkout is fast-forwarded. Green: the card is done, the",
      "  member's leases on the landed paths released, the member and the lead mailed. Red or a",
      "  conflict: the base is untouched, the member mailed why, the card stays claimed.",
      "",
      "Examples:",
      "  muster land alice --dry-run",
      '  muster land alice --check "pnpm test"',
      "  muster land c12 --no-check --json",
    ],
    positionals: [1, 1],
    serves: { land: true },
    run: async (context, values, [target]) => {
      if (values.check !== undefined && values["no-check"])
        throw new UsageError("pass --check or --no-check, not both");
      const { landCommand } = await import("./_land.js");
      return landCommand(context, {
        target: target!,
        id: stringOption(values.id),
        check: stringOption(values.check),
        noCheck: values["no-check"] === true,
        dryRun: values["dry-run"] === true,
        noWait: values["no-wait"] === true,
      });
    },
  },
} satisfies Record<string, Command>;
