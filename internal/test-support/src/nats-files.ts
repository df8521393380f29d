// The NATS store's tests need a real `nats-server` on PATH. Where there is none — a machine with
// only git, tmux, Node and npm, on which the README's test command must still pass — a project's
// vitest config leaves those files out and says so, once per project. MUSTER_REQUIRE_NATS_SERVER=1
// (set by .ci/run, which installs nats-server) makes its absence an error instead: CI never skips.
// Imported by vitest configs, so it imports nothing of the workspace.
import { spawnSync } from "node:child_process";

/** The files to leave out of `project`'s run: none where nats-server runs, else `files`. */
export function withoutNatsServer(project: string, files: readonly string[]): string[] {
  if (spawnSync("nats-server", ["--version"], { stdio: "ignore" }).status === 0) return [];
  if (process.env.MUSTER_REQUIRE_NATS_SERVER === "1")
    throw new Error(
      `${project}: nats-server is not on PATH, and MUSTER_REQUIRE_NATS_SERVER=1 requires it: install it (apt-get install nats-server)`,
    );
  process.stderr.write(
    `${project}: nats-server is not on PATH, so its NATS test files are skipped (${files.join(", ")}); apt-get install nats-server runs them\n`,
  );
  return [...files];
}
