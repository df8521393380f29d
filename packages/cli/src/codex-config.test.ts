// The real Codex 0.171.0 writing its own config.toml between `muster install codex` and
// `--uninstall` (a feature flag, an MCP server added and removed): muster finds its keys again
// however Codex moved or re-wrote them, and the uninstall leaves exactly the file Codex writes
// when muster was never there (the same commands, run on a copy of the user's file alone). Eleven
// starts of the real Codex: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; install-files.test.ts
// keeps muster's own install and uninstall of Codex's config byte for byte in `pnpm test`.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  endCodexDaemons,
  eventually,
  LONG_TESTS,
  startPrivateTmux,
  tmuxEnv,
} from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const execute = promisify(execFile);
const homes: string[] = [];
const servers: { kill(): void }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.kill();
  for (const home of homes.splice(0)) {
    await endCodexDaemons(home);
    rmSync(home, { recursive: true, force: true });
  }
});

const USER = `# my Codex
model = "o3"   # fast

[tui]
terminal_title = ["project"]  # short

[mcp_servers.docs]
command = "docs-mcp"
# end of my file
`;

/** A throwaway HOME holding `config` as its Codex config; commands of muster and Codex in it. */
function codexHome(config: string) {
  const home = mkdtempSync(path.join(tmpdir(), "muster-codexcfg-"));
  homes.push(home);
  mkdirSync(path.join(home, ".codex"));
  const file = path.join(home, ".codex", "config.toml");
  writeFileSync(file, config);
  const env = tmuxEnv({ HOME: home, CODEX_HOME: undefined });
  return {
    home,
    read: () => readFileSync(file, "utf8"),
    codex: (...args: string[]) => execute(CODEX, args, { cwd: home, env }),
    muster: async (...args: string[]) =>
      JSON.parse(
        (await execute(process.execPath, [MUSTER, ...args, "--json"], { cwd: home, env })).stdout,
      ),
  };
}

/** What Codex's own commands make of the user's file when muster is not in it. */
async function codexAlone(...commands: string[][]) {
  const alone = codexHome(USER);
  for (const command of commands) await alone.codex(...command);
  return alone.read();
}

const FEATURE = ["features", "enable", "shell_snapshot"];
const ADD = ["mcp", "add", "lint", "--env", "LEVEL=3", "--", "lint-mcp", "--strict"];
const REMOVE = ["mcp", "remove", "lint"];

it.skipIf(!LONG_TESTS).each([
  ["a feature flag Codex appends", [FEATURE]],
  ["an MCP server Codex adds, re-writing every server's table", [ADD]],
  ["a server added and removed again, after a flag", [FEATURE, ADD, REMOVE]],
])(
  "%s: muster's keys found again, and the uninstall leaves Codex's file alone",
  async (_name, commands) => {
    const user = codexHome(USER);
    await user.muster("install", "codex", "--wake");
    for (const command of commands) await user.codex(...command);
    const rewritten = user.read();
    // muster still recognises its install: nothing to do, and no refusal of its own entry.
    const again = await user.muster("install", "codex", "--wake");
    expect(again.files[0].changed, rewritten).toBe(false);
    const removed = await user.muster("install", "codex", "--uninstall");
    expect(removed.files[0].changes).toEqual([
      "[mcp_servers.muster]",
      "muster's notify",
      "mcp_optional_startup_grace_ms",
      '"thread-id" in [tui] terminal_title',
    ]);
    expect(user.read()).toBe(await codexAlone(...commands));
  },
);

it.skipIf(!LONG_TESTS)(
  "Codex's own edits after a hand edit of muster's table still uninstall cleanly",
  async () => {
    const user = codexHome(USER);
    await user.muster("install", "codex");
    // The user moves muster's server above theirs; Codex then re-writes the servers.
    const text = user.read();
    const block = text.slice(text.indexOf("[mcp_servers.muster]"), text.indexOf("\n[tui]") + 1);
    writeFileSync(
      path.join(homes.at(-1)!, ".codex", "config.toml"),
      text.replace(block, "").replace("[mcp_servers.docs]", `${block}\n[mcp_servers.docs]`),
    );
    await user.codex(...ADD);
    await user.muster("install", "codex", "--uninstall");
    const after = user.read();
    expect(after).not.toMatch(/mcp_servers\.muster|notify/);
    expect(after).toContain("[mcp_servers.docs]");
    expect(after).toContain("[mcp_servers.lint]");
    expect(after).toContain('terminal_title = ["project"]  # short');
    expect(after.startsWith('# my Codex\nmodel = "o3"   # fast\n')).toBe(true);
  },
);

it.skipIf(!LONG_TESTS)(
  "Codex trusting a project in its TUI: the uninstall keeps the trust and Codex's [tui] keys",
  async () => {
    // A provider at a closed port: the trust screen comes before any model request.
    const user = codexHome(
      'model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n',
    );
    const repo = path.join(user.home, "repo");
    mkdirSync(repo);
    await execute("git", ["init", "-q", repo]);
    writeFileSync(
      path.join(user.home, ".codex", "auth.json"),
      JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: "sk-fake" }),
    );
    await user.muster("install", "codex");
    const before = user.read();
    // Codex's folder-trust screen, answered "Trust and continue" (no model request is made).
    const tmux = startPrivateTmux({
      cwd: repo,
      command: `${CODEX} --no-daemon`,
      env: { HOME: user.home, CODEX_HOME: undefined },
    });
    servers.push(tmux);
    await eventually(
      () => tmux.tmux("capture-pane", "-p"),
      (screen) => screen.includes("Trust and continue"),
      "Codex's folder-trust screen",
      { attempts: 600 },
    );
    // Enter, as a person would, again while the screen still asks: a key that reaches the TUI
    // before it reads its keyboard is lost. The screen is what a failure names.
    let screen = "";
    await eventually(
      () => {
        const text = user.read();
        if (text.includes(`[projects."${repo}"]`)) return true;
        screen = tmux.tmux("capture-pane", "-p");
        if (screen.includes("Trust and continue")) tmux.tmux("send-keys", "Enter");
        return false;
      },
      (written) => written,
      "Codex to write the trust",
      { attempts: 120, intervalMs: 500 },
    ).catch((error) => {
      throw new Error(`${error.message}; Codex's screen:\n${screen}`);
    });
    tmux.kill();
    const trusted = user.read();
    expect(trusted).not.toBe(before);
    const removed = await user.muster("install", "codex", "--uninstall");
    const after = user.read();
    expect(removed.files[0].changes).toEqual([
      "[mcp_servers.muster]",
      "muster's notify",
      "mcp_optional_startup_grace_ms",
      "[tui] terminal_title",
    ]);
    expect(after).not.toMatch(/mcp_servers|notify/);
    expect(after).not.toContain("thread-id");
    // What Codex wrote stays: the trust, and its own keys in the [tui] table muster had made.
    expect(after).toContain(`[projects."${repo}"]\ntrust_level = "trusted"`);
    expect(after).toMatch(/\[tui\]\n(?:.*\n)*?screen_reader_detection_done = true/);
    expect(after.startsWith('model = "mock-model"\nmodel_provider = "mock"\n')).toBe(true);
  },
  120_000,
);
