// One row of the command table: its name's summary, usage, options and help, the capabilities it
// serves (the architecture's capability table is read from them), and what runs. The options every
// command takes are here too.
import type { ParseArgsConfig } from "node:util";
import type { Serves } from "@muster/core";
import type { Context } from "./_context.js";

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export type Command = {
  summary: string;
  usage: string;
  options: Options;
  help: string[];
  /** Help read only when asked for (`muster mcp --help` lists the server's tools from its table). */
  moreHelp?: () => Promise<string[]>;
  positionals: [min: number, max: number];
  /** The words its first argument is one of (`muster board claim`), offered by the completions. */
  words?: readonly string[];
  /** String options that may also be given bare (`--wait`), and the value they then take. */
  bare?: Record<string, string>;
  /** What a member does with it, for the capability table; nothing for the tools around the team. */
  serves?: Serves;
  /** What runs; a refusal it returns as a value (`Refused`) ends it as one thrown would. */
  run: (context: Context, values: Values, positionals: string[]) => Promise<unknown>;
};

export const GLOBAL: Options = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "team-dir": { type: "string" },
  "socket-name": { type: "string", short: "L" },
  "socket-path": { type: "string", short: "S" },
  version: { type: "boolean", short: "v" },
};

export const GLOBAL_HELP = [
  "--json            one JSON document on stdout, nothing else there",
  "--team-dir DIR    use this team folder (default: found from the repository; MUSTER_TEAM_DIR)",
  "-L NAME           the tmux server with this socket name",
  "-S PATH           the tmux server at this socket path (default: this shell's $TMUX, else tmux's default)",
  "-h, --help        show help",
  "-v, --version     print muster's version",
];

/** A string option's value; undefined when absent or given as a bare flag. */
export const stringOption = (value: Values[string]) =>
  typeof value === "string" ? value : undefined;

/** A repeatable string option's values (`multiple: true`); none when absent. */
export const listOption = (value: Values[string]) =>
  Array.isArray(value) ? value : typeof value === "string" ? [value] : [];

// How long `spawn` and `up` wait for a member to start and join (`--timeout`): a duration as
// `send --timeout` takes it (45s, 2m), or a bare number of seconds.
const UNITS: Record<string, number> = { s: 1000, m: 60_000 };

/** `--timeout` in milliseconds, or undefined when it is no positive duration (a usage error). */
export function waitLimitMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m)?$/u.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNITS[match[2] ?? "s"] as number);
  return ms > 0 ? ms : undefined;
}

/** The usage error's words for a `--timeout` that is no duration. */
export const waitLimitError = (text: string) =>
  `--timeout takes seconds or a duration like 45s or 2m, not "${text}"`;
