// The CLI's per-command bundles (packages/cli/src/_command-bundles.ts says which and why): the
// command line's main (or the bundle's own, for one command line), bundled without splitting,
// once per command, with every module the command table imports for another row left out (a
// stand-in that throws, never run: start.ts takes a bundle only for the command lines it serves).
// The NATS store, loaded only for a team on NATS, stays a file apart (dist/commands/nats/index.js),
// shared by the bundles.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build, type Options } from "tsup";
import { BUILTIN_REQUIRE } from "./bundle-options.ts";
import { lazyBuiltins } from "./lazy-builtins.ts";
import { sourceOf } from "./workspace-sources.ts";

type Build = {
  onResolve(
    options: { filter: RegExp },
    callback: (args: {
      path: string;
      kind: string;
      importer: string;
    }) => { path: string; namespace?: string; external?: boolean } | undefined,
  ): void;
  onLoad(
    options: { filter: RegExp; namespace: string },
    callback: (args: { path: string }) => { contents: string; loader: "js" },
  ): void;
};

const LEFT_OUT = "muster-left-out";

/** Another row's module, imported by the command table: a stand-in that says what happened. */
function onlyTheseRows(bundle: string, runs: readonly string[], sources: string) {
  return {
    name: "muster-only-these-rows",
    setup(esbuild: Build) {
      esbuild.onResolve({ filter: /^\.\/_[a-z-]+\.js$/ }, (args) => {
        if (args.kind !== "dynamic-import" || path.dirname(args.importer) !== sources) return;
        if (args.path === "./_effects.js" || runs.includes(args.path)) return;
        return { path: args.path, namespace: LEFT_OUT };
      });
      esbuild.onLoad({ filter: /.*/, namespace: LEFT_OUT }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`muster: the ${bundle} bundle does not hold ${args.path}; run dist/muster.js`)});`,
        loader: "js",
      }));
    },
  };
}

/** `@muster/nats`, from a bundle: the shared file beside them. */
const natsApart = {
  name: "muster-nats-apart",
  setup(esbuild: Build) {
    esbuild.onResolve({ filter: /^@muster\/nats$/ }, () => ({
      path: "../nats/index.js",
      external: true,
    }));
  },
};

const common = (plugins: object[]) => ({
  format: ["esm" as const],
  splitting: false,
  target: "node22",
  clean: true,
  config: false,
  silent: true,
  noExternal: [/./],
  removeNodeProtocol: false,
  metafile: true,
  banner: { js: BUILTIN_REQUIRE },
  // The plugins are matched structurally here, as bundle-options.ts has them.
  esbuildPlugins: [...plugins, lazyBuiltins()] as NonNullable<Options["esbuildPlugins"]>,
});

/** The shared build's main, from the executable: that build's chunk for it, beside it. */
function mainApart(chunk: string) {
  return {
    name: "muster-main-apart",
    setup(esbuild: Build) {
      esbuild.onResolve({ filter: /^\.\/_main\.js$/ }, (args) =>
        args.kind === "dynamic-import" ? { path: `./${chunk}`, external: true } : undefined,
      );
    },
  };
}

/** The file the shared build wrote for a source (`src/_main.ts` → `_main-<hash>.js`). */
function sharedChunk(dist: string, source: string): string {
  const { outputs } = JSON.parse(readFileSync(path.join(dist, "metafile-esm.json"), "utf8")) as {
    outputs: Record<string, { entryPoint?: string }>;
  };
  const found = Object.entries(outputs).find(([, output]) => output.entryPoint === source);
  if (!found) throw new Error(`the shared build wrote no chunk for ${source}`);
  return path.basename(found[0]);
}
const mainChunk = (dist: string) => sharedChunk(dist, "src/_main.ts");

/**
 * The sources a bundle takes from the shared build (their chunks, two folders up) when it
 * imports them dynamically: `muster mcp`'s front answers the engine from its bundle, and only
 * then loads the MCP SDK, the server and the handover, which stay the shared build's.
 */
function sharedApart(packageDir: string, apart: readonly string[]) {
  const dist = path.join(packageDir, "dist");
  return {
    name: "muster-shared-apart",
    setup(esbuild: Build) {
      esbuild.onResolve({ filter: /^(\.\/_|@muster\/)[a-z-]+(\/[a-z-]+)?(\.js)?$/ }, (args) => {
        if (args.kind !== "dynamic-import") return;
        const file = args.path.startsWith("@muster/")
          ? sourceOfSpecifier(packageDir, args.path)
          : path.resolve(path.dirname(args.importer), args.path.replace(/\.js$/, ".ts"));
        const source = file && path.relative(packageDir, file);
        if (!source || !apart.includes(source)) return;
        return { path: `../../${sharedChunk(dist, source)}`, external: true };
      });
    },
  };
}

/** The source file behind `@muster/<package>[/<subpath>]`, as the composers' builds take it. */
function sourceOfSpecifier(packageDir: string, specifier: string): string | undefined {
  const [, name, sub] = /^@muster\/([a-z-]+)(\/[a-z-]+)?$/.exec(specifier) ?? [];
  return name ? sourceOf(path.resolve(packageDir, "..", name), `.${sub ?? ""}`) : undefined;
}

/**
 * Write dist/start.js again, the executable's real start (its first module, dist/muster.js, is
 * first-module.ts's): in one file, because every start loads it (the compile cache's set-up, the
 * choice of bundle), where the shared build splits it into chunks.
 */
export async function buildExecutable(packageDir: string, plugins: object[]) {
  await build({
    ...common([mainApart(mainChunk(path.join(packageDir, "dist"))), ...plugins]),
    clean: false,
    // dist/metafile-esm.json is the shared build's (the licenses and the import-graph test read it).
    metafile: false,
    entry: { start: path.join(packageDir, "src", "start.ts") },
    // The version in the file: a JSON module is one more load at every start.
    define: {
      MUSTER_VERSION: JSON.stringify(
        (
          JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as {
            version: string;
          }
        ).version,
      ),
    },
    outDir: path.join(packageDir, "dist"),
  });
}

/** Write dist/commands/<bundle>/main.js for each bundle, and the NATS store they share. */
export async function buildCommandBundles(
  packageDir: string,
  bundles: Readonly<
    Record<string, { runs: readonly string[]; apart?: readonly string[]; main?: string }>
  >,
  plugins: object[],
) {
  const sources = path.join(packageDir, "src");
  const out = path.join(packageDir, "dist", "commands");
  // tsup's clean empties files, not folders: a bundle no longer built would leave its folder.
  rmSync(out, { recursive: true, force: true });
  await build({
    ...common(plugins),
    entry: { index: path.resolve(packageDir, "..", "nats", "src", "index.ts") },
    outDir: path.join(out, "nats"),
  });
  for (const [name, { runs, apart = [], main = "./_main.ts" }] of Object.entries(bundles))
    await build({
      ...common([
        // Before the rows' stand-ins: a bundle with a main of its own may take the CLI's, apart.
        sharedApart(packageDir, apart),
        onlyTheseRows(name, runs, sources),
        natsApart,
        ...plugins,
      ]),
      entry: { main: path.join(sources, main) },
      outDir: path.join(out, name),
    });
  for (const name of Object.keys(bundles)) {
    const main = path.join(out, name, "main.js");
    writeFileSync(path.join(out, name, "main.script.js"), scriptForm(readFileSync(main, "utf8")));
  }
}

/**
 * A bundle (ESM, one file) as one function expression that packages/cli/src/_bundle-script.ts
 * runs with vm.Script, so V8's code cache of it can be taken after it ran (its first line names
 * it by a hash of the rest): `require` and the
 * module's URL are its parameters, its exports what it returns, a relative dynamic import made
 * absolute from the URL. The build fails on a bundle it cannot turn (a static import, a top-level
 * await, another export, a character beyond ASCII outside a comment).
 */
export function scriptForm(bundle: string): string {
  const [banner, ...rest] = bundle.split("\n");
  if (banner !== BUILTIN_REQUIRE)
    throw new Error("script form: the bundle's first line is not the banner");
  let body = rest.join("\n");
  const exports = /\nexport \{([^}]*)\};\s*$/.exec(body);
  if (!exports) throw new Error("script form: the bundle does not end with one export list");
  body = `${body.slice(0, exports.index)}\nreturn {${exports[1]}};\n`;
  body = body
    .replaceAll("import.meta.url", "__musterUrl")
    .replace(/\bimport\("(\.\.?\/[^"]+)"\)/g, 'import(new URL("$1", __musterUrl).href)');
  if (/^(import|export)\b|^await\b|\bimport\.meta\b/m.test(body))
    throw new Error(
      "script form: the bundle has a static import, an export, a top-level await or import.meta left",
    );
  // Read as latin1 (half the cost of utf8): esbuild writes code ASCII, a kept comment may not be.
  const beyond = body
    .split("\n")
    .find((line) => /[^ -~\t]/.test(line) && !/^\s*(\/\/|\/\*|\*)/.test(line));
  if (beyond) throw new Error(`script form: a character beyond ASCII outside a comment: ${beyond}`);
  const script = `(function (require, __musterUrl) {\n${body}})`;
  // Its name for the code cache (V8 checks a cache against the source's length only, and npm gives
  // every installed file the same time): the hash of what it holds.
  return `// muster-script ${createHash("sha256").update(script).digest("hex").slice(0, 32)}\n${script}`;
}
