// The server's build. Everything it runs is bundled, the MCP SDK, zod and smol-toml included:
// the package has no dependencies, so a user downloads this package alone, not the SDK's HTTP
// servers (express, hono) that a stdio server never runs. The types show no bundled package (see
// src/_server-shape.ts; the leaves' types are inlined). After the code is built, the start
// answers are asked of the built server and written beside it (dist/start-answers.json), for
// `muster mcp`'s front (src/_stdio-front.ts).
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { defineConfig } from "tsup";
import { bundleEverything } from "../../tools/src/bundle-options.ts";
import { startAnswers } from "./src/_start-answers.ts";

async function writeStartAnswers() {
  const built = pathToFileURL(`${import.meta.dirname}/dist/index.js`).href;
  const { createMusterServer } = (await import(built)) as typeof import("./src/index.ts");
  const answers = await startAnswers(createMusterServer({ env: {}, cwd: import.meta.dirname }));
  writeFileSync(`${import.meta.dirname}/dist/start-answers.json`, `${JSON.stringify(answers)}\n`);
}

export default defineConfig({
  entry: ["src/index.ts", "src/stdio.ts", "src/engines.ts", "src/hooks.ts"],
  format: ["esm"],
  dts: { resolve: [/^@muster\//] },
  clean: true,
  target: "node22",
  ...bundleEverything(import.meta.dirname, writeStartAnswers),
});
