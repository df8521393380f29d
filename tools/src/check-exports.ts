// The public-surface check: every name a package's `src/index.ts` exports is used outside that
// package (by another package, a tool, a benchmark or a test), or is a type that a used export's
// signature shows. A name only the package itself uses belongs in its `_file.ts`, not its surface.
// It reads the TypeScript AST and types, so comments and strings never count as a use.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { exportsProgram } from "./check-readme-names.ts";

/** The packages (folders under the root) whose index must export only what callers use. */
export const SURFACE_PACKAGES = [
  "packages/core",
  "packages/tmux",
  "packages/roster",
  "packages/reconciler",
  "packages/node",
  "packages/nats",
  "internal/wiring",
] as const;

/** Where callers live, under the repository root. */
const CALLER_ROOTS = ["packages", "internal", "tools"];
const SKIPPED = new Set(["node_modules", "dist", "fixtures", ".turbo"]);

export type UnusedExport = { file: string; line: number; name: string };
export type SurfaceReport = { exported: number; used: number; unused: UnusedExport[] };

const isCode = (name: string) => /\.(c|m)?tsx?$/.test(name) && !name.endsWith(".d.ts");

function listCode(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...listCode(full));
    else if (entry.isFile() && isCode(entry.name)) found.push(full);
  }
  return found;
}

const parse = (fileName: string, text: string) =>
  ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** The names `text` imports from each `@scope/name` package: named imports, re-exports, `import()`. */
export function namesImported(fileName: string, text: string): Map<string, Set<string>> {
  return importsIn(parse(fileName, text));
}

/** `namesImported` of a file already parsed, with its parents set (as a bound program's are). */
function importsIn(source: ts.SourceFile): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const namespaces = new Map<string, Set<string>>();
  const namesFrom = (node: ts.Node | undefined) => {
    if (!node || !ts.isStringLiteralLike(node)) return undefined;
    const match = /^(@[^/]+\/[^/]+)/.exec(node.text);
    if (!match?.[1]) return undefined;
    const names = found.get(match[1]) ?? new Set<string>();
    found.set(match[1], names);
    return names;
  };
  const addElements = (
    elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>,
    names: Set<string>,
  ) => {
    for (const element of elements)
      names.add((element.propertyName ?? element.name).getText(source));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const names = namesFrom(node.moduleSpecifier);
      const bindings = node.importClause?.namedBindings;
      if (names && bindings && ts.isNamespaceImport(bindings))
        namespaces.set(bindings.name.text, names);
      if (names && bindings && ts.isNamedImports(bindings)) addElements(bindings.elements, names);
    } else if (ts.isExportDeclaration(node)) {
      const names = namesFrom(node.moduleSpecifier);
      const clause = node.exportClause;
      if (names && clause && ts.isNamedExports(clause)) addElements(clause.elements, names);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const names = namesFrom(node.argument.literal);
      let qualifier = node.qualifier;
      while (qualifier && ts.isQualifiedName(qualifier)) qualifier = qualifier.left;
      if (names && qualifier) names.add(qualifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const names = namesFrom(node.arguments[0]);
      if (names) destructured(node, names);
    } else if (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) {
      const left = ts.isPropertyAccessExpression(node) ? node.expression : node.left;
      const right = ts.isPropertyAccessExpression(node) ? node.name : node.right;
      if (ts.isIdentifier(left)) namespaces.get(left.text)?.add(right.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `const { a, b } = await import("…")`: the names destructured from a dynamic import. */
function destructured(call: ts.CallExpression, names: Set<string>) {
  let node: ts.Node = call.parent;
  while (ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node)) node = node.parent;
  if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name)) {
    for (const element of node.name.elements) {
      const key = element.propertyName ?? element.name;
      if (ts.isIdentifier(key)) names.add(key.text);
    }
  } else if (ts.isPropertyAccessExpression(node)) {
    names.add(node.name.text);
  }
}

/** Every package under `repoRoot/packages`, by name, with its folder. */
function packageFolders(repoRoot: string): Map<string, string> {
  const folders = new Map<string, string>();
  for (const root of ["packages", "internal"]) {
    const parent = path.join(repoRoot, root);
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      const manifest = path.join(parent, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, "utf8")) as { name: string };
      folders.set(name, path.join(parent, entry.name));
    }
  }
  return folders;
}

type IndexExport = { name: string; line: number; target: ts.Symbol };

/** The names `indexFile` exports, each with the symbol it stands for. */
function indexExports(checker: ts.TypeChecker, indexFile: ts.SourceFile): IndexExport[] {
  const module = checker.getSymbolAtLocation(indexFile);
  if (!module) return [];
  return checker.getExportsOfModule(module).map((symbol) => {
    const declaration = symbol.declarations?.[0];
    const line = declaration
      ? indexFile.getLineAndCharacterOfPosition(declaration.getStart()).line + 1
      : 1;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return { name: symbol.name, line, target };
  });
}

/**
 * The symbols a caller meets through `roots`: each root's type, and every named type its
 * signature shows, followed through members, parameters, results and type arguments. Named types
 * declared outside `sourceRoot` (the standard library) are crossed, not opened.
 */
