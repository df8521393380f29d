// The main of `muster agents` and `muster agents --json`, with no option but the server's and the
// team folder's (-L, -S, --socket-name, --socket-path, --team-dir, each once, its value a word):
// an agent's shell tool runs it to see who works where, so it has a bundle of its own
// (_command-bundles.ts) holding agents' scan (_agents.ts) and the way a command ends
// (_run-command.ts), and none of the command line's table, parser or help. Any other `agents`
// line (--help, an unknown option, a word too many, an option twice) is handed to the CLI's main
// (the shared build's, which this bundle does not hold), so it gets muster's full answer.
import { agentsCommand } from "./_agents.js";
import { createContext, type GlobalOptions, type Io } from "./_context.js";
import { runCommand } from "./_run-command.js";

/** The options this main reads itself, and which of the global options each one sets. */
const VALUED = {
  "-L": "socketName",
  "--socket-name": "socketName",
  "-S": "socketPath",
  "--socket-path": "socketPath",
  "--team-dir": "teamDir",
} as const;

/** The options of an `agents` line this main answers; undefined for any other line. */
export function agentsLine(argv: readonly string[]): GlobalOptions | undefined {
  if (argv[0] !== "agents") return undefined;
  const options: GlobalOptions = { json: false };
  for (let at = 1; at < argv.length; at += 1) {
    const word = argv[at] as string;
    if (word === "--json" && !options.json) {
      options.json = true;
      continue;
    }
    const name = Object.hasOwn(VALUED, word) ? VALUED[word as keyof typeof VALUED] : undefined;
    const value = argv[at + 1];
    // A value the parser reads otherwise (none, empty, an option's look) is the full CLI's to say.
    if (!name || options[name] !== undefined || !value || value.startsWith("-")) return undefined;
    options[name] = value;
    at += 1;
  }
  return options;
}

/** Run the command line: agents itself for the lines agentsLine reads, else the CLI's main. */
export async function main(argv: readonly string[], io: Io, version = "0.0.0"): Promise<number> {
  const options = agentsLine(argv);
  if (!options) {
    const shared = (await import("./_main.js")) as typeof import("./_main.js");
    return shared.main(argv, io, version);
  }
  const context = createContext(io, options);
  return runCommand(context, "agents", () => agentsCommand(context));
}
