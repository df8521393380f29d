// The holder's own commit, with a real Claude Code 2.1.332 (offline, `claude -p`, the scripted
// model) and muster's real git hook: Claude Code leases a file from its Bash tool (the member is
// its process), then commits it from that tool; the hook's guard finds the same member (a probe
// chained after the guard records the id) and lets it through. While its session runs, a commit
// of that file by another member (this test's process, joined from its shell) is refused naming
// Claude Code's label. Whole real Claude Code sessions: `pnpm test:long` (MUSTER_LONG_TESTS).
import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { claudeHome, eventually, LONG_TESTS, startScriptedMessages } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import { CLAUDE, MUSTER } from "../test/claude.js";

const run = promisify(execFile);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it.skipIf(!LONG_TESTS)(
  "Claude Code commits the file it leased from its Bash tool; another member's commit of it is refused naming it",
  async () => {
    const model = await startScriptedMessages([]);
    cleanups.push(() => model.close());
    const { home, repo, env } = claudeHome({ baseUrl: model.baseUrl, label: "writer" });
    cleanups.push(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));
    const sh = (script: string) =>
      run("sh", ["-c", script], { cwd: repo, env: { ...env, MUSTER_LABEL: undefined } }).then(
        (done) => ({ code: 0, ...done }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    const muster = `'${process.execPath}' '${MUSTER}'`;
    const git = "git -c user.name=t -c user.email=t@example.invalid";
    await sh(`mkdir src && echo start > src/claude.js && ${git} add -A && ${git} commit -qm start`);
    writeFileSync(
      path.join(repo, ".git", "hooks", "pre-commit"),
      `#!/bin/sh\n${muster} heartbeat --json > .git/who.json || true\n`,
      { mode: 0o755 },
    );
    expect((await sh(`${muster} install git-hook`)).code).toBe(0);
    const bash = (command: string) => ({ call: { name: "Bash", arguments: { command } } });
    model.script.push(
      bash(`${muster} lease src/claude.js --json > .git/lease.json 2>&1`),
      bash(
        `echo claude >> src/claude.js && ${git} add src/claude.js && ${git} commit -q -m claude && ${git} log -1 --format=%s > .git/log.txt 2>&1`,
      ),
      // The session stays (and its member live) until the test's other commit is done.
      bash("touch .git/ready; while [ ! -f .git/go ]; do sleep 0.1; done"),
      { text: "Committed." },
    );
    const session = run(CLAUDE, ["-p", "--dangerously-skip-permissions", "commit it"], {
      cwd: repo,
      env,
      timeout: 90_000,
    }).then(
      () => 0,
      (error: { code: number | null; stderr: string }) => `${error.code}: ${error.stderr}`,
    );
    cleanups.push(() => writeFileSync(path.join(repo, ".git", "go"), ""));
    await eventually(
      () => existsSync(path.join(repo, ".git", "ready")),
      (ready) => ready,
      "Claude Code's commit",
      { attempts: 1200 },
    );
    const lease = JSON.parse(readFileSync(path.join(repo, ".git", "lease.json"), "utf8"));
    expect(lease).toMatchObject({ ok: true });
    const holder = lease.leases[0].holderId as string;
    expect(holder).toMatch(/^claude-\d+-\d+$/);
    expect(readFileSync(path.join(repo, ".git", "log.txt"), "utf8")).toBe("claude\n");
    expect(JSON.parse(readFileSync(path.join(repo, ".git", "who.json"), "utf8")).id).toBe(holder);

    expect((await sh(`${muster} join other`)).code).toBe(0);
    const theirs = await sh(
      `echo other >> src/claude.js && ${git} add src/claude.js && ${git} commit -q -m other`,
    );
    expect(theirs.code).not.toBe(0);
    expect(theirs.stderr).toMatch(/src\/claude\.js is leased \(src\/claude\.js\), held by writer /);
    writeFileSync(path.join(repo, ".git", "go"), "");
    expect(await session).toBe(0);
  },
  120_000,
);
