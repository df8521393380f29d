// Reading a command line against the command table: which command it names (wherever the global
// options put it), and its options and words, or a usage error in muster's own words.
import { parseArgs } from "node:util";
import { nearestName, printable } from "@muster/core";
import { type Command, GLOBAL, type Options, type Values } from "./_command.js";
import { COMMANDS } from "./_commands.js";

/** Options that take a value (any command's): the word after one is its value, not a command. */
const TAKES_VALUE = new Set(
  [GLOBAL, ...Object.values(COMMANDS).map((command) => command.options)].flatMap((options) =>
    Object.entries(options)
      .filter(
        ([long, option]) =>
          option.type === "string" &&
          !Object.values(COMMANDS).some((command) => command.bare?.[long] !== undefined),
      )
      .flatMap(([long, option]) => [`--${long}`, ...(option.short ? [`-${option.short}`] : [])]),
  ),
);

/**
 * The command's name, wherever global options put it (`muster -L work agents`, as in tmux and
 * git), and every other word, for the parser: the first word that is neither an option nor a
 * global option's value.
 */
export function splitCommand(argv: readonly string[]): { name?: string; rest: string[] } {
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === "--") break;
    if (word.startsWith("-")) {
      if (TAKES_VALUE.has(word)) index += 1;
      continue;
    }
    return { name: word, rest: [...argv.slice(0, index), ...argv.slice(index + 1)] };
  }
  return { rest: [...argv] };
}

/** `--json` among the words before `--`: a usage error is then a JSON document too. */
export const asksJson = (argv: readonly string[]) => {
  const end = argv.includes("--") ? argv.indexOf("--") : argv.length;
  return argv.slice(0, end).includes("--json");
};

export type Parsed =
  | { ok: true; values: Values; positionals: string[] }
  | { ok: false; error: string; suggestion?: string | undefined };

/** The long option nearest an unknown one (`--al` → `--all`). */
const nearestOption = (rawName: string, options: Options) => {
  const nearest = nearestName(rawName.replace(/^-+/, ""), Object.keys(options));
  return nearest === undefined ? undefined : `--${nearest}`;
};

/**
 * What is wrong with the options, said as muster says it (never the parser's own text), and the
 * option meant where an unknown one is a slip of the keyboard.
 */
function optionError(
  args: string[],
  options: Options,
): { error: string; suggestion?: string | undefined } {
  const { tokens } = parseArgs({
    args,
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const name = printable(token.rawName);
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (!option)
      return {
        error: `unknown option ${name}`,
        suggestion: token.rawName.startsWith("--")
          ? nearestOption(token.rawName, options)
          : undefined,
      };
    if (option.type === "boolean" && token.value !== undefined)
      return { error: `${name} takes no value` };
    if (option.type === "string" && token.value === undefined)
      return { error: `${name} takes a value` };
    if (option.type === "string" && token.inlineValue === false && token.value?.startsWith("-"))
      return { error: `${name} takes a value; for one that starts with "-", write ${name}=VALUE` };
  }
  return { error: "the options cannot be read" };
}

/** The command's options and words; a bare option (`--wait`) takes its default value first. */
export function parseCommand(command: Command, rest: readonly string[]): Parsed {
  const bare = command.bare ?? {};
  const end = rest.includes("--") ? rest.indexOf("--") : rest.length;
  const args = rest.map((word, index) =>
    index < end && word.startsWith("--") && Object.hasOwn(bare, word.slice(2))
      ? `${word}=${bare[word.slice(2)]}`
      : word,
  );
  const options = { ...GLOBAL, ...command.options };
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { ok: true, values: parsed.values as Values, positionals: parsed.positionals };
  } catch {
    return { ok: false, ...optionError(args, options) };
  }
}
