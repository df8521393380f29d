// `muster install` from the built binary in a throwaway HOME with the user's own configs in it:
// unchanged except muster's lines, and --uninstall gives back the files byte for byte.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { tmuxEnv } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const run = promisify(execFile);
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function home(files: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-install-"));
  homes.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const muster = async (...args: string[]) =>
    JSON.parse(
      (
        await run(process.execPath, [MUSTER, ...args, "--json"], {
          cwd: dir,
          env: tmuxEnv({ HOME: dir }),
        })
      ).stdout,
    );
  const read = (name: string) =>
    existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), "utf8") : undefined;
  return { dir, muster, read };
}

const CODEX = `# Codex, my way
model = "o3"   # fast enough
notify = ["notify-send", "Codex"] # a desktop ping

[tui]
terminal_title = ["project"]  # short

[mcp_servers.docs]
command = "docs-mcp"
`;

it("install codex keeps the user's lines, serves muster, and uninstalls byte for byte", async () => {
  const { muster, read } = home({ ".codex/config.toml": CODEX });
  const installed = await muster("install", "codex");
  expect(installed.files).toEqual([expect.objectContaining({ changed: true })]);
  const text = read(".codex/config.toml") ?? "";
  for (const line of CODEX.split("\n").filter((line) => !/^(terminal_title|notify)/.test(line)))
    expect(text).toContain(line);
  expect(text).toContain(`args = [${JSON.stringify(MUSTER)}, "mcp"]`);
  expect(text).toContain('terminal_title = ["project", "thread-id"]  # short');
  // muster's notify first, then the user's own program with the same argument, the user's
  // comment where it was.
  expect(text).toMatch(
    /^notify = \["sh", "-c", ".*hook codex notify.*", "muster-notify", "--", "notify-send", "Codex"\] # a desktop ping$/m,
  );
  expect(text).toContain(`${JSON.stringify(`'${process.execPath}' '${MUSTER}'`).slice(1, -1)}`);
  expect((await muster("install", "codex")).files[0].changed).toBe(false);
  await muster("install", "codex", "--uninstall");
  expect(read(".codex/config.toml")).toBe(CODEX);
});

it("install claude adds the MCP server and hooks beside the user's, and uninstalls byte for byte", async () => {
  const settings = `{\n\t"theme": "dark",\n\t"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],\n\t"Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": "beep"}]}]}\n}`;
  const state = `{"numStartups": 4, "mcpServers": {"docs": {"command": "docs"}}}`;
  const { muster, read } = home({ ".claude/settings.json": settings, ".claude.json": state });
  await muster("install", "claude");
  const hooks = JSON.parse(read(".claude/settings.json") ?? "").hooks;
  expect(
    hooks.Stop.map((group: { hooks: { command: string }[] }) => group.hooks[0]!.command),
  ).toEqual(["say done", expect.stringMatching(/ hook claude stop$/)]);
  // idle_prompt: the user's own hook first, then muster's, which records the session idle.
  expect(hooks.Notification).toEqual([
    { matcher: "idle_prompt", hooks: [{ type: "command", command: "beep" }] },
    {
      matcher: "idle_prompt|permission_prompt",
      hooks: [
        expect.objectContaining({ command: expect.stringMatching(/ hook claude notification$/) }),
      ],
    },
  ]);
  expect(Object.keys(JSON.parse(read(".claude.json") ?? "").mcpServers)).toEqual([
    "docs",
    "muster",
  ]);
  await muster("install", "claude", "--uninstall");
  expect(read(".claude/settings.json")).toBe(settings);
  expect(read(".claude.json")).toBe(state);
});

it("install claude --project writes .mcp.json and .claude/settings.json, and removes what it created", async () => {
  const { muster, read } = home({});
  await muster("install", "claude", "--project");
  expect(JSON.parse(read(".mcp.json") ?? "").mcpServers.muster.args.at(-1)).toBe("mcp");
  expect(JSON.parse(read(".claude/settings.json") ?? "").hooks.SessionStart).toHaveLength(1);
  await muster("install", "claude", "--project", "--uninstall");
  expect([read(".mcp.json"), read(".claude/settings.json")]).toEqual([undefined, undefined]);
});

it("refuses a config it cannot read as TOML, and changes nothing", async () => {
  const broken = "model = \n";
  const { dir, read } = home({ ".codex/config.toml": broken });
  const failed = await run(process.execPath, [MUSTER, "install", "codex"], {
    cwd: dir,
    env: tmuxEnv({ HOME: dir }),
  }).catch((error: { code: number; stderr: string }) => error);
  expect(failed).toMatchObject({
    code: 1,
    stderr: expect.stringMatching(/does not parse .*; fix it first/),
  });
  expect(read(".codex/config.toml")).toBe(broken);
});
