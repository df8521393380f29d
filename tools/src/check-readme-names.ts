// The README check: every value a package exports (from its index and from each subpath its
// package.json `exports` names) is named in that package's README.md, in an inline code span
// (`name`, `name(…)`, `a.name`). Types are left out: a README names what a caller calls. It reads
// the TypeScript AST and types, so a re-export from another file counts as what it exports.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export type Unnamed = { entry: string; name: string };

/** The source file of each entry in `packageDir/package.json`'s `exports` (`./package.json` aside). */
export function entrySources(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
  const targets = Object.entries(manifest.exports ?? { ".": "./src/index.ts" })
    .filter(([key]) => key !== "./package.json")
    .map(([, value]) =>
      typeof value === "string" ? value : String((value as { default: string }).default),
    );
  return targets
    .map((target) => target.replace(/^\.\/dist\/(.*)\.js$/, "./src/$1.ts"))
    .map((target) => path.join(packageDir, target))
    .filter((file) => existsSync(file));
}

/** The identifiers inside the inline code spans (and code blocks) of a markdown text. */
export function namesInCode(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const match of markdown.matchAll(/```[\s\S]*?```|`[^`\n]+`/g))
    for (const word of match[0].matchAll(/[A-Za-z_$][\w$]*/g)) names.add(word[0]);
  return names;
}

/**
 * One TypeScript program over `files` and what they import, as both checks read it (the surface
 * check and this one): each costs seconds, so a caller running both may build one for the two.
 */
export function exportsProgram(files: readonly string[]): ts.Program {
  return ts.createProgram([...files], {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    types: [],
  });
}

/**
 * The values each entry of each package in `packageDirs` exports that its README does not name,
 * by package folder: one TypeScript program for all of them, `program` when given (it must hold
 * every entry).
 */
export function unnamedExports(
  packageDirs: readonly string[],
  program?: ts.Program,
): Map<string, Unnamed[]> {
  const entries = new Map(packageDirs.map((dir) => [dir, entrySources(dir)]));
  program ??= exportsProgram([...entries.values()].flat());
  const checker = program.getTypeChecker();
  const reports = new Map<string, Unnamed[]>();
  for (const [packageDir, files] of entries) {
    const readme = path.join(packageDir, "README.md");
    const named = existsSync(readme) ? namesInCode(readFileSync(readme, "utf8")) : new Set();
    const unnamed: Unnamed[] = [];
    for (const entry of files) {
      const source = program.getSourceFile(entry);
      const module = source && checker.getSymbolAtLocation(source);
      if (!module) throw new Error(`cannot read the exports of ${entry}`);
      for (const symbol of checker.getExportsOfModule(module)) {
        const target =
          symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        if (!(target.flags & ts.SymbolFlags.Value) || named.has(symbol.name)) continue;
        unnamed.push({ entry: path.relative(packageDir, entry), name: symbol.name });
      }
    }
    reports.set(packageDir, unnamed);
  }
  return reports;
}
