// The packages a published package's types name: every bare specifier its dist/*.d.ts imports.
// A type that names a package the user does not install (a bundled one, a devDependency) is
// `any` or an error for them: `pnpm check:packages` refuses it.

import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";

const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"./][^'"]*)['"]/g;

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;

/** Every package named by the installed package's declaration files that it does not provide. */
export function strayTypeImports(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
  const provided = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const stray = new Set<string>();
  const dist = path.join(packageDir, "dist");
  for (const file of readdirSync(dist, { recursive: true }).map(String)) {
    if (!file.endsWith(".d.ts")) continue;
    for (const [, specifier] of readFileSync(path.join(dist, file), "utf8").matchAll(SPECIFIER)) {
      const name = packageOf(specifier!);
      const builtin = name.startsWith("node:") || builtinModules.includes(name);
      if (!builtin && !provided.has(name)) stray.add(`${name} (in dist/${file})`);
    }
  }
  return [...stray].sort();
}
