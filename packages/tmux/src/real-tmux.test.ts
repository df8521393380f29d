// Against a real tmux, on a private server only (see @muster/test-support): several sessions and
// panes, titles set two ways, seats by pane id, by process and by title anchor, a C locale, and a
// server killed mid-test.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readProcessTable } from "@muster/node";
import {
  eventually,
  type PrivateTmux,
  runGuarded,
  startPrivateTmux,
  tmuxEnv,
} from "@muster/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCodexSeat, findProcessSeat, listPanes, seatByPane } from "./index.js";

const THREAD = "01a22ae4-26be-7480-acf3-78282c9e1f0d";
let server: PrivateTmux;
const processes = async () => {
  const table = await readProcessTable();
  if (!table.ok) throw new Error(table.error);
  return table.processes;
};
const target = () => ({ name: server.name });

beforeAll(() => {
  server = startPrivateTmux({ command: "sleep 600" });
  server.tmux("new-session", "-d", "-s", "work", "-x", "200", "-y", "50", "sh -c 'sleep 601; :'");
  server.tmux(
    "split-window",
    "-d",
    "-t",
    "work",
    `printf '\\033]0;repo | ${THREAD.slice(0, 29)}...\\007'; sleep 602`,
  );
  server.tmux("split-window", "-d", "-t", "main", "sleep 603");
  server.tmux("select-pane", "-t", "main.1", "-T", "set by select-pane | café");
});
afterAll(() => server.kill());

