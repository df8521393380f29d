#!/usr/bin/env node
import packageJson from "../package.json" with { type: "json" };
// The `muster` executable.
import { main } from "./_main.js";

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
