// The composer lint: a composer (the CLI, the pi extension, the MCP server) wires effects to the
// leaves and renders their answers; it defines no rules and copies no wiring. Read on the AST of
// every non-test source file, like the leaf lint. It owns the rules and the walk, not the exit code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { Violation } from "./check-leaves.ts";

/** The composer packages, by folder under packages/; those that exist are checked. */
export const COMPOSER_PACKAGES = ["cli", "pi-extension", "mcp"] as const;

/**
 * The shared wiring, by folder from the repository root: it may import what it wires (that is its
 * job), and like a composer it decides nothing and edits no leaf's text.
 */
export const WIRING_PACKAGES = ["internal/wiring"] as const;

/** Imports a composer must not use: the wiring composes them once, in @muster/wiring. */
const WIRED: Record<string, Record<string, string>> = {
  "@muster/roster": { openRoster: "open the team with openTeam() from @muster/wiring" },
  "@muster/node": {
    nodeFs: "open the team with openTeam() from @muster/wiring",
    processFacts: "open the team with openTeam() from @muster/wiring",
  },
  "node:fs": {
    watch: "watch a mailbox with watchInbox() from @muster/wiring",
    watchFile: "watch a mailbox with watchInbox() from @muster/wiring",
  },
  "@muster/core": { findCaller: "find the caller with findMyAgent() from @muster/wiring" },
  "@muster/reconciler": {
    matchEngine: "find the caller with findMyAgent() from @muster/wiring",
  },
};

/** Fields a rule reads. A composer passes them on; deciding on them is a leaf's job. */
const RULE_FIELDS = new Set(["hops", "armed", "holdsLabel", "pidStart", "heartbeatAt"]);

/** Properties that carry a leaf's text. A composer shows it as it is, with the leaf's fix. */
const LEAF_TEXT = new Set(["error", "why", "line", "fix"]);
const TEXT_SURGERY = new Set(["replace", "replaceAll", "match", "matchAll", "split", "search"]);

const DECIDING_OPERATORS = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
  ts.SyntaxKind.PlusToken,
  ts.SyntaxKind.MinusToken,
]);

const PREDICATE_METHODS = new Set([
  "filter",
  "find",
  "findLast",
  "findIndex",
  "findLastIndex",
  "some",
  "every",
]);

/** Is this expression used to decide something: a condition, a comparison, a sum, a predicate? */
function decides(node: ts.Expression): boolean {
  let current: ts.Node = node;
  while (
    ts.isParenthesizedExpression(current.parent) ||
    ts.isNonNullExpression(current.parent) ||
    ts.isAsExpression(current.parent)
  )
    current = current.parent;
  const parent = current.parent;
  if (ts.isIfStatement(parent) || ts.isWhileStatement(parent)) return parent.expression === current;
  if (ts.isConditionalExpression(parent)) return parent.condition === current;
  if (ts.isPrefixUnaryExpression(parent)) return parent.operator === ts.SyntaxKind.ExclamationToken;
  if (ts.isBinaryExpression(parent)) return DECIDING_OPERATORS.has(parent.operatorToken.kind);
  // A predicate handed to filter/find/some/…: the field picks what counts. Any other callback
  // (a value handed to a leaf's rule) only passes the field on.
  if (ts.isArrowFunction(parent) && parent.body === current) {
    const call = parent.parent;
    return (
      ts.isCallExpression(call) &&
      ts.isPropertyAccessExpression(call.expression) &&
      PREDICATE_METHODS.has(call.expression.name.text)
    );
  }
  return false;
}

const COMPARISONS = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);

const callOf = (node: ts.Node, object: string, method: string) =>
  ts.isCallExpression(node) &&
  ts.isPropertyAccessExpression(node.expression) &&
  ts.isIdentifier(node.expression.expression) &&
  node.expression.expression.text === object &&
  node.expression.name.text === method;

/**
 * Is this time arithmetic (a `Date.parse` or `Math.abs`) compared, through sums and `Math.*` calls:
 * an age rule (`now - Date.parse(at) > MAX`). Shown ages (`Math.max(0, now - Date.parse(at))`) are
 * rendering.
 */
