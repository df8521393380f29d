// The holder's own commit, with a real pi (RPC, faux model, throwaway HOME) and muster's real git
// hook: pi leases a file through its extension (the member is pi's session), then commits it from
// its own bash tool, where the hook's guard finds the same member and lets it through; a commit
// of that file by another member (this test's process, joined from its shell) is refused naming
// pi's label. Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { LONG_TESTS } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";
import { joined, removeScratch, team, toolEnd } from "../test/team.js";

afterAll(removeScratch);

const MUSTER = path.resolve(import.meta.dirname, "..", "..", "cli", "dist", "muster.js");
const execute = promisify(execFile);
const GIT = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"];

it.skipIf(!LONG_TESTS)(
  "pi commits the file it leased through muster's git hook; another member's commit of it is refused naming pi",
  async (test) => {
    const shared = team(test);
    const repo = shared.cwd;
    const env = { ...process.env, MUSTER_TEAM_DIR: shared.dir, MUSTER_LABEL: undefined };
    const sh = (file: string, args: string[]) =>
      execute(file, args, { cwd: repo, env }).then(
        (done) => ({ code: 0, ...done }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    mkdirSync(path.join(repo, "src"));
    writeFileSync(path.join(repo, "src", "parser.js"), "start\n");
    await sh("git", ["init", "-q"]);
    await sh("git", [...GIT, "add", "-A"]);
    await sh("git", [...GIT, "commit", "-q", "-m", "start"]);
    expect((await sh(process.execPath, [MUSTER, "install", "git-hook"])).code).toBe(0);
    const out = path.join(repo, ".git", "pi-commit.txt");
    const git = `git ${GIT.join(" ")}`;
    const pi = shared.start({
      label: "coder",
      script: [
        { tool: "team_lease", args: { paths: ["src/parser.js"], reason: "parser" } },
        {
          tool: "bash",
          args: {
            command: `echo pi >> src/parser.js && ${git} add src/parser.js && ${git} commit -q -m pi > '${out}' 2>&1; echo "exit $?" >> '${out}'`,
          },
        },
        { text: "committed" },
      ],
    });
    await joined(pi);
    await pi.prompt("lease the parser, then commit it");
    await toolEnd(pi, "bash");
    expect(readFileSync(out, "utf8")).toBe("exit 0\n");
    expect((await sh("git", ["log", "-1", "--format=%s"])).stdout).toBe("pi\n");

    // Another member: this test's own process, joined from its shell.
    expect((await sh(process.execPath, [MUSTER, "join", "other"])).code).toBe(0);
    writeFileSync(path.join(repo, "src", "parser.js"), "other\n");
    await sh("git", ["add", "src/parser.js"]);
    const theirs = await sh("git", [...GIT, "commit", "-q", "-m", "other"]);
    expect(theirs.code).not.toBe(0);
    expect(theirs.stderr).toMatch(/src\/parser\.js is leased \(src\/parser\.js\), held by coder /);
  },
  60_000,
);
