// Where the tests' nats-server is: the one finder every test, the run's note and `.ci/run` use.
// MUSTER_NATS_SERVER names it exactly (a path; a path that is not there means "none here", which
// is how the skips are tried on a machine that has one). Otherwise PATH is searched, then the
// folders a package puts it in that a user's PATH may lack (Debian's nats-server is
// /usr/sbin/nats-server). Where there is none, the tests that need one are skipped, saying so
// (NATS_SERVER_MISSING) — unless MUSTER_REQUIRE_NATS_SERVER=1 (CI): then they run, and fail.
//
//   node internal/test-support/src/find-nats-server.ts   # prints its path; exit 1 when none
//
// Imports nothing of the workspace: the run's global set-up and .ci/run load it alone.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** The folders looked in after PATH: where Debian and a hand install put nats-server. */
export const NATS_SERVER_FOLDERS: readonly string[] = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The nats-server the tests run, or undefined where there is none. */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.MUSTER_NATS_SERVER;
  if (named) return runnable(named) ? path.resolve(named) : undefined;
  const folders = [...(env.PATH ?? "").split(path.delimiter), ...NATS_SERVER_FOLDERS];
  return folders
    .filter((folder) => path.isAbsolute(folder))
    .map((folder) => path.join(folder, "nats-server"))
    .find(runnable);
}

/** Where the finder looked, for a message. */
export function natsServerLookedIn(env: NodeJS.ProcessEnv = process.env): string {
  return env.MUSTER_NATS_SERVER
    ? `MUSTER_NATS_SERVER=${env.MUSTER_NATS_SERVER}`
    : `PATH, ${NATS_SERVER_FOLDERS.join(", ")}`;
}

/** What to do about its absence, said once wherever it is missing. */
export const INSTALL_NATS_SERVER =
  "install it (apt-get install nats-server, or a release from github.com/nats-io/nats-server) or name it with MUSTER_NATS_SERVER=/path/to/nats-server";

/**
 * Why the tests that need a real nats-server are skipped in this run, or undefined when they run:
 * there is one, or MUSTER_REQUIRE_NATS_SERVER=1 asks for them regardless (they then fail, saying
 * what is missing). A test file gates its server's cases on it: `describe.skipIf(NATS_SERVER_MISSING)`.
 */
export function natsServerMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.MUSTER_REQUIRE_NATS_SERVER === "1" || findNatsServer(env)) return undefined;
  return `no nats-server (looked in ${natsServerLookedIn(env)})`;
}

/** This run's answer: see natsServerMissing. */
export const NATS_SERVER_MISSING: string | undefined = natsServerMissing();

if (import.meta.main) {
  const found = findNatsServer();
  if (found) console.log(found);
  else {
    console.error(`no nats-server (looked in ${natsServerLookedIn()}): ${INSTALL_NATS_SERVER}`);
    process.exitCode = 1;
  }
}
