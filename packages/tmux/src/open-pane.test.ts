import { describe, expect, it } from "vitest";
import {
  checkOpenPaneSpec,
  OPENED_FORMAT,
  openPaneArgs,
  parseOpenedPane,
  START_IN_FOLDER,
} from "./_open-pane.js";
import { type OpenPaneSpec, openPane } from "./index.js";

const spec = (more: Partial<OpenPaneSpec> = {}): OpenPaneSpec => ({
  beside: "%3",
  cwd: "/repo",
  env: { MUSTER_LABEL: "bob" },
  command: ["pi", "--", "fix the tests"],
  ...more,
});

describe("openPaneArgs", () => {
  it("splits the seat's pane to the right, detached, printing the new pane; the folder is an argument", () => {
    expect(openPaneArgs({ socket: "/tmp/tmux-0/default" }, spec())).toEqual([
      "-u",
      "-S",
      "/tmp/tmux-0/default",
      "split-window",
      "-h",
      "-d",
      "-t",
      "%3",
      "-e",
      "MUSTER_LABEL=bob",
      "-P",
      "-F",
      OPENED_FORMAT,
      "--",
      ...START_IN_FOLDER,
      "/repo",
      "pi",
      "--",
      "fix the tests",
    ]);
  });

  it("--window: a new window right after the seat's window (a window id: tmux takes no pane there)", () => {
    const args = openPaneArgs({ name: "work" }, spec({ afterWindow: "@2" }));
    expect(args.slice(0, 8)).toEqual(["-u", "-L", "work", "new-window", "-a", "-d", "-t", "@2"]);
  });

  it("no argument tmux expands as a format (-c) carries a folder: #(…) in a name runs nothing", () => {
    const folder = "/repo/x#(touch /tmp/PWNED)#{pane_id}";
    const args = openPaneArgs(undefined, spec({ cwd: folder }));
    expect(args.slice(0, args.indexOf("--"))).not.toContain("-c");
    expect(args.slice(args.indexOf("--") + 1)).toEqual([
      ...START_IN_FOLDER,
      folder,
      "pi",
      "--",
      "fix the tests",
    ]);
  });

  it("a task that looks like shell stays one argument: the start script passes it on as it is", () => {
    const task = "x'; rm -rf ~; echo '$(id)";
    const args = openPaneArgs(undefined, spec({ command: ["codex", "--", task] }));
    expect(args.slice(-3)).toEqual(["codex", "--", task]);
  });

  it("a one-word command is still one of several arguments, never tmux's shell command", () => {
    expect(openPaneArgs(undefined, spec({ command: ["aider"] })).slice(-2)).toEqual([
      "/repo",
      "aider",
    ]);
  });
});

describe("checkOpenPaneSpec", () => {
  it.each<[string, Partial<OpenPaneSpec>, string | undefined]>([
    ["a good spec", {}, undefined],
    ["a pane that is not a pane id", { beside: "main:0" }, "is not a pane id"],
    ["a pane id with an option in it", { beside: "-t%3" }, "is not a pane id"],
    ["a window that is not a window id", { afterWindow: "%3" }, "is not a window id"],
    ["a relative directory", { cwd: "repo" }, "absolute path"],
    ["no command", { command: [] }, "no command"],
    ["an environment name that is not one", { env: { "A=B": "x" } }, "not an environment"],
    ["a NUL in an argument", { command: ["pi", "a\0b"] }, "NUL"],
  ])("%s", (_, more, error) => {
    const found = checkOpenPaneSpec(spec(more));
    if (error === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(error);
  });
});

describe("parseOpenedPane", () => {
  it("reads the one line tmux printed", () => {
    expect(parseOpenedPane("%7\t4242\t$1\t@3\t999\n")).toEqual({
      pane: "%7",
      pid: 4242,
      session: "$1",
      window: "@3",
      serverPid: 999,
    });
  });

  it.each([
    ["nothing", ""],
    ["two panes", "%7\t4242\t$1\t@3\t999\n%8\t4243\t$1\t@3\t999\n"],
    ["a field too many", "%7\t4242\t$1\t@3\t999\tx\n"],
    ["a pid that is not a number", "%7\tabc\t$1\t@3\t999\n"],
    ["a zero pid", "%7\t0\t$1\t@3\t999\n"],
    ["no pane id", "main:1.2\t4242\t$1\t@3\t999\n"],
  ])("refuses %s", (_, stdout) => {
    expect(parseOpenedPane(stdout)).toBeUndefined();
  });
});

describe("openPane", () => {
  it("refuses a bad spec without running tmux", async () => {
    const calls: string[][] = [];
    const result = await openPane(
      async (args) => {
        calls.push(args);
        return { status: 0, stdout: "", stderr: "" };
      },
      undefined,
      spec({ beside: "nope" }),
    );
    expect(result).toEqual({
      ok: false,
      reason: "bad-spec",
      error: '"nope" is not a pane id (% and a number)',
      fix: "open it beside a pane id (%N) or after a window id (@N), in an absolute folder, with a command and plain variable names",
    });
    expect(calls).toEqual([]);
  });

  it("carries tmux's refusal in one line", async () => {
    const result = await openPane(
      async () => ({ status: 1, stdout: "", stderr: "can't find pane: %3\nmore\n" }),
      undefined,
      spec(),
    );
    expect(result).toEqual({
      ok: false,
      reason: "refused",
      error: "tmux did not open the pane: can't find pane: %3",
      fix: "check the pane to open beside is still there and its tmux server answers",
    });
  });
});
