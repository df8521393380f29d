// Every reason a seat search or a stop decision can give comes with its fix, defined beside the
// check; the error says only what happened, and names no command line of the CLI.
import { describe, expect, it } from "vitest";
import { fakeRunner, line, listing } from "../test/lines.ts";
import { SEAT_FIXES, type SeatReason, seatByProcess } from "./_seat.js";
import { STOP_FIXES, type StopReason } from "./_spawned.js";
import {
  decideStop,
  findCodexSeat,
  findProcessSeat,
  type Pane,
  parseInventory,
  type SeatResult,
  type SpawnRecord,
  type StopDecision,
  seatByCodexThread,
  seatByPane,
} from "./index.js";

/** A command line of the CLI, or one of its flags: a leaf's error names neither. */
const CLI_COMMAND =
  /\bmuster (join|leave|send|inbox|roster|status|agents|seat|spawn|stop|board|lease|release|doctor|prune|install|guard|heartbeat|history|mcp|hook)\b|(^|\s)--[a-z]/;

const THREAD = "01a22ae4-26be-7480-acf3-78282c9e1f0d";
const gone = fakeRunner(() => ({ status: 1, stderr: "no server running on /tmp/tmux-0/x\n" }));
const hung = fakeRunner(() => ({ status: null, timedOutAfterMs: 3000 }));
const twoTitled = parseInventory(listing(line(1, 100, THREAD), line(2, 200, THREAD)));

const seatCases: [string, SeatReason, () => Promise<SeatResult> | SeatResult][] = [
  ["a pane id that is not one", "bad-pane", () => seatByPane(gone.run, "5; kill-server")],
  [
    "a pane tmux does not know",
    "unresolved",
    () => seatByPane(fakeRunner(() => ({ status: 1, stderr: "can't find pane" })).run, "%5"),
  ],
  ["no server", "no-server", () => seatByPane(gone.run, "%5")],
  ["a server that does not answer", "no-answer", () => findProcessSeat(hung.run, [], 1)],
  ["a process in no pane", "unresolved", () => seatByProcess(twoTitled, [], 999)],
  ["an empty thread id", "bad-thread", () => findCodexSeat(gone.run, " ")],
  ["a thread no pane shows", "unresolved", () => seatByCodexThread(twoTitled, "nope")],
  ["a thread two panes show", "ambiguous", () => seatByCodexThread(twoTitled, THREAD)],
  ["a title without Codex", "not-codex", () => seatByCodexThread(twoTitled, THREAD, () => false)],
];

describe("seat: every reason has its fix, apart from the error", () => {
  it("the cases cover every reason", () => {
    const all: Record<SeatReason, true> = {
      unresolved: true,
      ambiguous: true,
      "no-server": true,
      "no-answer": true,
      "bad-pane": true,
      "bad-thread": true,
      "not-codex": true,
    };
    expect(new Set(seatCases.map(([, reason]) => reason))).toEqual(new Set(Object.keys(all)));
  });

  it.each(seatCases)("%s: %s", async (_, reason, search) => {
    const result = await search();
    if (result.ok) throw new Error("expected a refusal");
    expect(result.reason).toBe(reason);
    expect(result.fix.length).toBeGreaterThan(10);
    expect(result.error).not.toContain(result.fix);
    expect(result.error).not.toMatch(CLI_COMMAND);
  });

  it("no fix in the tables names a command line or a flag of the CLI", () => {
    const fixes = [
      ...Object.values(SEAT_FIXES).flatMap((table) => Object.values(table)),
      ...Object.values(STOP_FIXES),
    ];
    expect(fixes.filter((fix) => CLI_COMMAND.test(fix))).toEqual([]);
  });

  it("the fixes table names only reasons a search gives", () => {
    for (const fixes of Object.values(SEAT_FIXES))
      for (const fix of Object.values(fixes)) expect(fix.length).toBeGreaterThan(10);
  });
});

const record: SpawnRecord = {
  v: 1,
  label: "bob",
  engine: "pi",
  server: "/tmp/tmux-0/default",
  serverPid: 100,
  pane: "%7",
  pid: 4242,
  start: "555",
  cwd: "/repo",
  by: { pane: "%3", label: "alice" },
  at: "2026-11-30T16:00:00.000Z",
};
const pane: Pane = {
  id: "%7",
  pid: 4242,
  tty: "/dev/pts/3",
  sessionId: "$0",
  sessionName: "main",
  windowId: "@1",
  windowIndex: 0,
  paneIndex: 1,
  dead: false,
  command: "node",
  path: "/repo",
  title: "",
};
const server = { socket: record.server, pid: 100 };

const stopCases: [StopReason, StopDecision][] = [
  ["no-server", decideStop(record, { answered: false })],
  [
    "server-restarted",
    decideStop(record, { answered: true, server: { ...server, pid: 7 }, pane, start: "555" }),
  ],
  ["gone", decideStop(record, { answered: true, server, pane: undefined, start: undefined })],
  ["not-ours", decideStop(record, { answered: true, server, pane, start: "999" })],
];

describe("stop: every reason has its fix, apart from the error", () => {
  it("the cases cover every reason", () => {
    expect(stopCases.map(([reason]) => reason).sort()).toEqual(Object.keys(STOP_FIXES).sort());
  });

  it.each(stopCases)("%s", (reason, decision) => {
    if (decision.ok) throw new Error("expected a refusal");
    expect(decision.reason).toBe(reason);
    expect(decision.fix).toBe(STOP_FIXES[reason]);
    // A pane already closed leaves nothing to do; every other reason says what to do.
    if (reason !== "gone") expect(decision.fix.length).toBeGreaterThan(10);
    expect(decision.error).not.toMatch(CLI_COMMAND);
    if (decision.fix) expect(decision.error).not.toContain(decision.fix);
  });
});
