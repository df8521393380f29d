// The CLI's build. Everything it runs is bundled (the MCP server with its SDK, the
// leaves): the package has no dependencies, so `npm install -g @muster/cli` downloads one tarball.
// The workspace packages are bundled from their sources, module by module, so a command loads
// only the chunks it runs. The MCP server's start answers are copied beside the code, where its
// front looks for them (packages/mcp/tsup.config.ts writes them). The commands that start most
// often also get a bundle each, in one file (src/_command-bundles.ts).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { defineConfig } from "tsup";
import { bundleEverything } from "../../tools/src/bundle-options.ts";
import { buildCommandBundles, buildExecutable } from "../../tools/src/command-bundles.ts";
import { buildFirstModule } from "../../tools/src/first-module.ts";
import { workspaceSources } from "../../tools/src/workspace-sources.ts";
import { COMMAND_BUNDLES } from "./src/_command-bundles.ts";

/**
 * The shell completions and the muster(1) page, asked of the built CLI itself (so they are the
 * command table's, never a copy): dist/completions/{muster.bash,_muster,muster.fish}, dist/muster.1.
 */
function writeManuals(dist: string) {
  const ask = (...args: string[]) =>
    execFileSync(process.execPath, [path.join(dist, "muster.js"), ...args], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
  mkdirSync(path.join(dist, "completions"), { recursive: true });
  const files = { bash: "muster.bash", zsh: "_muster", fish: "muster.fish" } as const;
  for (const [shell, file] of Object.entries(files))
    writeFileSync(path.join(dist, "completions", file), ask("completion", shell));
  writeFileSync(path.join(dist, "muster.1"), ask("manual"));
}

/**
 * Ink imports React's devtools only under DEV=true, and only where they are installed: left to
 * Node to find at run time rather than bundled (everything else is bundled: noExternal).
 */
const devtoolsOutside = {
  name: "react-devtools-outside",
  setup(build: {
    onResolve: (options: { filter: RegExp }, run: (args: { path: string }) => object) => void;
  }) {
    build.onResolve({ filter: /^react-devtools-core$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

const sources = workspaceSources(path.join(import.meta.dirname, "..", ".."));
const mcpDist = path.dirname(createRequire(import.meta.url).resolve("@muster/mcp/stdio"));

export default defineConfig({
  // dist/start.js is written again in one file (buildExecutable), importing this build's main;
  // dist/muster.js, the first module, apart (buildFirstModule).
  entry: ["src/index.ts", "src/start.ts"],
  format: ["esm"],
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  target: "node22",
  ...bundleEverything(import.meta.dirname, async () => {
    copyFileSync(
      path.join(mcpDist, "start-answers.json"),
      path.join(import.meta.dirname, "dist", "start-answers.json"),
    );
    await buildCommandBundles(import.meta.dirname, COMMAND_BUNDLES, [sources]);
    // The server's front, in the mcp bundle, looks for its answers beside its own code.
    copyFileSync(
      path.join(mcpDist, "start-answers.json"),
      path.join(import.meta.dirname, "dist", "commands", "mcp", "start-answers.json"),
    );
    await buildExecutable(import.meta.dirname, [sources]);
    await buildFirstModule(import.meta.dirname);
    writeManuals(path.join(import.meta.dirname, "dist"));
  }, [sources, devtoolsOutside]),
});
