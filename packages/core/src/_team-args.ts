// The engine arguments a committed muster.toml may give each member (the model and its settings,
// nothing else), and the check that refuses any other. Owns that list; not the rest of the file.

/**
 * The engine arguments a committed muster.toml may give, per engine muster can bring up: the model
 * and its settings, nothing else. `value`: the next argument (or `=…`) is its value. Everything
 * else is refused, a check that cannot decide refuses: an extension, skill, MCP or settings file
 * runs programs (pi `-e`, Claude `--mcp-config`/`--settings`, Codex `-c`), sandbox and approval
 * flags change what the agent may do unasked, session flags are muster's own, and a positional
 * argument or `--` would be a prompt the person never wrote.
 */
export const TEAM_ARGS: Readonly<Record<string, Readonly<Record<string, "value" | "flag">>>> = {
  pi: {
    "--provider": "value",
    "--model": "value",
    "--models": "value",
    "--thinking": "value",
    "--offline": "flag",
  },
  codex: { "-m": "value", "--model": "value", "--no-alt-screen": "flag" },
  claude: { "--model": "value" },
};

/** A value: printable, short, never an option or a file reference in disguise. */
const VALUE = /^[A-Za-z0-9][A-Za-z0-9._:/+@-]{0,199}$/;

/** The first argument a committed file may not give `engine`, or undefined when all may be. */
export function refusedArgument(engine: string, args: readonly string[]): string | undefined {
  const allowed = Object.hasOwn(TEAM_ARGS, engine) ? TEAM_ARGS[engine]! : {};
  for (let index = 0; index < args.length; index += 1) {
    const argument = args[index]!;
    const [name, inline] = argument.split(/=(.*)/s, 2) as [string, string | undefined];
    const kind = Object.hasOwn(allowed, name) ? allowed[name] : undefined;
    if (kind === "flag" && inline === undefined) continue;
    if (kind !== "value") return argument;
    if (inline === undefined) index += 1;
    const value = inline ?? args[index];
    if (value === undefined || !VALUE.test(value)) return value ?? `${argument} (no value)`;
  }
  return undefined;
}