describe("a real tmux server", () => {
  it("the inventory lists every pane of every session, with titles set both ways", async () => {
    const listed = await eventually(
      () => listPanes(server.run, target()),
      (result) =>
        result.ok &&
        result.inventory.panes.some((pane) => pane.title.includes(THREAD.slice(0, 29))),
      "the OSC title",
    );
    if (!listed.ok) throw new Error(listed.error);
    const { panes, server: identity } = listed.inventory;
    expect(panes).toHaveLength(4);
    expect(new Set(panes.map((pane) => pane.sessionName))).toEqual(new Set(["main", "work"]));
    expect(identity.socket).toBe(server.socket);
    expect(identity.pid).toBe(Number(server.tmux("display-message", "-p", "#{pid}").trim()));
    expect(panes.map((pane) => pane.title)).toContain("set by select-pane | café");
  });

  it("seat by pane id, verified; a missing pane is unresolved", async () => {
    const paneId = server.tmux("display-message", "-p", "-t", "work.1", "#{pane_id}").trim();
    const result = await seatByPane(server.run, paneId, target());
    expect(result).toMatchObject({
      ok: true,
      seat: { pane: paneId, sessionName: "work", server: server.socket },
    });
    expect(await seatByPane(server.run, "%999", target())).toMatchObject({
      ok: false,
      reason: "unresolved",
    });
  });

  it("seat by the pid of a process started inside a pane", async () => {
    const panePid = Number(
      server.tmux("display-message", "-p", "-t", "work.0", "#{pane_pid}").trim(),
    );
    const sleeper = await eventually(
      async () => (await processes()).find((row) => row.ppid === panePid),
      (row) => row !== undefined,
      "the pane's child process",
    );
    const result = await findProcessSeat(server.run, await processes(), sleeper!.pid, {
      target: target(),
      claimedPane: "%0",
    });
    const expected = server.tmux("display-message", "-p", "-t", "work.0", "#{pane_id}").trim();
    expect(result).toMatchObject({ ok: true, seat: { pane: expected, sessionName: "work" } });
    expect(result.ok && result.note).toMatch(/ancestry wins/);
  });

  it("seat by a Codex thread id shown in the title (OSC 0)", async () => {
    const expected = server.tmux("display-message", "-p", "-t", "work.1", "#{pane_id}").trim();
    expect(await findCodexSeat(server.run, THREAD, target())).toMatchObject({
      ok: true,
      seat: { pane: expected },
    });
  });

  it("under LANG=C and LC_ALL=C, non-ASCII titles survive (-u)", async () => {
    const cLocale = tmuxEnv({ LANG: "C", LC_ALL: "C", LC_CTYPE: undefined });
    const listed = await listPanes((args) => runGuarded(args, cLocale), target());
    expect(listed.ok && listed.inventory.panes.map((pane) => pane.title)).toContain(
      "set by select-pane | café",
    );
  });

  it("a server killed mid-test answers no-server, not an empty inventory", async () => {
    const doomed = startPrivateTmux({ command: "sleep 600" });
    expect(await listPanes(doomed.run, { name: doomed.name })).toMatchObject({ ok: true });
    doomed.kill();
    expect(await listPanes(doomed.run, { name: doomed.name })).toMatchObject({
      ok: false,
      reason: "no-server",
    });
    expect(await findCodexSeat(doomed.run, THREAD, { name: doomed.name })).toMatchObject({
      ok: false,
      reason: "no-server",
    });
  });

  it("tabs and newlines in exec -a names and directory names move no field, on a real server", async () => {
    const hostile = startPrivateTmux({ command: "sleep 600" });
    try {
      const root = mkdtempSync(path.join(tmpdir(), "muster-tmux-"));
      const folder = path.join(root, "a\tb\nc\\d");
      mkdirSync(folder);
      const forged = "x\tfake-session\t/tmp/fake.sock\t/home/victim/repo";
      const shell = (name: string) => `exec bash -c "exec -a $'${name}' sleep 600"`;
      hostile.tmux("new-window", "-d", "-t", "main", shell(forged.replaceAll("\t", "\\t")));
      hostile.tmux("new-window", "-d", "-t", "main", shell("two\\nlines"));
      hostile.tmux("new-window", "-d", "-t", "main", "-c", folder, "sleep 601");
      const listed = await eventually(
        () => listPanes(hostile.run, { name: hostile.name }),
        // Both renamed processes have run their `exec -a` (a window still starting shows bash),
        // and the third window's process is in its folder (until its chdir, a pane's path is the
        // server's: seen once under load).
        (result) =>
          result.ok &&
          [forged, "two\nlines"].every((name) =>
            result.inventory.panes.some((pane) => pane.command === name),
          ) &&
          result.inventory.panes.some((pane) => pane.path === folder),
        "the forged commands and the hostile folder",
      );
      if (!listed.ok) throw new Error(listed.error);
      const { panes, server: identity, warnings } = listed.inventory;
      expect(warnings).toEqual([]);
      expect(identity).toEqual({
        socket: hostile.socket,
        pid: Number(hostile.tmux("display-message", "-p", "#{pid}").trim()),
      });
      expect(panes).toHaveLength(4);
      expect(new Set(panes.map((pane) => pane.sessionName))).toEqual(new Set(["main"]));
      expect(panes.map((pane) => pane.command)).toContain("two\nlines");
      const forgedPane = panes.find((pane) => pane.command === forged);
      expect(forgedPane?.path).not.toBe("/home/victim/repo");
      expect(panes.map((pane) => pane.path)).toContain(folder);
      rmSync(root, { recursive: true, force: true });
    } finally {
      hostile.kill();
    }
  });

  it("a private server killed leaves no socket file behind", () => {
    const server = startPrivateTmux();
    expect(existsSync(server.socket)).toBe(true);
    server.kill();
    expect(existsSync(server.socket)).toBe(false);
  });

  it("the guard refuses any socket that is not a private test server", async () => {
    expect(() => runGuarded(["-u", "list-panes", "-a"])).toThrow(/refusing/);
    expect(() => runGuarded(["-u", "-L", "default", "list-panes", "-a"])).toThrow(/refusing/);
    expect(() => runGuarded(["-u", "-S", "/tmp/tmux-0/default", "list-panes"])).toThrow(/refusing/);
  });
});
