// A re-install over muster's own server entry that differs only in `env_vars` (an older muster
// passed fewer settings): the list's bytes are replaced where they stand, and nothing else of the
// file moves (muster's table stays where the user put it, with the user's comments in it).
import { isTable, sameValue, type Table } from "./_codex-values.js";
import { arrayOf, entries, splice, type TomlTree } from "./_toml-edit.js";

const ENTRY = "mcp_servers.muster.env_vars";

/** `text` with the entry's env_vars list made `wanted`, or undefined when that is not the only change. */
export function updateEnvVars(
  text: string,
  tree: TomlTree,
  existing: unknown,
  wanted: Table,
): string | undefined {
  if (!isTable(existing) || existing.env_vars === undefined) return undefined;
  if (!sameValue({ ...existing, env_vars: wanted.env_vars }, wanted)) return undefined;
  const found = entries(tree).filter((entry) => entry.path.join(".") === ENTRY);
  const list = found.length === 1 ? arrayOf(found[0]) : undefined;
  if (!list) return undefined;
  const values = (wanted.env_vars as readonly string[]).map((name) => JSON.stringify(name));
  return splice(text, [
    { from: list.range[0], to: list.range[1], content: `[${values.join(", ")}]` },
  ]);
}
