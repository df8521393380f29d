// The size check: no source file of a package (packages/*/src, internal/wiring/src; tests aside)
// over 300 lines, and no function over 80 (CONTRIBUTING.md). A `createX` factory of many closures
// counts as the one function it is: split it into the functions it holds. What is over today and
// is being split is listed by name in check-sizes.test.ts, to be emptied; a new one fails.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 80;

/** One file or function over its limit: `file` (relative), and for a function its name. */
export type Oversize = { file: string; name?: string; lines: number };

const isSource = (name: string) => /\.tsx?$/.test(name) && !/\.test(-d)?\.tsx?$/.test(name);

/** The folders whose sources are held to the sizes, relative to the root. */
export function sizedFolders(repoRoot: string): string[] {
  const packages = readdirSync(path.join(repoRoot, "packages")).map(
    (name) => `packages/${name}/src`,
  );
  return [...packages, "internal/wiring/src"];
}

/** The name a function is known by: its own, its variable's, its property's, or `(anonymous)`. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText(source);
  return "(anonymous)";
}

/** The functions (declarations, expressions, arrows, methods) of `text` over the limit. */
export function oversizedFunctions(file: string, text: string): Oversize[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Oversize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES)
        found.push({ file, name: nameOf(node as ts.FunctionLikeDeclaration, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every file and function over its limit in the sized folders. */
export function oversized(repoRoot: string): Oversize[] {
  const found: Oversize[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(path.join(repoRoot, folder), { withFileTypes: true })) {
      const relative = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.isFile() && isSource(entry.name)) {
        const text = readFileSync(path.join(repoRoot, relative), "utf8");
        const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
        if (lines > MAX_FILE_LINES) found.push({ file: relative, lines });
        found.push(...oversizedFunctions(relative, text));
      }
    }
  };
  for (const folder of sizedFolders(repoRoot)) walk(folder);
  return found;
}
