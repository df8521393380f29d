// The holder's own commit, with a real Codex 0.171.0 TUI (offline, the scripted model, a private
// tmux pane below the person's shell, set up by `muster install codex`) and muster's real git
// hook: Codex joins through its MCP server, leases a file from its sandboxed shell tool (as the
// thread's member), and commits it from its shell tool (a script of several commands, as agents
// write them; approved by the person to run outside the sandbox, whose .git is read-only); the
// hook's guard finds the thread's member and lets it through. A commit of that file from a
// shell in another window is refused naming Codex's label. A real Codex costs seconds: `pnpm
// test:long`.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, realCodex } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup);
});

type Input = { type?: string; output?: unknown };
const toolOutputs = (request: Record<string, unknown>) =>
  (Array.isArray(request.input) ? (request.input as Input[]) : [])
    .filter((item) => item.type === "function_call_output")
    .map((item) => String(item.output));

it.skipIf(!LONG_TESTS)(
  "Codex leases a file from its sandboxed shell and commits it; a commit of it from another shell is refused naming Codex",
  async () => {
    const muster = (args: string) => `'${process.execPath}' '${MUSTER}' ${args}`;
    const git = "git -c user.name=t -c user.email=t@example.invalid";
    const codex = await realCodex({
      prefix: "muster-codex-commit-",
      codex: CODEX,
      muster: MUSTER,
      label: "coder",
      script: [
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { call: { name: "exec_command", arguments: { cmd: muster("lease src/codex.js") } } },
        {
          call: {
            name: "exec_command",
            arguments: {
              cmd: `echo codex >> src/codex.js && ${git} add src/codex.js && ${git} commit -q -m codex && ${git} log -1 --format=%s`,
              sandbox_permissions: "require_escalated",
              justification: "commit the parser",
            },
          },
        },
        { text: "Committed." },
      ],
    });
    cleanups.push(() => codex.close());
    const { repo, model, screen, server } = codex;
    const run = (file: string, args: string[]) =>
      execFileSync(file, args, { cwd: repo, env: codex.env, encoding: "utf8" });
    run("sh", ["-c", "mkdir -p src && echo start > src/codex.js"]);
    run("git", ["-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"]);
    run("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start"]);
    run(process.execPath, [MUSTER, "install", "git-hook"]);
    // Codex's workspace-write sandbox keeps .git read-only (0.171.0: "Unable to create
    // .git/index.lock: Read-only file system"): Codex asks to commit outside it, and the person
    // approves; there the walk finds Codex itself, and CODEX_THREAD_ID its thread. A commit
    // inside the sandbox (a .git it may write) is in commit-identity.test.ts.
    const config = path.join(codex.home, ".codex", "config.toml");
    writeFileSync(config, `approval_policy = "on-request"\n${readFileSync(config, "utf8")}`);
    await codex.start();
    await codex.submit("lease src/codex.js and commit it");
    await eventually(
      screen,
      (text) => text.includes("Would you like to run the following command?"),
      "the approval dialog",
      { attempts: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${screen()}`);
    });
    // The dialog may be drawn before the TUI reads keys (a lone `y` was lost in CI at load): the
    // person presses it again while the dialog still asks, at most once a second.
    let pressed = 0;
    const press = () => {
      if (Date.now() - pressed < 1000) return;
      if (!screen().includes("Would you like to run the following command?")) return;
      server.tmux("send-keys", "-t", "main", "y");
      pressed = Date.now();
    };
    press();
    const outputs = await eventually(
      () => {
        press();
        return [...new Set(model.requests.flatMap(toolOutputs))];
      },
      (answers) => answers.length >= 3,
      "the three tool calls to be answered",
      { attempts: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${screen()}`);
    });
    const diagnose = `the tools answered: ${JSON.stringify(outputs)}\n${screen()}`;
    expect(outputs[1], diagnose).toMatch(/Leased src\/codex\.js/);
    expect(outputs[2], diagnose).toMatch(/Process exited with code 0[\s\S]*codex/);
    expect(run("git", ["log", "-1", "--format=%s"]), diagnose).toBe("codex\n");

    // Someone else, from a shell in another window: refused, naming Codex's label.
    const out = path.join(codex.home, "person.txt");
    server.tmux(
      "new-window",
      "-d",
      "-n",
      "person",
      `bash -c "cd '${repo}' && { echo person >> src/codex.js && git add src/codex.js && ${git} commit -q -m person; } > '${out}.tmp' 2>&1; echo exit \\$? >> '${out}.tmp'; mv '${out}.tmp' '${out}'"`,
    );
    const said = await eventually(
      () => {
        try {
          return readFileSync(out, "utf8");
        } catch {
          return "";
        }
      },
      (text) => text.includes("exit "),
      "the person's commit",
      { attempts: 300 },
    );
    expect(said).toMatch(/src\/codex\.js is leased \(src\/codex\.js\), held by coder /);
    expect(said).toMatch(/exit 1\n$/);
  },
  180_000,
);
