// The leaf policy lint: a leaf package (core, tmux, roster, reconciler) reaches nothing outside its
// own folder. It reads the TypeScript AST, so comments and strings never trip it and no import form
// slips past a regular expression. It owns the rules and the file walk, not the exit code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The packages that must import nothing. */
export const LEAF_PACKAGES = ["core", "tmux", "roster", "reconciler"] as const;

export type Violation = { file: string; line: number; what: string };

const OUTSIDE = "a leaf reaches nothing outside its own folder; take the effect as a parameter";
const DEPENDENCY_FIELDS = [
  "dependencies",
  "peerDependencies",
  "optionalDependencies",
  "bundledDependencies",
  "bundleDependencies",
] as const;

/** Where a module specifier points, seen from a file inside the package root. */
function describeSpecifier(specifier: string, fileName: string, packageRoot: string) {
  if (
    specifier.startsWith("./") ||
    specifier.startsWith("../") ||
    specifier === "." ||
    specifier === ".."
  ) {
    const target = path.resolve(path.dirname(fileName), specifier);
    const relative = path.relative(packageRoot, target);
    if (relative.startsWith("..") || path.isAbsolute(relative)) {
      return `relative path "${specifier}" climbs out of the package`;
    }
    return undefined;
  }
  if (specifier.startsWith("node:")) return `node builtin "${specifier}"`;
  if (path.isAbsolute(specifier)) return `absolute path "${specifier}"`;
  return `module "${specifier}"`;
}

function isRequireCallee(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression) && expression.text === "require") return "require()";
  if (ts.isPropertyAccessExpression(expression)) {
    const target = expression.expression;
    if (ts.isIdentifier(target) && target.text === "module" && expression.name.text === "require") {
      return "module.require()";
    }
    if (ts.isIdentifier(target) && target.text === "require") {
      return `require.${expression.name.text}()`;
    }
  }
  return undefined;
}

/** Every way this source file reaches outside `packageRoot`, by line. */
export function checkLeafSource(fileName: string, text: string, packageRoot: string): Violation[] {
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TS,
  );
  const violations: Violation[] = [];
  const report = (position: number, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(position);
    violations.push({ file: fileName, line: line + 1, what: `${what}, and ${OUTSIDE}` });
  };
  const reportSpecifier = (node: ts.Node, form: string, specifier: string) => {
    const where = describeSpecifier(specifier, fileName, packageRoot);
    if (where) report(node.getStart(source), `${form} of ${where}`);
  };

  for (const reference of source.referencedFiles) {
    report(reference.pos, `triple-slash reference to path "${reference.fileName}"`);
  }
  for (const reference of source.typeReferenceDirectives) {
    report(reference.pos, `triple-slash reference to types "${reference.fileName}"`);
  }
  for (const reference of source.libReferenceDirectives) {
    report(reference.pos, `triple-slash reference to lib "${reference.fileName}"`);
  }

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const form = !clause ? "side-effect import" : clause.isTypeOnly ? "import type" : "import";
      reportSpecifier(node, form, node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      reportSpecifier(
        node,
        node.isTypeOnly ? "export type … from" : "export … from",
        node.moduleSpecifier.text,
      );
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference)
    ) {
      const expression = node.moduleReference.expression;
      const specifier = ts.isStringLiteral(expression) ? expression.text : "<computed>";
      report(node.getStart(source), `import = require("${specifier}")`);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const argument = node.arguments[0];
      if (argument && ts.isStringLiteral(argument)) {
        reportSpecifier(node, "dynamic import()", argument.text);
      } else if (argument && ts.isNoSubstitutionTemplateLiteral(argument)) {
        reportSpecifier(node, "dynamic import() with a template", argument.text);
      } else if (argument && ts.isTemplateExpression(argument)) {
        report(node.getStart(source), "dynamic import() with a template that cannot be checked");
      } else {
        report(node.getStart(source), "dynamic import() with a computed argument");
      }
    } else if (ts.isCallExpression(node)) {
      const form = isRequireCallee(node.expression);
      const argument = node.arguments[0];
      const specifier =
        argument && ts.isStringLiteralLike(argument) ? ` of "${argument.text}"` : "";
      if (form) report(node.getStart(source), `${form}${specifier}`);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        reportSpecifier(node, "import() type query", argument.literal.text);
      }
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      report(node.getStart(source), `declare module "${node.name.text}"`);
    } else if (ts.isModuleDeclaration(node) && node.name.text === "global") {
      report(node.getStart(source), "declare global");
    } else if (
      ts.isMetaProperty(node) &&
      node.keywordToken === ts.SyntaxKind.ImportKeyword &&
      node.name.text === "meta"
    ) {
      report(node.getStart(source), "import.meta");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations.sort((left, right) => left.line - right.line);
}

/** Dependency fields a leaf's package.json must not declare, by line. */
export function checkLeafManifest(fileName: string, text: string): Violation[] {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    return [{ file: fileName, line: 1, what: `package.json does not parse (${String(error)})` }];
  }
  const lines = text.split("\n");
  const violations: Violation[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    const value = manifest[field];
    const declared = Array.isArray(value)
      ? value.length > 0
      : value !== null && typeof value === "object" && Object.keys(value).length > 0;
    if (!declared) continue;
    const index = lines.findIndex((line) => line.includes(`"${field}"`));
    violations.push({
      file: fileName,
      line: index + 1,
      what: `declares ${field}, and a leaf installs with nothing else at all`,
    });
  }
  return violations;
}

const isSourceFile = (name: string) =>
  /\.(c|m)?[jt]sx?$/.test(name) &&
  !/\.(test|bench)\.[cm]?[jt]sx?$/.test(name) &&
  !name.endsWith(".d.ts");

function listSources(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...listSources(full));
    else if (entry.isFile() && isSourceFile(entry.name)) found.push(full);
  }
  return found;
}

/** Lint one leaf package folder: its manifest and every non-test source under `src/`. */
export function checkLeafPackage(packageRoot: string): Violation[] {
  const violations: Violation[] = [];
  const manifestPath = path.join(packageRoot, "package.json");
  violations.push(...checkLeafManifest(manifestPath, readFileSync(manifestPath, "utf8")));
  const sourceRoot = path.join(packageRoot, "src");
  const hasSources = statSync(sourceRoot, { throwIfNoEntry: false })?.isDirectory() ?? false;
  for (const file of hasSources ? listSources(sourceRoot) : []) {
    violations.push(...checkLeafSource(file, readFileSync(file, "utf8"), packageRoot));
  }
  return violations;
}

/** Lint every leaf package that exists under `repoRoot/packages`. */
export function checkLeaves(repoRoot: string): { checked: string[]; violations: Violation[] } {
  const checked: string[] = [];
  const violations: Violation[] = [];
  for (const leaf of LEAF_PACKAGES) {
    const packageRoot = path.join(repoRoot, "packages", leaf);
    if (!statSync(path.join(packageRoot, "package.json"), { throwIfNoEntry: false })) continue;
    checked.push(leaf);
    violations.push(...checkLeafPackage(packageRoot));
  }
  return { checked, violations };
}

export function formatViolation(violation: Violation, relativeTo: string): string {
  return `${path.relative(relativeTo, violation.file)}:${violation.line}  ${violation.what}`;
}
