import { onlyInserted } from "@muster/test-support";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { notifyProgram } from "./_codex-values.js";
import { ENV_VARS, installCodex } from "./_install-codex.js";
import { uninstallCodex } from "./_uninstall-codex.js";

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
        env_vars: [
          "TMUX",
          "MUSTER_TEAM_DIR",
          "MUSTER_HOME",
          "XDG_STATE_HOME",
          "MUSTER_LABEL",
          "MUSTER_MAIL",
          "MUSTER_WAKE",
          "MUSTER_WAKE_PER_MINUTE",
          "MUSTER_NATS",
          "MUSTER_NATS_CREDS",
          "MUSTER_NATS_TEAM",
          "XDG_CONFIG_HOME",
          "MUSTER_END_MS",
          "CODEX_HOME",
        ],
        default_tools_approval_mode: "approve",
      });
      expect(config.tui?.terminal_title).toContain("thread-id");
      // A top-level key in the file, not a -c on Codex's command line (a -c costs the daemon).
      expect(
        (config as { mcp_optional_startup_grace_ms?: unknown }).mcp_optional_startup_grace_ms,
      ).toBe(10000);
      // muster's notify runs first, then the user's own program, if there was one.
      const own = userNotify(original);
      expect((config as { notify?: unknown }).notify).toEqual(
        own ? [...NOTIFY, "--", ...own] : NOTIFY,
      );
      // muster only inserted: every byte the user wrote is still there, in order.
      expect(onlyInserted(original ?? "", installed.text ?? "")).toBe(true);

      const again = installCodex(installed.text, SERVER, NOTIFY);
      expect(again).toMatchObject({ ok: true, text: installed.text, changed: false });

      const removed = uninstallCodex(installed.text, { text: original });
      expect(removed).toMatchObject({ ok: true, text: original });
    },
  );

  it("keeps what the user added after installing, and removes only muster's lines", () => {
    const original = `model = "o3"\n\n[tui]\nterminal_title = ["project"]\n`;
    const installed = installCodex(original, SERVER);
    if (!installed.ok || installed.text === undefined) throw new Error("install failed");
    const edited = `${installed.text}\n[mcp_servers.later]\ncommand = "later"\n`;
    const removed = uninstallCodex(edited, { text: original });
    expect(removed.ok && removed.text).toBe(
      `${original}\n[mcp_servers.later]\ncommand = "later"\n`,
    );
  });

  it("says which edit it made to the user's own title", () => {
    const installed = installCodex(`[tui]\nterminal_title = ["project"]\n`, SERVER);
    expect(installed.ok && installed.changes).toContain(
      '[tui] terminal_title: "thread-id" added after your items, so muster finds each Codex thread\'s pane',
    );
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
    ["a terminal_title that is no list", `[tui]\nterminal_title = "project"\n`, "hand-edit"],
  ])("refuses %s and writes nothing", (_name, original, reason) => {
    expect(installCodex(original, SERVER, NOTIFY)).toMatchObject({ ok: false, reason });
  });

  it("says it chains the user's notify, and chains it once however often it is run", () => {
    const original = `notify = ["ping", "--loud"]\n`;
    const installed = installCodex(original, SERVER, NOTIFY);
    expect(installed.ok && installed.changes).toContain(
      "notify: muster runs after every turn (hook codex notify), to hand the thread mail that waits, then yours (ping) with the same argument",
    );
    const twice = installCodex(installed.ok ? installed.text : "", SERVER, NOTIFY);
    expect(userNotify(twice.ok ? twice.text : "")).toEqual([...NOTIFY, "--", "ping", "--loud"]);
    expect(uninstallCodex(twice.ok ? twice.text : "", { text: original })).toMatchObject({
      text: original,
    });
  });

  it("leaves a file with nothing of muster's as it is", () => {
    const text = "# nothing here\n";
    expect(uninstallCodex(text)).toEqual({
      ok: true,
      text,
      changed: false,
      changes: [],
      notes: [],
    });
    expect(uninstallCodex(undefined)).toMatchObject({ ok: true, text: undefined, changed: false });
  });

  it("finds muster's keys wherever the user moved or reformatted them, and cuts only those", () => {
    const original = `# mine\nnotify = ["ping"]\nmodel = "o3"\n\n[tui]\nterminal_title = ["project"]\n`;
    const installed = installCodex(original, { ...SERVER, env: { MUSTER_WAKE: "1" } }, NOTIFY);
    expect(installed.ok && installed.text).toContain(
      '[mcp_servers.muster]\ncommand = "/usr/bin/node"',
    );
    // The user moved muster's table up, spread its args over lines, Codex split its env into a
    // sub-table, and the user wrote a comment right below it and a server of their own after.
    const moved = `# mine
notify = ["/usr/bin/node", "/opt/muster/dist/muster.js", "hook", "codex", "notify", "--", "ping"]
model = "o3"

[mcp_servers.muster]
command = "/usr/bin/node"
args = [
  "/opt/muster/dist/muster.js",
  "mcp",
]
env_vars = ["TMUX", "MUSTER_TEAM_DIR", "MUSTER_HOME", "XDG_STATE_HOME", "MUSTER_LABEL", "MUSTER_MAIL", "MUSTER_WAKE", "MUSTER_WAKE_PER_MINUTE", "MUSTER_NATS", "MUSTER_NATS_CREDS", "MUSTER_NATS_TEAM", "XDG_CONFIG_HOME", "MUSTER_END_MS", "CODEX_HOME"]
default_tools_approval_mode = "approve"

[mcp_servers.muster.env]
MUSTER_WAKE = "1"
# my own comment
[tui]
terminal_title = ["project", "thread-id"]

[mcp_servers.docs]
command = "docs"
`;
    const removed = uninstallCodex(moved, { text: original });
    expect(removed.ok && removed.text).toBe(
      `# mine\nnotify = ["ping"]\nmodel = "o3"\n# my own comment\n[tui]\nterminal_title = ["project"]\n\n[mcp_servers.docs]\ncommand = "docs"\n`,
    );
  });

  it("re-installed over an older muster's env_vars: only that list is replaced, where it stands", () => {
    const installed = installCodex(`model = "o3"\n`, SERVER, NOTIFY);
    if (!installed.ok || installed.text === undefined) throw new Error("install failed");
    const [head, tail] = installed.text.split(/^env_vars = .*$/m);
    // The user moved muster's table above their own, with a comment in it; an older muster's list.
    const older = `${head}env_vars = ["TMUX", "MUSTER_TEAM_DIR", "MUSTER_LABEL"] # muster's\n# mine\n${tail}\n[mcp_servers.docs]\ncommand = "docs"\n`;
    const again = installCodex(older, SERVER, NOTIFY);
    if (!again.ok) throw new Error(again.error);
    const list = `[${ENV_VARS.map((name) => JSON.stringify(name)).join(", ")}]`;
    expect(again.text).toBe(older.replace('["TMUX", "MUSTER_TEAM_DIR", "MUSTER_LABEL"]', list));
    expect(again.changes).toEqual([
      expect.stringMatching(/^\[mcp_servers\.muster\] env_vars: .*MUSTER_NATS/),
    ]);
    expect(installCodex(again.text, SERVER, NOTIFY)).toMatchObject({ changed: false });
  });

  it("passes on every setting muster's server reads: the mail mode, the wake rate, the team on NATS", () => {
    // XDG_CONFIG_HOME: where `muster nats allow` keeps what the person allowed (found inside Codex).
    for (const name of [
      "XDG_CONFIG_HOME",
      "MUSTER_MAIL",
      "MUSTER_WAKE",
      "MUSTER_WAKE_PER_MINUTE",
      "MUSTER_NATS",
      "MUSTER_NATS_CREDS",
      "MUSTER_NATS_TEAM",
    ])
      expect(ENV_VARS).toContain(name);
  });

  it("re-installed from a moved muster: its own parts replaced, the user's kept", () => {
    const original = `notify = ["ping", "--loud"]\n`;
    const first = installCodex(original, SERVER, NOTIFY);
    const moved = ["/new/node", "/new/muster.js", "hook", "codex", "notify"];
    const again = installCodex(
      first.ok ? first.text : "",
      { command: "/new/node", args: ["/new/muster.js", "mcp"] },
      moved,
    );
    if (!again.ok) throw new Error(again.error);
    expect(userNotify(again.text)).toEqual([...moved, "--", "ping", "--loud"]);
    expect(
      (parse(again.text ?? "") as { mcp_servers: { muster: { command: string } } }).mcp_servers
        .muster.command,
    ).toBe("/new/node");
    expect(uninstallCodex(again.text, { text: original })).toMatchObject({ text: original });
  });

  it("refuses to cut muster out of an inline [mcp_servers], and says so", () => {
    const text = `mcp_servers = { muster = { command = "n", args = ["mcp"] }, docs = { command = "d" } }\n`;
    expect(uninstallCodex(text)).toMatchObject({
      ok: false,
      reason: "hand-edit",
      error: expect.stringMatching(/inline table/),
    });
  });

  it("undoes an older muster's delimited block", () => {
    const legacy = `# Codex\n# muster-was: notify = ["ping"] # me\nnotify = ["/n", "/m.js", "hook", "codex", "notify", "--", "ping"] # muster-added\nmodel = "o3"\n\n# >>> muster: added by \`muster install codex\`; \`muster install codex --uninstall\` removes it\n[mcp_servers.muster]\ncommand = "/n"\nargs = ["/m.js", "mcp"]\n# <<< muster\n`;
    const removed = uninstallCodex(legacy);
    expect(removed.ok && removed.text).toBe(`# Codex\nnotify = ["ping"] # me\nmodel = "o3"\n`);
  });

  it("chains the user's notify behind muster's sh program, and takes only muster's part out", () => {
    const original = `notify = ["ping", "--loud"] # mine\n`;
    const program = notifyProgram(["/usr/bin/node", "/opt/muster/dist/muster.js"]);
    const installed = installCodex(original, SERVER, program);
    if (!installed.ok) throw new Error(installed.error);
    expect(userNotify(installed.text)).toEqual([...program, "--", "ping", "--loud"]);
    expect(installCodex(installed.text, SERVER, program)).toMatchObject({ changed: false });
    expect(uninstallCodex(installed.text, { text: original })).toMatchObject({ text: original });
    // From PATH alone (a project install): no path of this machine in it.
    expect(notifyProgram(["muster"]).join(" ")).not.toContain("/usr/bin/node");
  });

  it("writes the MCP start-up grace as one top-level key, says why, and uninstall takes it out", () => {
    const original = `model = "o3"\n\n[tui]\nterminal_title = ["project"]\n`;
    const installed = installCodex(original, SERVER, NOTIFY);
    if (!installed.ok || installed.text === undefined) throw new Error("install failed");
    // A line of its own among the top-level keys, above the first table.
    const at = installed.text.indexOf("\nmcp_optional_startup_grace_ms = 10000\n");
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(installed.text.indexOf("[tui]"));
    expect(installed.changes).toContainEqual(
      expect.stringMatching(/^mcp_optional_startup_grace_ms = 10000: .*muster's tools/),
    );
    const removed = uninstallCodex(installed.text, { text: original });
    expect(removed).toMatchObject({ ok: true, text: original });
    expect(removed.ok && removed.changes).toContain("mcp_optional_startup_grace_ms");
  });

  it.each([
    ["a value of their own", `mcp_optional_startup_grace_ms = 3000 # mine\nmodel = "o3"\n`],
    ["the same value, their own", `mcp_optional_startup_grace_ms = 10000\n`],
    ["no top-level key yet, a table", `[tui]\nanimations = false\n`],
  ])(
    "keeps the user's own grace or adds muster's (%s); uninstall gives back the file",
    (_name, original) => {
      const installed = installCodex(original, SERVER, NOTIFY);
      if (!installed.ok || installed.text === undefined) throw new Error("install failed");
      const own = (parse(original) as { mcp_optional_startup_grace_ms?: number })
        .mcp_optional_startup_grace_ms;
      const config = parse(installed.text) as { mcp_optional_startup_grace_ms?: number };
      expect(config.mcp_optional_startup_grace_ms).toBe(own ?? 10000);
      if (own !== undefined) {
        expect(installed.changes.join("\n")).not.toContain("mcp_optional_startup_grace_ms");
        if (own !== 10000)
          expect(installed.notes).toContainEqual(expect.stringContaining("yours (3000) kept"));
      }
      expect(onlyInserted(original, installed.text)).toBe(true);
      // Uninstall gives the file back byte for byte, the user's own key in it.
      expect(uninstallCodex(installed.text, { text: original })).toMatchObject({
        ok: true,
        text: original,
      });
    },
  );

  it("leaves a grace it has no record of writing, and says so", () => {
    const installed = installCodex(undefined, SERVER, NOTIFY);
    const removed = uninstallCodex(installed.ok ? installed.text : "");
    if (!removed.ok) throw new Error(removed.error);
    expect(parse(removed.text ?? "")).toMatchObject({ mcp_optional_startup_grace_ms: 10000 });
    expect(removed.notes).toContainEqual(
      expect.stringMatching(/^left mcp_optional_startup_grace_ms/),
    );
  });

  it("leaves a grace the user set after installing", () => {
    const original = `model = "o3"\n`;
    const installed = installCodex(original, SERVER, NOTIFY);
    if (!installed.ok || installed.text === undefined) throw new Error("install failed");
    const edited = installed.text.replace("grace_ms = 10000", "grace_ms = 2500");
    const removed = uninstallCodex(edited, { text: original });
    expect(parse(removed.ok ? (removed.text ?? "") : "")).toMatchObject({
      mcp_optional_startup_grace_ms: 2500,
    });
  });
});
