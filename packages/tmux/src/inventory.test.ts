// The inventory parser against hostile text: tmux escapes free text (so a tab or newline cannot
// move a field), the server's identity comes from its own line, and one unreadable pane is skipped.
import { describe, expect, it } from "vitest";
import { escaped, fakeRunner, line, listing, serverLine } from "../test/lines.ts";
import { decodeFreeText } from "./_format.js";
import { INVENTORY_FORMAT, InventoryLineError, SERVER_FORMAT } from "./_inventory.js";
import { findCodexSeat, findProcessSeat, listPanes, parseInventory, seatByPane } from "./index.js";

describe("the inventory", () => {
  it("is one tmux call: the server's own line, then list-panes -a, on the chosen server", async () => {
    const fake = fakeRunner(() => ({ status: 0, stdout: listing(line(1, 100, "t")) }));
    await listPanes(fake.run, { name: "work" });
    expect(fake.calls).toEqual([
      [
        "-u",
        "-L",
        "work",
        "display-message",
        "-p",
        SERVER_FORMAT,
        ";",
        "list-panes",
        "-a",
        "-F",
        INVENTORY_FORMAT,
      ],
    ]);
  });

  it("parses typed panes; tabs, newlines, backslashes and ` | ` in free text survive", () => {
    const inventory = parseInventory(
      listing(
        line(1, 100, "repo | thread\twith\ttabs\nand a line"),
        line(2, 0, "", { dead: true, sessionName: "a\\tb" }),
      ),
    );
    expect(inventory.server).toEqual({ socket: "/tmp/tmux-0/default", pid: 4242 });
    expect(inventory.warnings).toEqual([]);
    expect(inventory.panes[0]).toEqual({
      id: "%1",
      pid: 100,
      tty: "/dev/pts/1",
      sessionId: "$0",
      sessionName: "main",
      windowId: "@1",
      windowIndex: 1,
      paneIndex: 0,
      dead: false,
      command: "node",
      path: "/repo",
      title: "repo | thread\twith\ttabs\nand a line",
    });
    expect(inventory.panes[1]).toMatchObject({ id: "%2", dead: true, sessionName: "a\\tb" });
  });

  it("a forged command or directory cannot move a field, nor name the server", () => {
    const forged = "x\tfake-session\t/tmp/fake.sock\t/home/victim/repo";
    const inventory = parseInventory(
      listing(
        line(1, 100, "", { command: forged, path: "/tmp/a\nb\tc\\d" }),
        line(2, 200, "", { sessionName: "s\n%9\t1" }),
      ),
    );
    expect(inventory.server).toEqual({ socket: "/tmp/tmux-0/default", pid: 4242 });
    expect(inventory.panes).toMatchObject([
      { id: "%1", command: forged, path: "/tmp/a\nb\tc\\d", sessionName: "main" },
      { id: "%2", sessionName: "s\n%9\t1", path: "/repo" },
    ]);
  });

  it.each([
    ["too few fields", "%1\t100\t$0"],
    ["an unescaped tab", `${line(1, 100, "")}\tmore`],
    ["a stray backslash", line(1, 100, "").replace("/repo", "/re\\po")],
    ["no pane id", line(1, 100, "t").replace("%1", "1")],
    ["a bad pid", line(1, 100, "t").replace("\t100\t", "\tabc\t")],
    ["no session id", line(1, 100, "t").replace("$0", "0")],
  ])("one pane line that does not parse (%s) is skipped with a warning naming it", (_, bad) => {
    const inventory = parseInventory(listing(line(2, 200, "ok"), bad, line(3, 300, "ok")));
    expect(inventory.panes.map((pane) => pane.id)).toEqual(["%2", "%3"]);
    expect(inventory.warnings).toHaveLength(1);
    expect(inventory.warnings?.[0]).toMatch(/cannot read .*; that pane was skipped/);
  });

  it("a server line that does not parse throws: the panes would be on no known server", () => {
    expect(() => parseInventory(`${line(1, 100, "")}\n`)).toThrowError(InventoryLineError);
    expect(() => parseInventory("0\t/tmp/s\n")).toThrowError(InventoryLineError);
    expect(parseInventory(`${serverLine(7, "/tmp/a\tb")}\n`)).toEqual({
      server: { pid: 7, socket: "/tmp/a\tb" },
      panes: [],
      warnings: [],
    });
  });

  it.each([
    ["plain", "plain"],
    ["a\\\\tb", "a\\tb"],
    ["a\\tb\\nc", "a\tb\nc"],
    ["bad\\x", undefined],
    ["raw\ttab", undefined],
    ["trailing\\", undefined],
  ])("decodeFreeText(%j) → %j", (text, decoded) => {
    expect(decodeFreeText(text)).toBe(decoded);
    if (decoded !== undefined) expect(decodeFreeText(escaped(decoded))).toBe(decoded);
  });
});

