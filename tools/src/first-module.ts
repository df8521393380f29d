// The CLI's first module (packages/cli/src/muster.ts → dist/muster.js, the package's bin): built
// apart from everything else, for Nodes older than muster supports to parse and refuse in one line.
// ES2018, not bundled (its one import is the real start, beside it), no banner (the shared builds'
// banner is an import), and the Node it needs read from package.json's `engines` here, so the
// range lives in one place.
import { readFileSync } from "node:fs";
import path from "node:path";
import { build } from "tsup";

/** `engines.node` as the first module compares it: ">=22.19" → "22.19"; any other form throws. */
export function nodeNeeded(range: string | undefined): string {
  const found = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range?.trim() ?? "");
  if (!found?.[1])
    throw new Error(
      `engines.node is "${range}": the first module checks only ">=MAJOR[.MINOR[.PATCH]]"`,
    );
  return found[1];
}

/** Write dist/muster.js from src/muster.ts. */
export async function buildFirstModule(packageDir: string) {
  const packageJson = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as {
    engines?: { node?: string };
  };
  await build({
    entry: { muster: path.join(packageDir, "src", "muster.ts") },
    outDir: path.join(packageDir, "dist"),
    format: ["esm"],
    target: "es2018",
    bundle: false,
    clean: false,
    config: false,
    silent: true,
    define: { MUSTER_NODE_NEEDS: JSON.stringify(nodeNeeded(packageJson.engines?.node)) },
    // Every Node that runs an ES module at all has import(): the one thing past ES2018 it uses.
    esbuildOptions(options) {
      options.supported = { ...options.supported, "dynamic-import": true };
    },
  });
}
