// tmux expands formats (`#(…)` runs a command, `#{…}` and `#D` substitute) in some of the
// arguments it takes. A pane muster opens gets text others chose: the folder it starts in (any
// name a repository or a clone can have), the label and team folder in its environment, and the
// engine's command with its task. On a private server, each of them, hostile, must arrive as
// written and run nothing: split and new window alike.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPane } from "./index.js";

let server: PrivateTmux;
let scratch: string;
let pane: string;
let window: string;

beforeAll(() => {
  server = startPrivateTmux({ command: "sleep 600" });
  [pane = "", window = ""] = server
    .tmux("display-message", "-p", "-t", "main", "#{pane_id} #{window_id}")
    .trim()
    .split(" ");
  scratch = mkdtempSync(path.join(tmpdir(), "muster-formats-"));
});
afterAll(() => {
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

/** Text tmux would act on if it expanded it: each names a file it would create. */
const hostile = (mark: string) =>
  `x#(touch ${path.join(scratch, `PWNED-${mark}`)})#{pane_id}#D##[fg=red]#[bg=blue]#{?1,a,b}#,#}#`;

const cmdline = (pid: number) =>
  readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
const environ = (pid: number) =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );

describe.each([
  ["split-window", false],
  ["new-window", true],
])("%s with hostile text in every argument", (how, inWindow) => {
  it("starts in the folder as named, with the environment and command as given, running nothing", async () => {
    const folder = path.join(scratch, `${how}-${hostile(`${how}-cwd`)}`);
    mkdirSync(folder, { recursive: true });
    const value = hostile(`${how}-env`);
    const argument = hostile(`${how}-arg`);
    const command = [process.execPath, "-e", "setTimeout(() => {}, 60_000)", "--", argument];
    const opened = await openPane(
      server.run,
      { name: server.name },
      {
        beside: pane,
        afterWindow: inWindow ? window : undefined,
        cwd: folder,
        env: { MUSTER_LABEL: value },
        command,
      },
    );
    if (!opened.ok) throw new Error(opened.error);
    const pid = opened.opened.pid;
    // The pane's own process is the command itself, once it has started.
    await eventually(
      () => cmdline(pid),
      (argv) => argv[0] === process.execPath,
      "the command in the pane",
    );
    expect(cmdline(pid)).toEqual(command);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(folder);
    expect(environ(pid).MUSTER_LABEL).toBe(value);
    const planted = ["cwd", "env", "arg"].map((kind) => `PWNED-${how}-${kind}`);
    expect(planted.filter((name) => existsSync(path.join(scratch, name)))).toEqual([]);
    server.tmux("kill-pane", "-t", opened.opened.pane);
  });
});
