// What muster recognises in a parsed Codex config (smol-toml's values): its own server entry, its
// program at the front of `notify` and the user's program chained after it, and when two parsed
// values say the same.
export type Table = Record<string, unknown>;
export const isTable = (value: unknown): value is Table =>
  typeof value === "object" && value !== null && !Array.isArray(value);
export const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/** muster's own server entry: it runs `… mcp`. */
export const isOurServer = (entry: unknown) =>
  isTable(entry) && isStrings(entry.args) && entry.args.at(-1) === "mcp";

/** The name muster's notify program goes by (its `$0`), the last word of muster's part. */
export const NOTIFY_NAME = "muster-notify";

const shQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * What `notify` runs for muster: a `sh -c` program that runs `muster hook codex notify` (this
 * muster by absolute path, else the muster on PATH) with the user's program and Codex's argument;
 * when no muster is found (an npx cache cleared, a global install removed), it runs the user's
 * program itself. Codex appends its JSON argument; the user's program, if any, follows `--`.
 */
export function notifyProgram(muster: readonly string[]): string[] {
  const hook = 'hook codex notify -- "$@"';
  const absolute = muster.length > 1 && muster.every((word) => word.startsWith("/"));
  const mine = absolute
    ? `if [ -x ${shQuote(muster[0]!)} ] && [ -f ${shQuote(muster[1]!)} ]; then exec ${muster.map(shQuote).join(" ")} ${hook}; fi; `
    : "";
  const script = `if [ "$1" = -- ]; then shift; fi; ${mine}if command -v muster >/dev/null 2>&1; then exec muster ${hook}; fi; [ $# -lt 2 ] || exec "$@"`;
  return ["sh", "-c", script, NOTIFY_NAME];
}

/** Where muster's program ends in a notify list (its last word), or -1. */
export function musterNotifyEnd(value: unknown): number {
  if (!isStrings(value)) return -1;
  if (value[0] === "sh" && value[1] === "-c" && value[3] === NOTIFY_NAME) return 3;
  for (let at = 0; at + 2 < value.length; at += 1)
    if (value[at] === "hook" && value[at + 1] === "codex" && value[at + 2] === "notify")
      return at + 2;
  return -1;
}

/** The user's own notify program inside a chained one (after muster's and `--`). */
export function userNotify(value: unknown): string[] | undefined {
  const end = musterNotifyEnd(value);
  if (end < 0) return isStrings(value) ? value : undefined;
  const list = value as string[];
  return list[end + 1] === "--" ? list.slice(end + 2) : [];
}

const canonical = (value: unknown) =>
  JSON.stringify(value, (_key, item) => (typeof item === "bigint" ? `${item}n` : item));

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isTable(value) || value instanceof Date) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])] as const)
      .filter(
        ([, item]) => !(isTable(item) && !(item instanceof Date) && Object.keys(item).length === 0),
      ),
  );
}

/**
 * Whether two parsed TOML values say the same, key order aside and empty tables aside (a
 * `[mcp_servers]` that only muster's sub-table made goes with it).
 */
export const sameValue = (left: unknown, right: unknown) =>
  canonical(sortKeys(left)) === canonical(sortKeys(right));
