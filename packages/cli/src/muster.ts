#!/usr/bin/env node
// The `muster` executable. Node's compile cache (22.1+) keeps the compiled CLI on disk, so every
// call after the first skips parsing it: start-up is most of a `muster roster --json`.
import module from "node:module";

module.enableCompileCache?.();
const { main } = await import("./_main.js");
const { default: packageJson } = await import("../package.json", { with: { type: "json" } });

process.exitCode = await main(
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  },
  packageJson.version,
);
