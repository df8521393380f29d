// The command lines that start often enough to have a bundle of their own (tmux runs `muster
// status --line` every second, Claude Code a hook before every edit): each bundle is the whole
// command line (main, the table, the help) with the modules those commands' rows run, in one
// file. A start then loads one module instead of the thirty chunks the shared build splits the
// same code into, each a resolve, a read and a compile-cache lookup. Read by the build
// (tsup.config.ts), which writes dist/commands/<bundle>/main.js, and by start.ts, which takes
// that file for a command line that starts with one of its commands (and has its word, if it
// names one, or is its whole line, if it serves one line only); every other command line, and a
// run from the sources, takes the shared build.

export type CommandBundle = {
  /** The first words it serves. */
  commands: readonly string[];
  /** A word the command line must also have (`--line`): the row runs another module without. */
  with?: string;
  /** The modules those rows import when they run (`./_status.js`): the rest are left out. */
  runs: readonly string[];
  /** Sources (from the package) it loads from the shared build, when they load at all. */
  apart?: readonly string[];
  /** Its main, when not the CLI's (`./_guard-main.ts`): the bundle is that module's. */
  main?: string;
  /** The whole command line it serves, word for word, when it serves one line only. */
  line?: readonly string[];
};

/** The labels kept for down members read the team file (smol-toml): only when the roster asks. */
const HELD = "../../internal/wiring/src/_team-held.ts";

export const COMMAND_BUNDLES: Readonly<Record<string, CommandBundle>> = {
  "status-line": {
    commands: ["status"],
    with: "--line",
    runs: ["./_status-line.js"],
    apart: [HELD],
  },
  team: { commands: ["roster"], runs: ["./_status.js"], apart: [HELD] },
  // An agent's `muster agents [--json]`: its own main (_agents-main.ts), agents' scan and no
  // command table; any other agents line (--help, a usage error) it hands to the CLI's main.
  agents: {
    commands: ["agents"],
    main: "./_agents-main.ts",
    runs: [],
    apart: ["src/_main.ts", HELD],
  },
  // Claude Code's PreToolUse guard, before every edit: its own main, without the command line's
  // table, parser and help (_guard-main.ts); any other hook, or this one with an option, is hook's.
  guard: {
    commands: ["hook"],
    line: ["hook", "claude", "pre-tool-use"],
    main: "./_guard-main.ts",
    runs: [],
    apart: ["src/_main.ts", HELD],
  },
  hook: { commands: ["hook"], runs: ["./_hook.js"], apart: [HELD] },
  // The server's front answers initialize and tools/list; the SDK, zod and the tools load after.
  mcp: {
    commands: ["mcp"],
    runs: ["./_mcp.js"],
    apart: ["../mcp/src/_server.ts", "../mcp/src/_stdio-handover.ts", "../mcp/src/index.ts", HELD],
  },
};

/** The bundle file for this command line, when one serves it. */
export function commandBundle(argv: readonly string[]): URL | undefined {
  const [first] = argv;
  if (first === undefined) return undefined;
  for (const [name, bundle] of Object.entries(COMMAND_BUNDLES))
    if (
      bundle.commands.includes(first) &&
      (!bundle.with || argv.includes(bundle.with)) &&
      (!bundle.line ||
        (argv.length === bundle.line.length && bundle.line.every((word, at) => argv[at] === word)))
    )
      return new URL(`./commands/${name}/main.js`, import.meta.url);
  return undefined;
}
