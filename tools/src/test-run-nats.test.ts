// Where the tests find nats-server (test-support's finder), what the run says where there is none,
// and the README's test command's files on a machine without one: the cases that need it skip,
// the run passes and names them; under MUSTER_REQUIRE_NATS_SERVER=1 (CI) it fails instead.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LONG_TESTS } from "@muster/test-support";
import {
  findNatsServer,
  NATS_SERVER_FOLDERS,
  natsServerMissing,
} from "@muster/test-support/find-nats-server";
import { afterAll, describe, expect, test } from "vitest";
import { REPO_ROOT } from "./test-run-files.ts";
import { natsSkipNote, skipsNats } from "./test-run-nats.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-find-nats-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder holding a `nats-server` file, executable or not. */
function folderWith(name: string, executable: boolean): string {
  const folder = path.join(scratch, name);
  mkdirSync(folder);
  writeFileSync(path.join(folder, "nats-server"), "#!/bin/sh\necho 'nats-server: v0'\n");
  chmodSync(path.join(folder, "nats-server"), executable ? 0o755 : 0o644);
  return folder;
}

describe("findNatsServer", () => {
  const here = folderWith("here", true);
  const notRunnable = folderWith("not-runnable", false);

  test("the first runnable one on PATH; a file that cannot run is passed over", () => {
    expect(findNatsServer({ PATH: [notRunnable, here].join(":") })).toBe(
      path.join(here, "nats-server"),
    );
  });

  test("after PATH, the folders packages put it in, which a user's PATH may lack", () => {
    expect(NATS_SERVER_FOLDERS).toEqual(expect.arrayContaining(["/usr/sbin", "/usr/local/sbin"]));
    const packaged = NATS_SERVER_FOLDERS.map((folder) => path.join(folder, "nats-server")).find(
      (file) => findNatsServer({ MUSTER_NATS_SERVER: file }) !== undefined,
    );
    expect(findNatsServer({ PATH: "/usr/bin:/bin" })).toBe(packaged);
  });

  test("turbo hands MUSTER_NATS_SERVER and MUSTER_REQUIRE_NATS_SERVER to the run (its strict env drops the rest)", () => {
    // first-hour.ts hides the machine's nats-server from `pnpm test` with MUSTER_NATS_SERVER: a
    // variable turbo.json does not name never reaches Vitest, and the NATS tests ran there.
    const turbo = JSON.parse(readFileSync(path.join(REPO_ROOT, "turbo.json"), "utf8"));
    expect(turbo.tasks["//#test:vitest"].env).toEqual(
      expect.arrayContaining(["MUSTER_NATS_SERVER", "MUSTER_REQUIRE_NATS_SERVER"]),
    );
  });

  test("MUSTER_NATS_SERVER names it exactly: a path that is not there is none, PATH aside", () => {
    const named = path.join(here, "nats-server");
    expect(findNatsServer({ MUSTER_NATS_SERVER: named, PATH: "" })).toBe(named);
    expect(findNatsServer({ MUSTER_NATS_SERVER: "/nonexistent", PATH: here })).toBeUndefined();
  });
});

describe("where there is none", () => {
  const none = { MUSTER_NATS_SERVER: "/nonexistent" };

  test("the cases skip, saying where it was looked for; under CI's requirement they run", () => {
    expect(natsServerMissing(none)).toBe(
      "no nats-server (looked in MUSTER_NATS_SERVER=/nonexistent)",
    );
    expect(natsServerMissing({ ...none, MUSTER_REQUIRE_NATS_SERVER: "1" })).toBeUndefined();
    expect(skipsNats(none)).toBe(true);
    expect(() => skipsNats({ ...none, MUSTER_REQUIRE_NATS_SERVER: "1" })).toThrow(
      /^no nats-server \(looked in MUSTER_NATS_SERVER=\/nonexistent\), and MUSTER_REQUIRE_NATS_SERVER=1 requires one: install it/,
    );
  });

  test("the run's last word names the files, why, and the fix", () => {
    const file = path.join(REPO_ROOT, "packages", "cli", "src", "hook-lifetime.test.ts");
    expect(natsSkipNote({ PATH: "/usr/bin" }, [file]).split("\n")).toEqual([
      "test run: no nats-server (looked in PATH, /usr/local/sbin, /usr/sbin, /sbin), so the cases that need one were skipped in 1 file(s):",
      "  packages/cli/src/hook-lifetime.test.ts",
      expect.stringMatching(/^ {2}to run them, install it \(apt-get install nats-server/),
      "",
    ]);
  });

  // A whole Vitest run of its own (about 5 s of CPU): with the long tests.
  test.skipIf(!LONG_TESTS)(
    "the files that need one pass, skipped and named; under MUSTER_REQUIRE_NATS_SERVER=1 the run fails",
    () => {
      const files = ["packages/cli/src/hook-lifetime.test.ts", "packages/nats/src/kv.test.ts"];
      const vitest = (env: NodeJS.ProcessEnv) =>
        spawnSync(path.join(REPO_ROOT, "node_modules", ".bin", "vitest"), ["run", ...files], {
          cwd: REPO_ROOT,
          encoding: "utf8",
          env: { ...process.env, ...none, MUSTER_LONG_TESTS: undefined, ...env },
        });
      const skipped = vitest({ MUSTER_REQUIRE_NATS_SERVER: undefined });
      expect(skipped.status, skipped.stdout + skipped.stderr).toBe(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the colours' escapes
      expect(skipped.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Tests +8 skipped \(8\)/);
      expect(skipped.stderr).toContain(
        "test run: no nats-server (looked in MUSTER_NATS_SERVER=/nonexistent), so the cases that need one were skipped in 2 file(s):\n  packages/cli/src/hook-lifetime.test.ts\n  packages/nats/src/kv.test.ts\n",
      );
      const required = vitest({ MUSTER_REQUIRE_NATS_SERVER: "1" });
      expect(required.status).not.toBe(0);
      expect(required.stdout + required.stderr).toContain(
        "MUSTER_REQUIRE_NATS_SERVER=1 requires one",
      );
    },
    120_000,
  );
});
