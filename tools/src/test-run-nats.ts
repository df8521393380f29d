// The test run's word on nats-server (a global set-up of the root vitest.config.ts). Where test-
// support's finder finds none, the cases that need one skip inside their files (NATS_SERVER_MISSING,
// see test-run-files.ts), and at the end of the run this names those files, why, and the fix. With
// MUSTER_REQUIRE_NATS_SERVER=1 (CI) a missing nats-server fails the run before any test.
import path from "node:path";
import {
  findNatsServer,
  INSTALL_NATS_SERVER,
  natsServerLookedIn,
} from "@muster/test-support/find-nats-server";
import type { TestProject } from "vitest/node";
import { natsGatedFiles, REPO_ROOT } from "./test-run-files.ts";

/** The end-of-run note: the gated files of this run, why they skipped, and the fix. */
export function natsSkipNote(env: NodeJS.ProcessEnv, gated: readonly string[]): string {
  const files = gated.map((file) => path.relative(REPO_ROOT, file));
  return [
    `test run: no nats-server (looked in ${natsServerLookedIn(env)}), so the cases that need one were skipped in ${files.length} file(s):`,
    ...files.map((file) => `  ${file}`),
    `  to run them, ${INSTALL_NATS_SERVER}`,
    "",
  ].join("\n");
}

/**
 * Nothing where there is a nats-server; where there is none, throws under
 * MUSTER_REQUIRE_NATS_SERVER=1, else says the run skips (true).
 */
export function skipsNats(env: NodeJS.ProcessEnv): boolean {
  if (findNatsServer(env)) return false;
  if (env.MUSTER_REQUIRE_NATS_SERVER === "1")
    throw new Error(
      `no nats-server (looked in ${natsServerLookedIn(env)}), and MUSTER_REQUIRE_NATS_SERVER=1 requires one: ${INSTALL_NATS_SERVER}`,
    );
  return true;
}

export default function natsServerWord(project: TestProject) {
  if (!skipsNats(process.env)) return;
  return () => {
    const ran = new Set(project.vitest.state.getFiles().map((file) => file.filepath));
    const gated = natsGatedFiles().filter((file) => ran.has(file));
    if (gated.length > 0) process.stderr.write(natsSkipNote(process.env, gated));
  };
}
