// Edits of a TOML file by byte range, so every byte muster does not write stays where it was. A
// well-kept parser with source locations (toml-eslint-parser, ESLint's TOML parser) says where
// each table, key and array element is, wherever the file puts it (a `[table]`, dotted keys, a
// sub-table Codex split out); this file only cuts whole lines and splices array elements. (The
// one editor made for the job, @decimalturn/toml-patch, deletes a user's comment standing above an
// entry it removes: measured, so not used.)
import { type AST, parseTOML } from "toml-eslint-parser";

export type TomlTree = AST.TOMLProgram;
export type Splice = { from: number; to: number; content: string };

/** The syntax tree, or the parser's first line of complaint. */
export function tomlTree(
  text: string,
): { ok: true; tree: TomlTree } | { ok: false; error: string } {
  try {
    return { ok: true, tree: parseTOML(text, { tomlVersion: "1.0.0" }) };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split("\n")[0] ?? "does not parse" };
  }
}

const keyName = (key: AST.TOMLBare | AST.TOMLQuoted) =>
  key.type === "TOMLBare" ? key.name : key.value;

/** A key-value anywhere outside inline tables, with the whole path it sets. */
export type Entry = { path: string[]; node: AST.TOMLKeyValue; table: AST.TOMLTable | undefined };

export function entries(tree: TomlTree): Entry[] {
  const found: Entry[] = [];
  for (const item of tree.body[0].body) {
    if (item.type === "TOMLKeyValue")
      found.push({ path: item.key.keys.map(keyName), node: item, table: undefined });
    else
      for (const node of item.body)
        found.push({
          path: [...item.resolvedKey.map(String), ...node.key.keys.map(keyName)],
          node,
          table: item,
        });
  }
  return found;
}

export const tables = (tree: TomlTree): AST.TOMLTable[] =>
  tree.body[0].body.filter((item): item is AST.TOMLTable => item.type === "TOMLTable");

export const startsWith = (path: readonly (string | number)[], prefix: readonly string[]) =>
  prefix.every((key, index) => String(path[index]) === key);

/** The header line of a table: from its `[` to the end of its line. */
export const headerEnd = (table: AST.TOMLTable) => table.key.range[1] + 1;

/** From the start of the line holding `from` to just past the line break ending the line at `to`. */
export function wholeLines(text: string, from: number, to: number): Splice {
  const start = text.lastIndexOf("\n", from - 1) + 1;
  const stop = text.indexOf("\n", to);
  return { from: start, to: stop < 0 ? text.length : stop + 1, content: "" };
}

/**
 * A table's header line cut with one blank line before it (after it, for a table at the top), the
 * separator muster's own tables are written with.
 */
export function headerLines(text: string, table: AST.TOMLTable): Splice {
  const line = wholeLines(text, table.range[0], headerEnd(table) - 1);
  if (line.from >= 2 && text.slice(line.from - 2, line.from) === "\n\n")
    return { ...line, from: line.from - 1 };
  if (line.from === 0 && text[line.to] === "\n") return { ...line, to: line.to + 1 };
  if (line.from === 1 && text[0] === "\n") return { ...line, from: 0 };
  return line;
}

/** Apply splices that do not overlap (any order); overlapping ones are merged. */
export function splice(text: string, edits: readonly Splice[]): string {
  const sorted = [...edits].sort((left, right) => right.from - left.from || right.to - left.to);
  let result = text;
  let floor = Number.POSITIVE_INFINITY;
  for (const edit of sorted) {
    const to = Math.min(edit.to, floor);
    if (to < edit.from) continue;
    result = `${result.slice(0, edit.from)}${edit.content}${result.slice(to)}`;
    floor = edit.from;
  }
  return result;
}

/** The array value of `entry`, if that is what it holds. */
export const arrayOf = (entry: Entry | undefined) =>
  entry?.node.value.type === "TOMLArray" ? entry.node.value : undefined;

/** Remove elements `first`..`last` of an array with the separator that joined them in. */
export function cutElements(array: AST.TOMLArray, first: number, last: number): Splice {
  const elements = array.elements;
  const before = elements[first - 1];
  const after = elements[last + 1];
  if (after) return { from: elements[first]!.range[0], to: after.range[0], content: "" };
  if (before) return { from: before.range[1], to: elements[last]!.range[1], content: "" };
  return { from: elements[first]!.range[0], to: elements[last]!.range[1], content: "" };
}
