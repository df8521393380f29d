// A pane muster opens, on a real private tmux server: one that fails keeps its last words (and its
// status) for the person to read; one that ends well closes; and an argument ending in `;` reaches
// the program whole instead of ending tmux's command and running the rest as tmux commands.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeTmuxArgument } from "./_open-pane.js";
import { parsePaneText } from "./_pane-text.js";
import { openPane, readPaneText } from "./index.js";

let server: PrivateTmux;
let seat: string;
const scratch = mkdtempSync(path.join(tmpdir(), "muster-pane-text-"));
const target = () => ({ name: server.name });

beforeAll(() => {
  server = startPrivateTmux({ command: "sleep 600" });
  seat = server.tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
});
afterAll(() => {
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

const open = async (command: string[], keepOnFailure = true) => {
  const opened = await openPane(server.run, target(), {
    beside: seat,
    cwd: scratch,
    command,
    keepOnFailure,
  });
  if (!opened.ok) throw new Error(opened.error);
  return opened.opened.pane;
};
const panes = () => server.tmux("list-panes", "-a", "-F", "#{pane_id}").split("\n");

describe("a pane muster opens", () => {
  it("that fails at start is kept, dead, with its last words and its status", async () => {
    const pane = await open(["sh", "-c", "echo 'Unable to connect to Anthropic services'; exit 3"]);
    const seen = await eventually(
      () => readPaneText(server.run, target(), pane),
      (text) => text?.dead === true,
      "the pane's program to end",
    );
    // tmux 3.3a sometimes gives a kept pane neither pane_dead_status nor its "Pane is dead (status"
    // line (about 1 run in 3 here): the status is then unknown, never a wrong one.
    expect(seen?.dead).toBe(true);
    expect([3, undefined]).toContain(seen?.status);
    expect(seen!.text).toContain("Unable to connect to Anthropic services");
    expect(seen!.text).not.toContain("Pane is dead");
    // Only that pane: the seat's own pane keeps the server's default.
    expect(server.tmux("show-options", "-p", "-t", seat, "remain-on-exit").trim()).toBe("");
    server.tmux("kill-pane", "-t", pane);
  });

  it("that ends well closes as before; one opened without keepOnFailure closes on a failure too", async () => {
    const good = await open(["sh", "-c", "exit 0"]);
    const bad = await open(["sh", "-c", "exit 4"], false);
    await eventually(
      panes,
      (all) => !all.includes(good) && !all.includes(bad),
      "both panes to close",
    );
    expect(await readPaneText(server.run, target(), good)).toBeUndefined();
  });

  it("an argument ending in ; reaches the program whole, and what follows it is no tmux command", async () => {
    const out = path.join(scratch, "args");
    const planted = path.join(scratch, "PLANTED");
    const pane = await open([
      "sh",
      "-c",
      'printf "%s|" "$@" > "$0"; sleep 30',
      out,
      "review the parser;",
      "run-shell",
      `touch ${planted}`,
    ]);
    const written = await eventually(
      () => (existsSync(out) ? readFileSync(out, "utf8") : ""),
      (text) => text !== "",
      "the program's arguments",
    );
    expect(written).toBe(`review the parser;|run-shell|touch ${planted}|`);
    expect(existsSync(planted)).toBe(false);
    server.tmux("kill-pane", "-t", pane);
  });
});

describe("parsePaneText", () => {
  it("reads the state line strictly, and the text after it as it is", () => {
    expect(parsePaneText("1\t3\t\nbye\n")).toEqual({ dead: true, status: 3, text: "bye" });
    // tmux's own line under a kept pane is not the program's.
    expect(
      parsePaneText("1\t3\t\nbye\n\nPane is dead (status 3, Mon Dec 7 01:25:21 2026)\n"),
    ).toEqual({ dead: true, status: 3, text: "bye\n" });
    expect(parsePaneText("1\t\t\nbye\nPane is dead (status 4, Mon Dec 7 01:25:21 2026)\n")).toEqual(
      {
        dead: true,
        status: 4,
        text: "bye",
      },
    );
    expect(parsePaneText("0\t\t\n\t1\t2\n")).toEqual({ dead: false, text: "\t1\t2" });
    expect(parsePaneText("1\t\t15\nbye\n")).toEqual({ dead: true, signal: 15, text: "bye" });
    expect(parsePaneText("x\t3\t\nbye")).toBeUndefined();
    expect(parsePaneText("0\t1\t2\t3\nbye")).toBeUndefined();
  });

  it("escapes only a final ;", () => {
    expect(["a;", "a;b", ";", "a\\;"].map(escapeTmuxArgument)).toEqual([
      "a\\;",
      "a;b",
      "\\;",
      "a\\\\;",
    ]);
  });
});
