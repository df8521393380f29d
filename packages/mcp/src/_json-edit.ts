// Edits of a JSON file that leave every byte muster does not write as it was. Microsoft's
// jsonc-parser finds where a value sits and computes the edit (`modify`, unformatted, so nothing
// around it is re-indented); this file only lays muster's own new value out in the file's indent
// (its first indented line's), on a line of its own where the siblings are. `removeJson` cuts a
// member with the separator before it, the exact inverse (jsonc-parser's own removal of a last
// array element cuts a byte too few, and of a first member takes the indent after it).
import {
  applyEdits,
  findNodeAtLocation,
  type JSONPath,
  modify,
  type Node,
  parseTree,
} from "jsonc-parser";

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The file's value: an object, or undefined when it is not one (or not JSON at all). */
export function parseJsonObject(text: string | undefined): Json | undefined {
  if (text === undefined || text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One level of indentation as the file writes it (two spaces when it shows none). */
function indentUnit(text: string): string {
  const match = /\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? "  ";
}

const lineIndent = (text: string, offset: number) => {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? "";
};

/** The value at `path`, as the file has it (undefined when absent). */
export function valueAt(text: string, path: JSONPath): unknown {
  const tree = parseTree(text);
  const node = tree && findNodeAtLocation(tree, path);
  return node ? JSON.parse(text.slice(node.offset, node.offset + node.length)) : undefined;
}

/** The deepest existing container on `path`, and how much of the path it covers. */
function deepest(tree: Node, path: JSONPath): number {
  for (let depth = path.length - 1; depth > 0; depth -= 1)
    if (findNodeAtLocation(tree, path.slice(0, depth))?.type === "object") return depth;
  return 0;
}

/**
 * Set `path` to `value` (or, with `append`, add `value` at the end of the array at `path`),
 * creating the objects on the way; returns the new text. Only the new value's bytes are written.
 */
export function setJson(
  text: string | undefined,
  path: JSONPath,
  value: unknown,
  append = false,
): string {
  if (text === undefined || text.trim() === "") {
    let whole: unknown = append ? [value] : value;
    for (const key of [...path].reverse()) whole = { [key]: whole };
    return `${JSON.stringify(whole, null, 2)}\n`;
  }
  const tree = parseTree(text);
  if (!tree) throw new Error("not JSON");
  let target = path;
  let inserted: unknown = value;
  const arrayNode = append ? findNodeAtLocation(tree, path) : undefined;
  if (append && arrayNode?.type === "array") target = [...path, -1];
  else {
    if (append) inserted = [value];
    const depth = deepest(tree, path);
    if (findNodeAtLocation(tree, path) === undefined && depth < path.length - 1) {
      for (const key of path.slice(depth + 1).reverse()) inserted = { [key]: inserted };
      target = path.slice(0, depth + 1);
    }
  }
  const edits = modify(text, target, inserted, { isArrayInsertion: append });
  const unit = indentUnit(text);
  const compact = JSON.stringify(inserted);
  return applyEdits(
    text,
    edits.map((edit) => {
      if (!edit.content.endsWith(compact)) return edit;
      const prefix = edit.content.slice(0, -compact.length);
      const parent = findNodeAtLocation(tree, target.slice(0, -1));
      const siblings = parent?.children ?? [];
      const last = siblings.at(-1);
      // Inside an object or array the user wrote on one line, the new value stays on it too.
      const inline =
        parent !== undefined &&
        !text.slice(parent.offset, parent.offset + parent.length).includes("\n");
      if (inline && edit.length === 0)
        return {
          ...edit,
          content: prefix.startsWith(",") ? `, ${prefix.slice(1)}${compact}` : edit.content,
        };
      // A new member goes on its own line at its siblings' indent when they sit on lines of
      // their own; a replaced value keeps its line's indent.
      const ownLine =
        prefix.startsWith(",") &&
        parent !== undefined &&
        last !== undefined &&
        text.slice(parent.offset, last.offset).includes("\n");
      const indent =
        edit.length > 0 || ownLine
          ? lineIndent(text, edit.length > 0 ? edit.offset : last!.offset)
          : `${lineIndent(text, parent?.offset ?? 0)}${unit}`;
      const pretty = JSON.stringify(inserted, null, unit).replaceAll("\n", `\n${indent}`);
      const key = prefix.replace(/^,/, "");
      const lead = prefix.startsWith(",") ? (ownLine ? `,\n${indent}` : ", ") : "";
      return { ...edit, content: `${lead}${key}${pretty}` };
    }),
  );
}

/**
 * Remove `path` (a key, or an array element by index) with the separator before it (after it,
 * for a first member): the inverse of `setJson`. The text unchanged when the path is absent.
 */
export function removeJson(text: string, path: JSONPath): string {
  const tree = parseTree(text);
  const value = tree && findNodeAtLocation(tree, path);
  if (!value) return text;
  const node = value.parent?.type === "property" ? value.parent : value;
  const container = node.parent;
  if (!container?.children) return text;
  const siblings = container.children;
  const index = siblings.indexOf(node);
  const end = (member: Node) => member.offset + member.length;
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const [from, to] = previous
    ? [end(previous), end(node)]
    : next
      ? [node.offset, next.offset]
      : [node.offset, end(node)];
  const left = `${text.slice(0, from)}${text.slice(to)}`;
  if (previous || next) return left;
  // The only member gone: a container left holding nothing but line breaks closes up.
  const inside = left.slice(container.offset + 1, end(container) - 1 - (to - from));
  return /^\s*$/.test(inside) && inside.includes("\n")
    ? `${left.slice(0, container.offset + 1)}${left.slice(end(container) - 1 - (to - from))}`
    : left;
}
