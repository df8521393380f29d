// The map check: docs/architecture.md names what the code has. Every package (a folder under
// packages/ or internal/), every space of the store contract (`StoreSpace` in the roster's
// `_store.ts`, listed in the **Spaces** item), and every file that makes a door's rows (one that
// imports a door's row module) in the doors table, whose every named file must exist. A new
// package, space or row file the document does not name fails `tools/src/check-map.test.ts`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const DOCUMENT = path.join("docs", "architecture.md");

/** Each door's row module: a file that imports it makes rows of that door (or runs its loop). */
const ROW_MODULES = [
  "packages/cli/src/_command.ts",
  "packages/mcp/src/_tool.ts",
  "packages/pi-extension/src/_tool.ts",
];

/** Every package folder under packages/ and internal/, relative to the root (`packages/core`). */
export function packageFolders(repoRoot: string): string[] {
  return ["packages", "internal"].flatMap((parent) =>
    readdirSync(path.join(repoRoot, parent))
      .map((name) => `${parent}/${name}`)
      .filter((folder) => existsSync(path.join(repoRoot, folder, "package.json"))),
  );
}

/** The packages the document names neither by folder nor by package name. */
export function unnamedPackages(repoRoot: string, doc: string): string[] {
  return packageFolders(repoRoot).filter((folder) => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, folder, "package.json"), "utf8"));
    return !doc.includes(folder) && !doc.includes(`\`${manifest.name}\``);
  });
}

/** The spaces of the store contract: the string literals of the roster's `StoreSpace`. */
export function storeSpaces(repoRoot: string): string[] {
  const file = path.join(repoRoot, "packages", "roster", "src", "_store.ts");
  const program = ts.createProgram([file], {
    noEmit: true,
    lib: ["lib.es5.d.ts"],
    types: [],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const alias = source?.statements.find(
    (node): node is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(node) && node.name.text === "StoreSpace",
  );
  if (!alias) throw new Error("packages/roster/src/_store.ts declares no StoreSpace");
  const type = checker.getTypeAtLocation(alias.name);
  const parts = type.isUnion() ? type.types : [type];
  return parts.filter((part) => part.isStringLiteral()).map((part) => part.value);
}

/** The spaces the document's **Spaces** item does not name in code. */
export function unnamedSpaces(repoRoot: string, doc: string): string[] {
  const begin = doc.indexOf("- **Spaces**");
  if (begin < 0) return storeSpaces(repoRoot);
  const end = doc.indexOf("\n- **", begin + 1);
  const item = doc.slice(begin, end < 0 ? undefined : end);
  return storeSpaces(repoRoot).filter((space) => !item.includes(`\`${space}\``));
}

/**
 * The files the doors table names, resolved: a code span with a folder (`packages/x/src/a.ts`)
 * names that file and makes its folder the row's; a bare name (`_b.ts`, `_board-*.ts`) is in the
 * last folder named before it in the row.
 */
export function doorTableFiles(doc: string): { pattern: string; line: string }[] {
  const begin = doc.indexOf("\n| door ");
  if (begin < 0) return [];
  const named: { pattern: string; line: string }[] = [];
  for (const line of doc.slice(begin + 1).split("\n")) {
    if (!line.startsWith("|")) break;
    let folder: string | undefined;
    for (const [, span] of line.matchAll(/`([^`]+\.ts)`/g)) {
      if (!span) continue;
      if (span.includes("/")) folder = path.posix.dirname(span);
      if (folder) named.push({ pattern: span.includes("/") ? span : `${folder}/${span}`, line });
    }
  }
  return named;
}

const matches = (pattern: string, file: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`).test(
    file,
  );

/** Source files (not tests) under `folder` that import `module`, relative to the root. */
function importersOf(repoRoot: string, module: string): string[] {
  const folder = path.posix.dirname(module);
  const base = path.posix.basename(module, ".ts");
  return readdirSync(path.join(repoRoot, folder))
    .filter((name) => name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(name))
    .map((name) => `${folder}/${name}`)
    .filter((file) => file !== module)
    .filter((file) =>
      new RegExp(`from "\\./${base}\\.(js|ts)"`).test(
        readFileSync(path.join(repoRoot, file), "utf8"),
      ),
    );
}

/** Row files the doors table does not name, and files it names that are not there. */
export function doorDrift(repoRoot: string, doc: string): { unnamed: string[]; missing: string[] } {
  const named = doorTableFiles(doc);
  const rowFiles = ROW_MODULES.flatMap((module) => [module, ...importersOf(repoRoot, module)]);
  const unnamed = rowFiles.filter((file) => !named.some((entry) => matches(entry.pattern, file)));
  const missing = named
    .filter((entry) => !entry.pattern.includes("*"))
    .filter((entry) => !existsSync(path.join(repoRoot, entry.pattern)))
    .map((entry) => entry.pattern);
  return { unnamed, missing };
}
