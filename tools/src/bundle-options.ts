// What the builds of the published composers that bundle everything (the CLI, the MCP server)
// share in their tsup config: every package bundled, Node's builtins taken as they are used
// (lazy-builtins.ts), a real `require` for bundled CommonJS, and esbuild's metafile, from which the
// bundled packages' licenses are written (bundled-licenses.ts).
import { writeBundledLicenses } from "./bundled-licenses.ts";
import { lazyBuiltins } from "./lazy-builtins.ts";

// A bundled CommonJS package that requires a Node builtin (the NATS client does) needs a real
// `require` in ESM output: esbuild's stand-in throws "Dynamic require … is not supported". Made
// at its first call: createRequire costs a start ~0.3 ms, and the hot bundles never call it.
export const BUILTIN_REQUIRE =
  'import { createRequire as __musterCreateRequire } from "node:module"; let __musterRequire; const require = (id) => (__musterRequire ??= __musterCreateRequire(import.meta.url))(id);';

/**
 * tsup options for a package with no dependencies; `plugins` are the build's own esbuild plugins;
 * `after` runs once the licenses are written.
 */
export function bundleEverything(
  packageDir: string,
  after: () => Promise<void> | void,
  plugins: object[] = [],
) {
  return {
    noExternal: [/./],
    esbuildPlugins: [...plugins, lazyBuiltins()],
    // Else tsup takes every `node:` import out of the build before lazyBuiltins sees it.
    removeNodeProtocol: false,
    banner: { js: BUILTIN_REQUIRE },
    metafile: true,
    async onSuccess() {
      writeBundledLicenses(packageDir);
      await after();
    },
  };
}
