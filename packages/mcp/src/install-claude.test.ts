import { spawnSync } from "node:child_process";
import { onlyInserted } from "@muster/test-support";
import { describe, expect, it } from "vitest";
import { GUARD_FALLBACK, hookCommand } from "./_claude-hook-command.js";
import {
  CLAUDE_HOOKS,
  installClaudeHooks,
  installClaudeMcp,
  uninstallClaudeHooks,
  uninstallClaudeMcp,
} from "./_install-claude.js";

const SERVER = { command: "/usr/bin/node", args: ["/opt/muster it/muster.js", "mcp"] };
const USER_SETTINGS = `{
    "model": "opus",
    "permissions": { "allow": ["Bash(ls)", "Read"], "deny": [] },
    "hooks": {
        "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ],
        "Notification": [
            { "matcher": "idle_prompt", "hooks": [ { "type": "command", "command": "beep" } ] }
        ]
    }
}
`;

const textOf = (edit: ReturnType<typeof installClaudeHooks>) => {
  if (!edit.ok) throw new Error(edit.error);
  return edit.text;
};

describe("muster install claude", () => {
  it("adds one muster hook group per event after the user's own, and quotes the command", () => {
    const text = textOf(installClaudeHooks(USER_SETTINGS, SERVER)) ?? "";
    const settings = JSON.parse(text);
    expect(settings.model).toBe("opus");
    expect(Object.keys(settings.hooks).sort()).toEqual(Object.keys(CLAUDE_HOOKS).sort());
    expect(settings.hooks.Stop[0].hooks[0].command).toBe("notify-send done");
    expect(settings.hooks.Stop[1].hooks[0].command).toBe(
      "/usr/bin/node '/opt/muster it/muster.js' hook claude stop",
    );
    expect(settings.hooks.FileChanged[0].hooks[0]).toMatchObject({ asyncRewake: true });
    expect(settings.hooks.Notification).toEqual([
      { matcher: "idle_prompt", hooks: [{ type: "command", command: "beep" }] },
      {
        matcher: "idle_prompt|permission_prompt",
        hooks: [
          expect.objectContaining({
            command: expect.stringMatching(/ hook claude notification$/),
            asyncRewake: true,
          }),
        ],
      },
    ]);
    expect(settings.hooks.PreToolUse).toEqual([
      {
        matcher: "Edit|MultiEdit|Write|NotebookEdit",
        hooks: [
          expect.objectContaining({
            command: `/usr/bin/node '/opt/muster it/muster.js' hook claude pre-tool-use${GUARD_FALLBACK}`,
          }),
        ],
      },
    ]);
    // muster's tools run without a prompt; the user's rules stay first.
    expect(settings.permissions.allow).toEqual(["Bash(ls)", "Read", "mcp__muster"]);
    expect(installClaudeHooks(text, SERVER)).toMatchObject({ text, changed: false });
  });

  it("keeps the user's formatting: 4-space indent, inline arrays, muster's lines in the same indent", () => {
    const text = textOf(installClaudeHooks(USER_SETTINGS, SERVER)) ?? "";
    expect(onlyInserted(USER_SETTINGS, text)).toBe(true);
    expect(text).toContain(`\n    "model": "opus",\n`);
    expect(text).toContain(`"allow": ["Bash(ls)", "Read", "mcp__muster"], "deny": []`);
    // A new event's key at the indent of its siblings, its content one level (4 spaces) deeper.
    expect(text).toMatch(/\n {8}"SessionStart": \[\n {12}\{\n {16}"hooks": \[/);
    // Uninstalled at once: the user's bytes, exactly.
    expect(textOf(uninstallClaudeHooks(text, { text: USER_SETTINGS }))).toBe(USER_SETTINGS);
  });

  it("writes with tabs in a file indented with tabs", () => {
    const tabs = `{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{"hooks": [{"type": "command", "command": "x"}]}\n\t\t]\n\t}\n}\n`;
    const text = textOf(installClaudeHooks(tabs, SERVER)) ?? "";
    expect(text).toMatch(/\n\t\t\t\{\n\t\t\t\t"hooks": \[/);
    expect(text).not.toMatch(/\n {2}/);
    expect(textOf(uninstallClaudeHooks(text, { text: tabs }))).toBe(tabs);
  });

  it("finds muster's entries however they were moved, and removes only them", () => {
    const text = textOf(installClaudeHooks(USER_SETTINGS, SERVER)) ?? "";
    const settings = JSON.parse(text);
    // The user moved muster's Stop group first, added their own hook inside muster's
    // SessionStart group, changed the model, and Claude Code re-wrote the file 2-space.
    settings.hooks.Stop.reverse();
    settings.hooks.SessionStart[0].hooks.push({ type: "command", command: "echo hi" });
    settings.model = "sonnet";
    const rewritten = JSON.stringify(settings, null, 2);
    const removed = JSON.parse(
      textOf(uninstallClaudeHooks(rewritten, { text: USER_SETTINGS })) ?? "",
    );
    const expected = JSON.parse(USER_SETTINGS);
    expected.model = "sonnet";
    expected.hooks.SessionStart = [{ hooks: [{ type: "command", command: "echo hi" }] }];
    expect(removed).toEqual(expected);
  });

  it("keeps containers the user had before the install, even when empty", () => {
    const original = `{\n  "hooks": { "Stop": [] },\n  "permissions": { "allow": [] }\n}\n`;
    const text = textOf(installClaudeHooks(original, SERVER)) ?? "";
    expect(JSON.parse(text).permissions.allow).toEqual(["mcp__muster"]);
    expect(textOf(uninstallClaudeHooks(text, { text: original }))).toBe(original);
    // Without a record of the file before (a project installed elsewhere): what muster's entries
    // leave empty goes too.
    expect(JSON.parse(textOf(uninstallClaudeHooks(text)) ?? "")).toEqual({});
  });

  it("removes a file it created", () => {
    const created = textOf(installClaudeHooks(undefined, SERVER));
    expect(textOf(uninstallClaudeHooks(created, { text: undefined }))).toBeUndefined();
    const mcp = installClaudeMcp(undefined, SERVER);
    expect(textOf(uninstallClaudeMcp(mcp.ok ? mcp.text : "", { text: undefined }))).toBeUndefined();
  });

  it("adds mcpServers.muster beside the user's servers, on one line where they are, and removes only it", () => {
    const original = `{"mcpServers": {"docs": {"command": "docs"}}, "numStartups": 3}`;
    const text = textOf(installClaudeMcp(original, SERVER)) ?? "";
    expect(JSON.parse(text).mcpServers).toEqual({
      docs: { command: "docs" },
      muster: { type: "stdio", command: SERVER.command, args: SERVER.args, env: {} },
    });
    expect(onlyInserted(original, text)).toBe(true);
    expect(text.split("\n")).toHaveLength(1);
    expect(textOf(uninstallClaudeMcp(text, { text: original }))).toBe(original);
    // Claude Code rewrote the file, with a new key of its own: only muster's entry goes.
    const rewritten = JSON.stringify({ ...JSON.parse(text), numStartups: 4, tips: 1 }, null, 2);
    expect(JSON.parse(textOf(uninstallClaudeMcp(rewritten, { text: original })) ?? "")).toEqual({
      mcpServers: { docs: { command: "docs" } },
      numStartups: 4,
      tips: 1,
    });
  });

  it.each([
    ["a file that is not JSON", "{ nope", "bad-config"],
    ["a JSON array", "[]", "bad-config"],
    ["hooks that are no object", `{"hooks": []}`, "bad-config"],
    ["an event that is no list", `{"hooks": {"Stop": {"command": "x"}}}`, "bad-config"],
    ["permissions.allow that is no list", `{"permissions": {"allow": "Read"}}`, "bad-config"],
    ["mcpServers that is no object", `{"mcpServers": 3}`, "bad-config"],
    [
      "the user's own mcpServers.muster",
      `{"mcpServers": {"muster": {"command": "mine", "args": []}}}`,
      "own-entry",
    ],
  ])("refuses %s", (_name, original, reason) => {
    const results = [installClaudeMcp(original, SERVER), installClaudeHooks(original, SERVER)];
    expect(results.some((result) => !result.ok && result.reason === reason)).toBe(true);
  });

  it("the lease check's command refuses when muster cannot run, and keeps muster's own answer", () => {
    // A stand-in muster that exits $CODE after a word on stderr, run by sh as Claude Code runs it.
    const stand = { command: "sh", args: ["-c", 'echo mine >&2; exit "$CODE"', "mcp"] };
    const run = (server: typeof stand, code: number) => {
      const command = hookCommand(server, "pre-tool-use") + GUARD_FALLBACK;
      const done = spawnSync("sh", ["-c", command], {
        env: { ...process.env, CODE: String(code) },
      });
      return [done.status, done.stderr.toString()];
    };
    expect(run(stand, 0)).toEqual([0, "mine\n"]);
    expect(run(stand, 2)).toEqual([2, "mine\n"]);
    const [status, said] = run(stand, 1);
    expect(status).toBe(2);
    expect(said).toMatch(/^mine\nmuster's lease check could not run .*muster install claude again/);
    const gone = run({ ...stand, command: "/nowhere/node" }, 0);
    expect(gone[0]).toBe(2);
    expect(gone[1]).toMatch(/not found\nmuster's lease check could not run/);
  });

  it("an older muster's lease check (no fallback) is muster's: replaced on install, gone on uninstall", () => {
    const old = JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Write",
            hooks: [{ type: "command", command: "muster hook claude pre-tool-use" }],
          },
        ],
      },
    });
    const text = textOf(installClaudeHooks(old, SERVER)) ?? "";
    const commands = JSON.parse(text).hooks.PreToolUse.flatMap(
      (group: { hooks: { command: string }[] }) => group.hooks.map((hook) => hook.command),
    );
    expect(commands).toEqual([`${hookCommand(SERVER, "pre-tool-use")}${GUARD_FALLBACK}`]);
    expect(textOf(uninstallClaudeHooks(text, { text: undefined }))).toBeUndefined();
  });
});
