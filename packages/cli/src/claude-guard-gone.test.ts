// A real Claude Code 2.1.332, offline, set up by `muster install claude` from a copy of muster that
// is then deleted (an npx cache cleared, a global install removed or moved). Its PreToolUse hook
// cannot run at all (node: "Cannot find module", exit 1; a shell: "not found", exit 127), and
// Claude Code lets a hook's non-zero exit other than 2 through: the edit must be refused instead,
// with what to do, while an edit nothing guards still happens once muster is back.
// Whole real Claude Code sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { claudeHome, LONG_TESTS, startScriptedMessages } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import { CLAUDE, MUSTER, requestText } from "../test/claude.js";

const run = promisify(execFile);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `claude -p` to its end (never synchronously: the scripted model answers in this process). */
const claudePrint = (repo: string, env: NodeJS.ProcessEnv, prompt: string) =>
  run(CLAUDE, ["-p", "--dangerously-skip-permissions", prompt], {
    cwd: repo,
    env,
    timeout: 90_000,
  }).then(
    () => 0,
    (error: { code: number | null; stderr: string }) => `${error.code}: ${error.stderr}`,
  );

it.skipIf(!LONG_TESTS).each([
  ["muster's script deleted (node exits 1)", ["dist"]],
  ["muster's script and its Node both gone (the shell exits 127)", ["dist", "node"]],
])(
  "a PreToolUse hook that cannot run refuses the edit: %s",
  async (_case, removed) => {
    const file = "notes.txt";
    const model = await startScriptedMessages([]);
    cleanups.push(() => model.close());
    const { home, repo, env } = claudeHome({ baseUrl: model.baseUrl, label: "writer" });
    cleanups.push(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));
    // The Write names the file by its absolute path, as Claude Code's tool takes it.
    model.script.push(
      {
        call: {
          name: "Write",
          arguments: { file_path: path.join(repo, file), content: "written\n" },
        },
      },
      { text: "Tried." },
    );
    // A muster of its own (the built CLI bundles all it runs) and a Node of its own, both removable.
    const copy = path.join(home, "muster-copy");
    mkdirSync(path.join(copy, "node"), { recursive: true });
    cpSync(path.dirname(MUSTER), path.join(copy, "dist"), { recursive: true });
    writeFileSync(path.join(copy, "package.json"), '{"type":"module"}\n');
    const node = path.join(copy, "node", "node");
    cpSync(process.execPath, node);
    execFileSync(node, [path.join(copy, "dist", "muster.js"), "install", "claude"], {
      cwd: repo,
      env,
    });
    const settings = path.join(env.CLAUDE_CONFIG_DIR!, "settings.json");
    expect(readFileSync(settings, "utf8")).toContain(path.join(copy, "dist", "muster.js"));
    for (const part of removed) rmSync(path.join(copy, part), { recursive: true, force: true });

    expect(await claudePrint(repo, env, "write the notes")).toBe(0);
    expect(existsSync(path.join(repo, file))).toBe(false);
    const scripted = model.requests.filter((request) => request.scripted);
    expect(scripted).toHaveLength(2);
    // The model is told why, and the person what to do.
    expect(requestText(scripted[1]!.body)).toContain("muster's lease check could not run");
    expect(requestText(scripted[1]!.body)).toContain("muster install claude");
  },
  120_000,
);
