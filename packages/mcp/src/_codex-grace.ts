// muster's MCP start-up grace in a Codex config: `mcp_optional_startup_grace_ms = 10000`, one
// top-level key. Codex 0.171 starts a turn without an optional MCP server still starting after
// about 1 s, so on a loaded machine a first turn ran without muster's tools. The key makes a turn
// wait for them, up to Codex's own 10 s start-up limit (it goes on at once when they are ready or
// fail). It is a key in the file, not `-c` on the command line: any `-c` (or `--profile`) runs
// Codex 0.171 without its app-server daemon, and a `codex queue` wake then waits for a 10 s poll.
// A value the user set is theirs: kept as it is, never owned, never removed.
import type { Table } from "./_codex-values.js";
import { entries, type Splice, type TomlTree, wholeLines } from "./_toml-edit.js";

export const GRACE_KEY = "mcp_optional_startup_grace_ms";
export const GRACE_MS = 10000;

const WHY =
  "a turn waits up to 10 s for muster's tools while its server starts, instead of Codex's 1 s (in the file, not -c, which would cost Codex its daemon)";

/** `text` with muster's grace among the top-level keys, unless the file has a grace already. */
export function addGrace(
  text: string,
  tree: TomlTree,
  config: Table,
  expected: Table,
  changes: string[],
  notes: string[],
): string {
  const own = config[GRACE_KEY];
  if (own !== undefined) {
    if (own !== GRACE_MS)
      notes.push(`${GRACE_KEY}: yours (${String(own)}) kept; muster's would be ${GRACE_MS}`);
    return text;
  }
  expected[GRACE_KEY] = GRACE_MS;
  changes.push(`${GRACE_KEY} = ${GRACE_MS}: ${WHY}`);
  const line = `${GRACE_KEY} = ${GRACE_MS}\n`;
  const top = tree.body[0].body.filter((item) => item.type === "TOMLKeyValue").at(-1);
  if (!top) return `${line}${text}`;
  const at = wholeLines(text, top.range[0], top.range[1]).to;
  return `${text.slice(0, at)}${at > 0 && text[at - 1] !== "\n" ? "\n" : ""}${line}${text.slice(at)}`;
}

/**
 * The cut that takes muster's grace out: only when the file before the first install (`had`)
 * had none and the key still says what muster wrote; without that record it stays, with a note.
 */
export function graceCuts(
  text: string,
  tree: TomlTree,
  config: Table,
  had: Table | undefined,
  expected: Table,
  changes: string[],
  notes: string[],
): Splice[] {
  if (config[GRACE_KEY] !== GRACE_MS) return [];
  if (!had) {
    notes.push(`left ${GRACE_KEY} = ${GRACE_MS}: muster has no record of whether you wrote it`);
    return [];
  }
  if (had[GRACE_KEY] !== undefined) return [];
  const entry = entries(tree).find((item) => item.path.join(".") === GRACE_KEY && !item.table);
  if (!entry) return [];
  delete expected[GRACE_KEY];
  changes.push(GRACE_KEY);
  return [wholeLines(text, entry.node.range[0], entry.node.range[1])];
}
