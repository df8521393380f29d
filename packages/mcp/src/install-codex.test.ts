import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { installCodex, uninstallCodex } from "./install-codex.js";

const SERVER = { command: "/usr/bin/node", args: ["/opt/muster/dist/muster.js", "mcp"] };
const NOTIFY = ["/usr/bin/node", "/opt/muster/dist/muster.js", "hook", "codex", "notify"];

const CONFIGS: [string, string | undefined][] = [
  ["no file", undefined],
  ["an empty file", ""],
  [
    "comments and user entries, no [tui]",
    `# my Codex settings\nmodel = "gpt-5" # the one I like\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = ["--port", "3"]\n\n[projects."/home/me/repo"]\ntrust_level = "trusted"\n`,
  ],
  ["no final newline", `model = "o3"\n[mcp_servers.docs]\ncommand = "docs"`],
  [
    "[tui] without terminal_title",
    `[tui]\n# quiet, please\nnotifications = false\n\n[history]\npersistence = "none"\n`,
  ],
  [
    "[tui] terminal_title without thread-id",
    `[tui]\nterminal_title = ["project", "spinner"]   # keep the spinner\nanimations = false\n`,
  ],
  ["[tui] terminal_title with thread-id already", `[tui]\nterminal_title = ["thread-id"]\n`],
  [
    "a terminal_title over several lines",
    `[tui]\nterminal_title = [\n  "project", # where\n  "spinner",\n]\n`,
  ],
  [
    "a notify of the user's own, with comments",
    `# notify me\nnotify = ["notify-send", "Codex"] # desktop\nmodel = "o3"\n\n[tui]\nterminal_title = ["project"]\n`,
  ],
  [
    "a notify over several lines",
    `notify = [\n  "/usr/local/bin/ping",\n  "--loud", # yes\n]\n\n# docs\n[mcp_servers.docs]\ncommand = "docs"\n`,
  ],
  ["only comments", `# nothing yet\n# really`],
];

/** The user's notify program in `text`, if any. */
const userNotify = (text: string | undefined) =>
  (parse(text ?? "") as { notify?: string[] }).notify;

describe("muster install codex", () => {
  it.each(CONFIGS)(
    "%s: adds the server and the thread id in the title; uninstall restores it byte for byte",
    (_name, original) => {
      const installed = installCodex(original, SERVER, NOTIFY);
      if (!installed.ok) throw new Error(installed.error);
      const config = parse(installed.text ?? "") as Record<
        string,
        Record<string, Record<string, unknown>>
      >;
      expect(config.mcp_servers?.muster).toEqual({
        command: SERVER.command,
        args: SERVER.args,
        env_vars: ["TMUX", "MUSTER_TEAM_DIR", "MUSTER_HOME", "XDG_STATE_HOME", "MUSTER_LABEL"],
        default_tools_approval_mode: "approve",
      });
      expect(config.tui?.terminal_title).toContain("thread-id");
      // muster's notify runs first, then the user's own program, if there was one.
      const own = userNotify(original);
      expect((config as { notify?: unknown }).notify).toEqual(
        own ? [...NOTIFY, "--", ...own] : NOTIFY,
      );
      // Everything the user wrote is still there, line for line and in order (the values muster
      // changed as comments above its own line).
      const kept = (original ?? "").split("\n").filter((line) => line.trim() !== "");
      const after = (installed.text ?? "").split("\n");
      let from = 0;
      for (const line of kept) {
        const at = after.findIndex(
          (candidate, index) =>
            index >= from && (candidate === line || candidate === `# muster-was: ${line}`),
        );
        expect(at, line).toBeGreaterThanOrEqual(0);
        from = at + 1;
      }

      const again = installCodex(installed.text, SERVER, NOTIFY);
      expect(again).toMatchObject({ ok: true, text: installed.text, changed: false });

      const removed = uninstallCodex(installed.text);
      expect(removed).toMatchObject({ ok: true, text: original });
    },
  );

  it("keeps what the user added after installing, and removes only muster's lines", () => {
    const original = `model = "o3"\n\n[tui]\nterminal_title = ["project"]\n`;
    const installed = installCodex(original, SERVER);
    if (!installed.ok || installed.text === undefined) throw new Error("install failed");
    const edited = `${installed.text}\n[mcp_servers.later]\ncommand = "later"\n`;
    const removed = uninstallCodex(edited);
    expect(removed.ok && removed.text).toBe(
      `${original}\n[mcp_servers.later]\ncommand = "later"\n`,
    );
  });

  it("says which edit it made to the user's own title", () => {
    const installed = installCodex(`[tui]\nterminal_title = ["project"]\n`, SERVER);
    expect(installed.ok && installed.notes).toEqual([expect.stringContaining('"thread-id"')]);
  });

  it("writes the environment it is given", () => {
    const installed = installCodex(undefined, { ...SERVER, env: { MUSTER_WAKE: "1" } });
    const config = parse(installed.ok ? (installed.text ?? "") : "") as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    expect(config.mcp_servers?.muster?.env).toEqual({ MUSTER_WAKE: "1" });
  });

  it.each([
    ["a file that does not parse", "model = \n", "bad-config"],
    ["its own [mcp_servers.muster]", `[mcp_servers.muster]\ncommand = "mine"\n`, "own-entry"],
    ["tui as dotted keys", `tui.terminal_title = ["project"]\n`, "hand-edit"],
    ["a notify that is no list", `notify = "ping"\n`, "hand-edit"],
    ["a notify written as a quoted key", `"notify" = ["ping"]\n`, "hand-edit"],
    ["a terminal_title that is no list", `[tui]\nterminal_title = "project"\n`, "hand-edit"],
  ])("refuses %s and writes nothing", (_name, original, reason) => {
    expect(installCodex(original, SERVER, NOTIFY)).toMatchObject({ ok: false, reason });
  });

  it("says it kept the user's notify, and chains it once however often it is run", () => {
    const original = `notify = ["ping", "--loud"]\n`;
    const installed = installCodex(original, SERVER, NOTIFY);
    expect(installed.ok && installed.notes).toEqual([expect.stringContaining("kept your notify")]);
    const twice = installCodex(installed.ok ? installed.text : "", SERVER, NOTIFY);
    expect(userNotify(twice.ok ? twice.text : "")).toEqual([...NOTIFY, "--", "ping", "--loud"]);
    expect(uninstallCodex(twice.ok ? twice.text : "")).toMatchObject({ text: original });
  });

  it("leaves a file with nothing of muster's as it is", () => {
    const text = "# nothing here\n";
    expect(uninstallCodex(text)).toEqual({ ok: true, text, changed: false, notes: [] });
    expect(uninstallCodex(undefined)).toMatchObject({ ok: true, text: undefined, changed: false });
  });
});
