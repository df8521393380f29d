#!/usr/bin/env node
// `pnpm muster …`: build the CLI and what it imports, then run it with the arguments given. The
// build's output (turbo's banner and summary) is shown only when the build fails, so a
// working build leaves the terminal to muster's own output.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..", "..");
const turbo = path.join(root, "node_modules", ".bin", "turbo");
const build = spawnSync(
  turbo,
  ["run", "build", "--filter=@muster/cli...", "--output-logs=errors-only"],
  { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
);
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ""}${build.stderr ?? ""}`);
  process.stderr.write(
    `muster: the build failed${build.error ? ` (${build.error.message})` : ""}; fix it, or run pnpm install first\n`,
  );
  process.exit(build.status ?? 1);
}
// The CLI reads process.argv.slice(2): the arguments after this script, as when run directly.
await import(pathToFileURL(path.join(root, "packages", "cli", "dist", "muster.js")).href);
