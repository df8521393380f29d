// A real Claude Code 2.1.332, offline, whose muster hooks and MCP server run on a Node older than
// muster needs (the machine's /usr/bin/node, Node 20 here): settings as `muster install claude`
// writes them when that is its Node. The edit guard must refuse the edit (Claude Code lets through
// any failed hook but exit 2) and tell the model why; the session's other hooks and the MCP server
// must not break the session: `claude -p` still ends its turn, exit 0.
// Whole real Claude Code sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { claudeHome, LONG_TESTS, startScriptedMessages } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { CLAUDE, MUSTER, requestText } from "../test/claude.js";

const OLD_NODE = "/usr/bin/node";
const oldVersion = existsSync(OLD_NODE)
  ? execFileSync(OLD_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()
  : undefined;
const NEEDS = packageJson.engines.node.replace(/^>=\s*/, "");
const [needMajor, needMinor] = NEEDS.split(".").map(Number);
const [major, minor] = (oldVersion ?? "99").split(".").map(Number);
const OLD = major! < needMajor! || (major === needMajor && minor! < (needMinor ?? 0));
if (LONG_TESTS && !OLD)
  console.warn(`claude-old-node.test.ts: skipped, ${OLD_NODE} is not older than Node ${NEEDS}`);

const run = promisify(execFile);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it.skipIf(!LONG_TESTS || !OLD)(
  `Claude Code with muster on Node ${oldVersion}: the edit is refused, said, and the session goes on`,
  async () => {
    const model = await startScriptedMessages([]);
    cleanups.push(() => model.close());
    const { home, repo, env } = claudeHome({ baseUrl: model.baseUrl, label: "writer" });
    cleanups.push(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));
    const file = path.join(repo, "notes.txt");
    model.script.push(
      { call: { name: "Write", arguments: { file_path: file, content: "written\n" } } },
      { text: "Tried." },
    );
    execFileSync(process.execPath, [MUSTER, "install", "claude"], { cwd: repo, env });
    // The settings muster writes when the Node it runs on is the old one: every hook and the
    // MCP server named by that Node's path.
    for (const name of ["settings.json", ".claude.json"]) {
      const settings = path.join(env.CLAUDE_CONFIG_DIR!, name);
      const text = readFileSync(settings, "utf8");
      writeFileSync(settings, text.replaceAll(process.execPath, OLD_NODE));
    }
    expect(readFileSync(path.join(env.CLAUDE_CONFIG_DIR!, "settings.json"), "utf8")).toContain(
      `${OLD_NODE} ${MUSTER} hook claude pre-tool-use`,
    );

    const ended = await run(CLAUDE, ["-p", "--dangerously-skip-permissions", "write the notes"], {
      cwd: repo,
      env,
      timeout: 90_000,
    }).then(
      () => 0,
      (error: { code: number | null; stderr: string }) => `${error.code}: ${error.stderr}`,
    );
    expect(ended).toBe(0);
    expect(existsSync(file)).toBe(false);
    const scripted = model.requests.filter((request) => request.scripted);
    expect(scripted).toHaveLength(2);
    expect(requestText(scripted[1]!.body)).toContain(
      `muster could not check it against the team's leases (muster needs Node >= ${NEEDS}; this is Node ${oldVersion} (${OLD_NODE}))`,
    );
  },
  120_000,
);