describe("servers that are not there, or do not answer", () => {
  const missing = (socket: string) => ({
    status: 1,
    stderr: `no server running on ${socket}\n`,
  });

  it.each([
    [
      { name: "nosuchserver" },
      /^the tmux server named "nosuchserver" is not running$/,
      /tmux -L nosuchserver/,
    ],
    [{ socket: "/tmp/s" }, /^the tmux server at \/tmp\/s is not running$/, /tmux -S \/tmp\/s/],
    [undefined, /^tmux's default server is not running$/, /start it with tmux,/],
  ])("listPanes on %j names the server the user named, and the fix", async (target, error, fix) => {
    const result = await listPanes(fakeRunner(() => missing("/tmp/tmux-0/x")).run, target);
    expect(result).toMatchObject({ ok: false, reason: "no-server", error, fix });
  });

  it("a timed-out tmux is no-answer, naming the server and the time, not a signal", async () => {
    const hung = fakeRunner(() => ({ status: null, timedOutAfterMs: 5000 }));
    expect(await listPanes(hung.run, { name: "work" })).toMatchObject({
      ok: false,
      reason: "no-answer",
      error: 'the tmux server named "work" did not answer in 5 s',
    });
    expect(await findProcessSeat(hung.run, [], 1, { target: { name: "work" } })).toMatchObject({
      reason: "no-answer",
    });
    expect(await seatByPane(hung.run, "%1", { name: "work" })).toMatchObject({
      reason: "no-answer",
      error: 'the tmux server named "work" did not answer in 5 s',
      fix: expect.stringContaining("tmux -L work list-sessions"),
    });
    await expect(listPanes(fakeRunner(() => ({ status: null })).run)).rejects.toThrow(
      /killed by a signal/,
    );
  });

  it("seat errors say what happened, the server check's fix beside, never repeated", async () => {
    const runner = fakeRunner(() => missing("/tmp/tmux-0/nosuchserver")).run;
    for (const result of [
      await findCodexSeat(runner, "0123456789abcdef0123456789abcdef0123", { name: "nosuchserver" }),
      await findProcessSeat(runner, [], 1, { target: { name: "nosuchserver" } }),
      await seatByPane(runner, "%99", { name: "nosuchserver" }),
    ]) {
      expect(result).toMatchObject({ ok: false, reason: "no-server" });
      if (result.ok) throw new Error("expected a refusal");
      expect(result.error).toBe('the tmux server named "nosuchserver" is not running');
      expect(result.fix).toBe(
        "start it with tmux -L nosuchserver, or pick another server with -L name or -S socket",
      );
    }
    const gone = fakeRunner(() => ({ status: 1, stderr: "can't find pane: %99" })).run;
    expect(await seatByPane(gone, "%99", { name: "audit-scene" })).toMatchObject({
      reason: "unresolved",
      error: 'pane %99 was not found on the tmux server named "audit-scene"',
      fix: expect.stringContaining("tmux list-panes -a"),
    });
  });
});