function shownSymbols(
  checker: ts.TypeChecker,
  roots: ts.Symbol[],
  sourceRoot: string,
): Set<ts.Symbol> {
  const shown = new Set<ts.Symbol>();
  const seenTypes = new Set<ts.Type>();
  const ownDeclaration = (symbol: ts.Symbol | undefined) =>
    symbol?.declarations?.some((declaration) =>
      path.resolve(declaration.getSourceFile().fileName).startsWith(sourceRoot + path.sep),
    ) ?? false;

  const visitSignature = (signature: ts.Signature) => {
    for (const parameter of signature.getParameters()) visitSymbolType(parameter);
    for (const parameter of signature.getTypeParameters() ?? []) {
      const constraint = parameter.getConstraint();
      if (constraint) visitType(constraint);
    }
    visitType(signature.getReturnType());
  };
  const visitSymbolType = (symbol: ts.Symbol) => {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    if (declaration) visitType(checker.getTypeOfSymbolAtLocation(symbol, declaration));
  };
  // An intersection or a union merges its parts and forgets their names, so a named type's own
  // declaration is read too: every type it names there is shown.
  const seenDeclarations = new Set<ts.Symbol>();
  const visitDeclaration = (symbol: ts.Symbol) => {
    if (seenDeclarations.has(symbol) || !ownDeclaration(symbol)) return;
    seenDeclarations.add(symbol);
    const named = (node: ts.Node): void => {
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isTypeQueryNode(node)
          ? node.exprName
          : ts.isExpressionWithTypeArguments(node)
            ? node.expression
            : undefined;
      let target = name && checker.getSymbolAtLocation(name);
      if (target && target.flags & ts.SymbolFlags.Alias) target = checker.getAliasedSymbol(target);
      if (target && ts.isTypeQueryNode(node)) visitSymbolType(target);
      else if (target && target.flags & ts.SymbolFlags.Type) {
        shown.add(target);
        visitType(checker.getDeclaredTypeOfSymbol(target));
      }
      ts.forEachChild(node, named);
    };
    for (const declaration of symbol.declarations ?? []) {
      if (ts.isTypeAliasDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)) {
        ts.forEachChild(declaration, named);
      }
    }
  };
  const visitType = (type: ts.Type): void => {
    if (seenTypes.has(type)) return;
    seenTypes.add(type);
    for (const named of [type.aliasSymbol, type.getSymbol()]) {
      if (!named) continue;
      shown.add(named);
      visitDeclaration(named);
    }
    for (const argument of type.aliasTypeArguments ?? []) visitType(argument);
    if (type.isUnionOrIntersection()) for (const part of type.types) visitType(part);
    if (type.flags & ts.TypeFlags.Object) {
      const object = type as ts.ObjectType;
      if (object.objectFlags & ts.ObjectFlags.Reference) {
        for (const argument of checker.getTypeArguments(type as ts.TypeReference)) {
          visitType(argument);
        }
      }
      const named = type.aliasSymbol ?? type.getSymbol();
      const anonymous =
        !named || named.flags & (ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.Function);
      if (!anonymous && !ownDeclaration(named) && !ownDeclaration(type.aliasSymbol)) return;
      for (const property of type.getProperties()) visitSymbolType(property);
      for (const signature of type.getCallSignatures()) visitSignature(signature);
      for (const signature of type.getConstructSignatures()) visitSignature(signature);
      for (const info of checker.getIndexInfosOfType(type)) visitType(info.type);
    }
  };

  for (const root of roots) {
    shown.add(root);
    if (root.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface | ts.SymbolFlags.Class)) {
      visitType(checker.getDeclaredTypeOfSymbol(root));
    }
    if (root.flags & ts.SymbolFlags.Value) visitSymbolType(root);
  }
  return shown;
}

/**
 * Which of each package's index exports are used outside it, and which are not; `program` when
 * given (it must hold each package's `src/index.ts`), else one built over those indexes.
 */
export function checkSurfaces(
  repoRoot: string,
  packages: readonly string[],
  extraCallers: { file: string; text: string }[] = [],
  program?: ts.Program,
): Map<string, SurfaceReport> {
  const folders = packageFolders(repoRoot);
  const indexFiles = packages.map((folder) => path.join(repoRoot, folder, "src", "index.ts"));
  const built = program ?? exportsProgram(indexFiles);
  const checker = built.getTypeChecker(); // binds every file: their parents are set
  // A caller the program holds is read as it parsed it, not parsed again (most of a package's src).
  const callers: { file: string; imports: Map<string, Set<string>> }[] = CALLER_ROOTS.map((root) =>
    path.join(repoRoot, root),
  )
    .filter((root) => existsSync(root))
    .flatMap((root) => listCode(root))
    .map((file) => {
      const source = built.getSourceFile(file);
      const imports = source ? importsIn(source) : namesImported(file, readFileSync(file, "utf8"));
      return { file: path.resolve(file), imports };
    });
  const callerFiles = callers.concat(
    extraCallers.map(({ file, text }) => ({
      file: path.resolve(file),
      imports: namesImported(file, text),
    })),
  );
  const reports = new Map<string, SurfaceReport>();
  for (const [position, name] of packages.entries()) {
    const indexPath = indexFiles[position]!;
    const packageRoot = path.dirname(path.dirname(indexPath));
    const packageName = [...folders].find(([, folder]) => folder === packageRoot)?.[0];
    const indexFile = built.getSourceFile(indexPath);
    if (!packageName || !indexFile) throw new Error(`no package with an index at ${indexPath}`);
    const imported = new Set<string>();
    for (const { file, imports } of callerFiles) {
      if (file.startsWith(packageRoot + path.sep)) continue;
      for (const used of imports.get(packageName) ?? []) imported.add(used);
    }
    const exports = indexExports(checker, indexFile);
    const used = exports.filter((entry) => imported.has(entry.name));
    const shown = shownSymbols(
      checker,
      used.map((entry) => entry.target),
      path.join(packageRoot, "src"),
    );
    const unused = exports
      .filter((entry) => !shown.has(entry.target))
      .map((entry) => ({ file: indexPath, line: entry.line, name: entry.name }));
    reports.set(name, { exported: exports.length, used: used.length, unused });
  }
  return reports;
}
