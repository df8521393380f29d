// A Claude Code member muster.toml declares comes back in its own conversation: `muster up` starts it
// fresh with its task (under a session id muster names), `muster down` ends it, the tmux server is
// killed, and `muster up` resumes it (`claude --resume <id>`); mailed then, it is woken, and the
// scripted model sees its earlier conversation in the request. Real Claude Code 2.1.332, offline,
// set up by `muster install claude`; a private tmux server `up` itself starts.
// A Claude Code start costs seconds: `pnpm test:long` (MUSTER_LONG_TESTS) only.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { assertPrivateSocket, eventually, LONG_TESTS, tmuxEnv } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import { CLAUDE, claudeKit, MUSTER, requestText } from "../test/claude.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
});

it.skipIf(!LONG_TESTS)(
  "a declared Claude Code member: up, down, tmux kill-server, up: back in the same conversation",
  async () => {
    const kit = await claudeKit([{ text: "Done." }, { text: "Back." }], "unused");
    cleanups.push(() => kit.close());
    const bin = path.join(kit.home, "bin");
    mkdirSync(bin, { recursive: true });
    // Claude Code as installed, writing its debug log (when it watches its mailbox shows there).
    const debugLog = path.join(kit.home, "claude-debug.log");
    writeFileSync(
      path.join(bin, "claude"),
      `#!/bin/sh\nexec '${CLAUDE}' --debug-file '${debugLog}' "$@"\n`,
    );
    chmodSync(path.join(bin, "claude"), 0o755);
    const logFrom = (offset: number) => {
      try {
        return readFileSync(debugLog, "utf8").slice(offset);
      } catch {
        return "";
      }
    };
    const server = `muster-test-${randomBytes(6).toString("hex")}`;
    const env = tmuxEnv({ ...kit.env, PATH: `${bin}:${kit.env.PATH}` });
    const tmux = (...args: string[]) => {
      const full = ["-L", server, ...args];
      assertPrivateSocket(full);
      return execFileSync("tmux", full, { env, encoding: "utf8", stdio: "pipe" });
    };
    const killServer = () => {
      try {
        tmux("kill-server");
      } catch {
        // not running
      }
    };
    cleanups.push(killServer);
    const muster = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [MUSTER, ...args, "-L", server], {
          cwd: kit.repo,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => {
          stdout += chunk;
        });
        child.stderr.on("data", (chunk) => {
          stderr += chunk;
        });
        child.once("close", (status) => resolve({ status, stdout, stderr }));
      });
    writeFileSync(
      path.join(kit.repo, "muster.toml"),
      '[[member]]\nlabel = "writer"\nengine = "claude"\ntask = "task zero"\n',
    );
    const scripted = () => kit.model.requests.filter((request) => request.scripted);

    const first = await muster(["up", "--json", "--timeout", "120"]);
    expect(first.status, first.stderr).toBe(0);
    const [writer] = JSON.parse(first.stdout).members;
    expect(writer).toMatchObject({ label: "writer", engine: "claude", outcome: "fresh" });
    expect(writer.session).toMatch(/^[0-9a-f-]{36}$/);
    await eventually(
      () => scripted().some((request) => requestText(request.body).includes("task zero")),
      (seen) => seen,
      "the task's turn",
      { attempts: 600 },
    );

    const down = await muster(["down", "--json"]);
    expect(down.status, down.stderr).toBe(0);
    expect(JSON.parse(down.stdout).members).toMatchObject([
      { label: "writer", outcome: "down", kept: { session: writer.session } },
    ]);
    killServer();

    const logged = logFrom(0).length;
    const again = await muster(["up", "--json", "--timeout", "120"]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).members).toMatchObject([
      { label: "writer", outcome: "resumed", session: writer.session },
    ]);
    const asked = scripted().length;
    // Mail that lands before Claude Code watches its mailbox waits for its next prompt.
    await eventually(
      () => logFrom(logged),
      (text) => text.includes("FileChanged: watching 2 paths"),
      "the resumed Claude Code to watch its mailbox",
      { attempts: 600 },
    );
    // Woken by its mail, in the conversation it had: the model is sent the earlier task too.
    await eventually(
      async () => (await muster(["send", "writer", "the second task", "--json"])).status,
      (status) => status === 0,
      "the send to writer",
      { attempts: 100, intervalMs: 300 },
    );
    const request = await eventually(
      () =>
        scripted()
          .slice(asked)
          .find((each) => requestText(each.body).includes("the second task")),
      (found) => found !== undefined,
      "the woken turn",
      { attempts: 900 },
    );
    expect(requestText(request!.body)).toContain("task zero");
    await muster(["down"]);
  },
  300_000,
);