function comparesAge(node: ts.Node): boolean {
  let current: ts.Node = node;
  for (;;) {
    const parent: ts.Node = current.parent;
    if (!parent) return false;
    if (ts.isBinaryExpression(parent)) {
      if (COMPARISONS.has(parent.operatorToken.kind)) return true;
      if (
        parent.operatorToken.kind !== ts.SyntaxKind.MinusToken &&
        parent.operatorToken.kind !== ts.SyntaxKind.PlusToken
      )
        return false;
    } else if (
      !ts.isParenthesizedExpression(parent) &&
      !(ts.isCallExpression(parent) && callOf(parent, "Math", "abs"))
    )
      return false;
    current = parent;
  }
}

/** `judge:` in the request of a `.claim(…)` call: a claim judged by the composer itself. */
const judgesClaim = (node: ts.Node) =>
  (ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node)) &&
  ts.isIdentifier(node.name) &&
  node.name.text === "judge" &&
  ts.isObjectLiteralExpression(node.parent) &&
  ts.isCallExpression(node.parent.parent) &&
  ts.isPropertyAccessExpression(node.parent.parent.expression) &&
  node.parent.parent.expression.name.text === "claim";

/**
 * Every rule this composer source defines or wiring it copies, by line. `wiring: true` is the
 * shared wiring itself: its imports of what it wires are its job.
 */
export function checkComposerSource(
  fileName: string,
  text: string,
  options: { wiring?: boolean } = {},
): Violation[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const violations: Violation[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    violations.push({ file: fileName, line: line + 1, what });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (options.wiring) return;
      const wired = WIRED[node.moduleSpecifier.text];
      const bindings = node.importClause?.namedBindings;
      if (wired && bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          const name = (element.propertyName ?? element.name).text;
          const instead = wired[name];
          if (instead)
            report(element, `imports ${name} from "${node.moduleSpecifier.text}": ${instead}`);
        }
      }
    } else if (judgesClaim(node)) {
      report(
        node,
        "judges a claim itself: pass heldBy (and maxAgeMs) and let the roster judge it by its process facts",
      );
    } else if (
      (callOf(node, "Date", "parse") || callOf(node, "Math", "abs")) &&
      comparesAge(node)
    ) {
      report(
        node,
        "writes an age rule (a time compared to a limit): a claim's age is the roster's (maxAgeMs), any other a leaf's",
      );
    } else if (
      ts.isPropertyAccessExpression(node) &&
      RULE_FIELDS.has(node.name.text) &&
      decides(node)
    ) {
      report(
        node,
        `decides on .${node.name.text}, a rule's field: make the decision a function in a leaf and call it`,
      );
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      TEXT_SURGERY.has(node.expression.name.text)
    ) {
      const target = node.expression.expression;
      if (ts.isPropertyAccessExpression(target) && LEAF_TEXT.has(target.name.text)) {
        report(
          node,
          `edits a leaf's text (.${target.name.text}.${node.expression.name.text}): show it as it is, with the fix the leaf defines beside its check`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations.sort((left, right) => left.line - right.line);
}

const isSourceFile = (name: string) =>
  /\.(c|m)?[jt]sx?$/.test(name) &&
  !/\.(test|test-d|bench)\.[cm]?[jt]sx?$/.test(name) &&
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

/** Lint one composer package folder: every non-test source under `src/`. */
export function checkComposerPackage(
  packageRoot: string,
  options: { wiring?: boolean } = {},
): Violation[] {
  const sourceRoot = path.join(packageRoot, "src");
  const hasSources = statSync(sourceRoot, { throwIfNoEntry: false })?.isDirectory() ?? false;
  return (hasSources ? listSources(sourceRoot) : []).flatMap((file) =>
    checkComposerSource(file, readFileSync(file, "utf8"), options),
  );
}

/** Lint every composer package that exists under `repoRoot/packages`. */
export function checkComposers(repoRoot: string): { checked: string[]; violations: Violation[] } {
  const checked: string[] = [];
  const violations: Violation[] = [];
  for (const composer of COMPOSER_PACKAGES) {
    const packageRoot = path.join(repoRoot, "packages", composer);
    if (!statSync(path.join(packageRoot, "package.json"), { throwIfNoEntry: false })) continue;
    checked.push(composer);
    violations.push(...checkComposerPackage(packageRoot));
  }
  for (const wiring of WIRING_PACKAGES) {
    const packageRoot = path.join(repoRoot, wiring);
    if (!statSync(path.join(packageRoot, "package.json"), { throwIfNoEntry: false })) continue;
    checked.push(wiring);
    violations.push(...checkComposerPackage(packageRoot, { wiring: true }));
  }
  return { checked, violations };
}
