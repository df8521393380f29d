// The `_` prefix rule (CONTRIBUTING.md, "File names"): in a published package, a file its build
// names as an entry (`index.ts`, a bin, a subpath export) has no prefix; every other module under
// src/ has it, so a reader knows at a glance what outside code can reach. Tests (`*.test.ts`,
// `*.test-d.ts`) are neither; test-only helpers live in `test/`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export type NameViolation = { file: string; what: string };

const isTest = (name: string) => /\.test(-d)?\.ts$/.test(name);

/**
 * The src/ files a package's build names as entries: in its build script, or in tsup.config.ts's
 * `entry` (a config may import other src/ modules for its own steps: those are not entries), and
 * its bins (`dist/muster.js` is `src/muster.ts`, however the build writes it).
 */
export function buildEntries(packageDir: string): Set<string> {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
  const config = path.join(packageDir, "tsup.config.ts");
  const entry = existsSync(config)
    ? (/\bentry:\s*(\[[^\]]*\]|\{[^}]*\})/.exec(readFileSync(config, "utf8"))?.[1] ?? "")
    : "";
  const bins = Object.values(
    typeof manifest.bin === "string" ? { bin: manifest.bin } : (manifest.bin ?? {}),
  ).map((bin) => String(bin).replace(/^(\.\/)?dist\/(.*)\.js$/, "src/$2.ts"));
  const text = `${manifest.scripts?.build ?? ""}\n${entry}\n${bins.join("\n")}`;
  return new Set([...text.matchAll(/src\/([\w.-]+\.ts)/g)].map((match) => match[1]!));
}

/** Every file in `packageDir/src` (top level) that breaks the rule, and what to do. */
export function checkFileNames(packageDir: string): NameViolation[] {
  const entries = buildEntries(packageDir);
  const violations: NameViolation[] = [];
  const src = path.join(packageDir, "src");
  for (const name of readdirSync(src)) {
    if (!name.endsWith(".ts") || isTest(name)) continue;
    const file = path.join(src, name);
    if (entries.has(name) && name.startsWith("_"))
      violations.push({ file, what: "a build entry has no `_` prefix: outside code reaches it" });
    if (!entries.has(name) && !name.startsWith("_"))
      violations.push({
        file,
        what: "a module that is not a build entry takes the `_` prefix (a test-only helper goes in test/)",
      });
  }
  return violations;
}

/** The published packages: every folder under packages/. */
export function publishedPackages(repoRoot: string): string[] {
  const root = path.join(repoRoot, "packages");
  return readdirSync(root)
    .map((name) => path.join(root, name))
    .filter((dir) => existsSync(path.join(dir, "package.json")));
}
