import { describe, expect, it } from "vitest";
import {
  CLAUDE_HOOKS,
  installClaudeHooks,
  installClaudeMcp,
  restoreClaude,
  uninstallClaudeHooks,
  uninstallClaudeMcp,
} from "./install-claude.js";

const SERVER = { command: "/usr/bin/node", args: ["/opt/muster it/muster.js", "mcp"] };
const USER_SETTINGS = `{
    "model": "opus",
    "hooks": {
        "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ],
        "Notification": [ { "matcher": "idle_prompt", "hooks": [ { "type": "command", "command": "beep" } ] } ]
    }
}`;

describe("muster install claude", () => {
  it("adds one muster hook group per event after the user's own, and quotes the command", () => {
    const installed = installClaudeHooks(USER_SETTINGS, SERVER);
    if (!installed.ok) throw new Error(installed.error);
    const settings = JSON.parse(installed.text ?? "");
    expect(settings.model).toBe("opus");
    expect(Object.keys(settings.hooks).sort()).toEqual(Object.keys(CLAUDE_HOOKS).sort());
    expect(settings.hooks.Stop[0].hooks[0].command).toBe("notify-send done");
    expect(settings.hooks.Stop[1].hooks[0].command).toBe(
      "/usr/bin/node '/opt/muster it/muster.js' hook claude stop",
    );
    expect(settings.hooks.FileChanged[0].hooks[0]).toMatchObject({ asyncRewake: true });
    // idle_prompt says the session is idle, and wakes it when mail waits; the user's hook stays first.
    expect(settings.hooks.Notification).toEqual([
      { matcher: "idle_prompt", hooks: [{ type: "command", command: "beep" }] },
      {
        matcher: "idle_prompt",
        hooks: [
          expect.objectContaining({
            command: expect.stringMatching(/ hook claude notification$/),
            asyncRewake: true,
          }),
        ],
      },
    ]);
    // The lease check runs on the file-changing tools only.
    expect(settings.hooks.PreToolUse).toEqual([
      {
        matcher: "Edit|MultiEdit|Write|NotebookEdit",
        hooks: [
          expect.objectContaining({ command: expect.stringMatching(/ hook claude pre-tool-use$/) }),
        ],
      },
    ]);
    expect(installClaudeHooks(installed.text, SERVER)).toMatchObject({
      text: installed.text,
      changed: false,
    });
  });

  it("uninstalls to the user's own entries, and to the original bytes when nothing else changed", () => {
    const installed = installClaudeHooks(USER_SETTINGS, SERVER);
    const removed = uninstallClaudeHooks(installed.ok ? installed.text : undefined);
    if (!removed.ok) throw new Error(removed.error);
    expect(JSON.parse(removed.text ?? "")).toEqual(JSON.parse(USER_SETTINGS));
    expect(restoreClaude(removed.text, USER_SETTINGS)).toBe(USER_SETTINGS);
    // The user changed something meanwhile: their change stays, only muster's entries go.
    const changed = JSON.stringify({ ...JSON.parse(removed.text ?? ""), model: "sonnet" });
    expect(restoreClaude(changed, USER_SETTINGS)).toBe(changed);
    // A file muster created goes away again.
    const created = installClaudeHooks(undefined, SERVER);
    const emptied = uninstallClaudeHooks(created.ok ? created.text : undefined);
    expect(restoreClaude(emptied.ok ? emptied.text : "x", undefined)).toBeUndefined();
  });

  it("adds mcpServers.muster beside the user's servers and removes only it", () => {
    const original = `{"mcpServers": {"docs": {"command": "docs"}}, "numStartups": 3}`;
    const installed = installClaudeMcp(original, SERVER);
    if (!installed.ok) throw new Error(installed.error);
    expect(JSON.parse(installed.text ?? "").mcpServers).toEqual({
      docs: { command: "docs" },
      muster: { type: "stdio", command: SERVER.command, args: SERVER.args, env: {} },
    });
    const removed = uninstallClaudeMcp(installed.text);
    expect(removed.ok && JSON.parse(removed.text ?? "")).toEqual(JSON.parse(original));
  });

  it.each([
    ["a file that is not JSON", "{ nope", "bad-config"],
    ["a JSON array", "[]", "bad-config"],
    [
      "the user's own mcpServers.muster",
      `{"mcpServers": {"muster": {"command": "mine", "args": []}}}`,
      "own-entry",
    ],
  ])("refuses %s", (_name, original, reason) => {
    const results = [installClaudeMcp(original, SERVER), installClaudeHooks(original, SERVER)];
    expect(results.some((result) => !result.ok && result.reason === reason)).toBe(true);
  });
});
