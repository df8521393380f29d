// An esbuild plugin for the composers' builds (tsup's esbuildPlugins): an import of a published
// workspace package (`@muster/node`, `@muster/mcp/stdio`) is bundled from the source file behind
// that export, not from the package's one-file dist. esbuild then sees each source module apart,
// so a command's chunk holds the modules it runs and no more (a hook that needs one function of
// @muster/node does not load the whole of it, and with it node:crypto and child_process).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

type Resolver = {
  onResolve(
    options: { filter: RegExp },
    callback: (args: { path: string }) => { path: string } | undefined,
  ): void;
};

/** The source file behind a package's export: `./dist/stdio.js` is built from `src/stdio.ts`. */
export function sourceOf(packageDir: string, subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
  const target = manifest.exports?.[subpath];
  const built = typeof target === "string" ? target : target?.default;
  const match = typeof built === "string" ? /^\.\/dist\/(.+)\.js$/.exec(built) : null;
  if (!match) return undefined;
  // The pi extension builds dist/muster/index.js from src/index.ts.
  const source = path.join(packageDir, "src", `${match[1]!.replace(/^muster\//, "")}.ts`);
  return existsSync(source) ? source : undefined;
}

export function workspaceSources(repoRoot: string) {
  const packages = path.join(repoRoot, "packages");
  return {
    name: "muster-workspace-sources",
    setup(build: Resolver) {
      build.onResolve({ filter: /^@muster\/[a-z-]+(\/[a-z-]+)?$/ }, (args) => {
        const [, name, sub] = /^@muster\/([a-z-]+)(\/[a-z-]+)?$/.exec(args.path)!;
        const dir = path.join(packages, name!);
        if (!existsSync(path.join(dir, "package.json"))) return undefined;
        const source = sourceOf(dir, `.${sub ?? ""}`);
        if (!source) throw new Error(`${args.path}: no source file behind this export`);
        return { path: source };
      });
    },
  };
}
