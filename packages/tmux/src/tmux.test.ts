import { describe, expect, it } from "vitest";
import { escaped, fakeRunner, line, listing } from "../test/lines.ts";
import { titleShowsThread } from "./_codex-seat.js";
import { seatByProcess } from "./_seat.js";
import {
  findCodexSeat,
  findProcessSeat,
  parseInventory,
  parseTmuxEnv,
  type SeatResult,
  seatByCodexThread,
  seatByPane,
  serverArgs,
} from "./index.js";

const THREAD = "01a22ae4-26be-7480-acf3-78282c9e1f0d";
const SHORT = `${THREAD.slice(0, 29)}...`;

const seatPane = (result: SeatResult) => (result.ok ? result.seat.pane : result.reason);

describe("which server", () => {
  it.each([
    [
      { TMUX: "/tmp/tmux-0/default,123,4", TMUX_PANE: "%7" },
      { server: { socket: "/tmp/tmux-0/default", pid: 123 }, sessionIndex: 4, pane: "%7" },
    ],
    [
      { TMUX: "/tmp/odd,dir/sock,99,0" },
      { server: { socket: "/tmp/odd,dir/sock", pid: 99 }, sessionIndex: 0, pane: undefined },
    ],
    [
      { TMUX: "/tmp/s,1,2", TMUX_PANE: "7" },
      { server: { socket: "/tmp/s", pid: 1 }, sessionIndex: 2, pane: undefined },
    ],
    [{ TMUX: "" }, undefined],
    [{}, undefined],
    [{ TMUX: "garbage" }, undefined],
    [{ TMUX: "relative,1,2" }, undefined],
    [{ TMUX: "/tmp/s,x,2" }, undefined],
  ])("parseTmuxEnv(%j)", (env, expected) => {
    expect(parseTmuxEnv(env)).toEqual(expected);
  });

  it.each([
    [undefined, ["-u"]],
    [{ socket: "/tmp/s" }, ["-u", "-S", "/tmp/s"]],
    [{ name: "work" }, ["-u", "-L", "work"]],
  ] as const)("serverArgs(%j) always starts with -u", (target, args) => {
    expect(serverArgs(target)).toEqual(args);
  });
});

describe("seat by pane id", () => {
  const echo = (pane: string) => ({
    status: 0,
    stdout: `${pane}\t$3\t@4\t2\t1\t4242\tmain\t${escaped("/tmp/tmux-0/default")}\n`,
  });

  it("answers the session and window, verified by the echoed pane id", async () => {
    const fake = fakeRunner(() => echo("%5"));
    expect(await seatByPane(fake.run, "%5")).toEqual({
      ok: true,
      seat: {
        server: "/tmp/tmux-0/default",
        serverPid: 4242,
        session: "$3",
        sessionName: "main",
        window: "@4",
        windowIndex: 2,
        pane: "%5",
        paneIndex: 1,
      },
    });
    expect(fake.calls[0]?.slice(0, 5)).toEqual(["-u", "display-message", "-p", "-t", "%5"]);
  });

  it.each([
    ["an empty answer (tmux 3.3 for a missing pane)", { status: 0, stdout: "\n" }],
    ["another pane echoed", echo("%6")],
    ["a failing status", { status: 1, stderr: "can't find pane" }],
  ])("%s is unresolved", async (_, answer) => {
    expect(await seatByPane(fakeRunner(() => answer).run, "%5")).toMatchObject({
      ok: false,
      reason: "unresolved",
    });
  });

  it("refuses a malformed pane id before any tmux call", async () => {
    const fake = fakeRunner(() => echo("%5"));
    expect(await seatByPane(fake.run, "5; kill-server")).toMatchObject({
      ok: false,
      reason: "bad-pane",
    });
    expect(fake.calls).toEqual([]);
  });

  it("throws on a signal-killed tmux", async () => {
    await expect(seatByPane(fakeRunner(() => ({ status: null })).run, "%5")).rejects.toThrow();
  });
});

describe("seat by process", () => {
  const inventory = parseInventory(
    listing(line(1, 100, ""), line(2, 200, ""), line(3, 300, "", { dead: true })),
  );
  const table = [
    { pid: 100, ppid: 1 },
    { pid: 101, ppid: 100 },
    { pid: 102, ppid: 101 },
    { pid: 200, ppid: 1 },
    { pid: 900, ppid: 1 },
    { pid: 901, ppid: 900 },
  ];

  it.each([
    ["the pane pid itself", 100, "%1"],
    ["a grandchild", 102, "%1"],
    ["a process outside every pane", 901, "unresolved"],
    ["an unknown pid", 5555, "unresolved"],
  ])("%s", (_, pid, expected) => {
    expect(seatPane(seatByProcess(inventory, table, pid))).toBe(expected);
  });

  it("a $TMUX_PANE that disagrees with the ancestry is not trusted", () => {
    const result = seatByProcess(inventory, table, 102, "%2");
    expect(result).toMatchObject({
      ok: true,
      seat: { pane: "%1" },
      note: expect.stringContaining("ancestry wins"),
    });
  });

  it("a dead pane owns no process, and a cycle in the table ends the walk", () => {
    const looped = [
      { pid: 300, ppid: 301 },
      { pid: 301, ppid: 300 },
    ];
    expect(seatPane(seatByProcess(inventory, looped, 301))).toBe("unresolved");
  });

  it("findProcessSeat lists once and reports no server", async () => {
    const fake = fakeRunner(() => ({ status: 0, stdout: listing(line(1, 100, "")) }));
    expect(seatPane(await findProcessSeat(fake.run, table, 102))).toBe("%1");
    expect(fake.calls).toHaveLength(1);
    expect(await findProcessSeat(fakeRunner(() => ({ status: 1 })).run, table, 102)).toMatchObject({
      reason: "no-server",
    });
  });
});

describe("seat of a Codex caller by thread id", () => {
  it.each([
    [`repo | ${SHORT}`, true],
    [`repo | ${THREAD}`, true],
    [`⠋ ${SHORT}`, true],
    [`repo | ⠙ ${SHORT} | extra`, true],
    [`repo | ${THREAD.slice(0, 28)}...`, false],
    [`repo|${SHORT}`, false],
    ["repo", false],
    [`repo | x${SHORT}`, false],
  ])("title %j shows the thread: %s", (title, shows) => {
    expect(titleShowsThread(title, THREAD)).toBe(shows);
  });

  it.each([
    { case: "one pane", titles: [`repo | ${SHORT}`, "other"], result: "%1" },
    {
      case: "one pane showing both forms is one match",
      titles: [`${SHORT} | ${THREAD}`, "x"],
      result: "%1",
    },
    { case: "no pane", titles: ["repo", "other"], result: "unresolved" },
    {
      case: "the same thread in two panes",
      titles: [`repo | ${SHORT}`, `⠋ ${THREAD}`],
      result: "ambiguous",
    },
    {
      case: "a tab in the title does not hide it",
      titles: [`repo\tmore | ${SHORT}`, "x"],
      result: "%1",
    },
  ])("$case → $result", ({ titles, result }) => {
    const inventory = parseInventory(
      listing(...titles.map((title, index) => line(index + 1, 100 + index, title))),
    );
    expect(seatPane(seatByCodexThread(inventory, THREAD))).toBe(result);
  });

  it("ambiguous names the candidate panes; unresolved carries the Codex fix", () => {
    const inventory = parseInventory(listing(line(1, 100, SHORT), line(2, 200, THREAD)));
    expect(seatByCodexThread(inventory, THREAD)).toMatchObject({
      reason: "ambiguous",
      candidates: ["%1", "%2"],
    });
    expect(seatByCodexThread(inventory, "nope")).toMatchObject({
      error: "no pane shows Codex thread nope",
      fix: expect.stringContaining("allow-set-title off"),
    });
  });

  it("an empty thread id is refused before any tmux call", async () => {
    const fake = fakeRunner(() => ({ status: 0, stdout: "" }));
    expect(await findCodexSeat(fake.run, "  ")).toMatchObject({ ok: false, reason: "bad-thread" });
    expect(fake.calls).toEqual([]);
  });

  it.each([
    ["30 characters, shown whole by Codex", "0123456789abcdefghij0123456789", false],
    ["32 characters, shown whole by Codex", "0123456789abcdefghij0123456789ab", false],
    ["33 characters, cut by Codex", "0123456789abcdefghij0123456789abc", true],
  ])("an id of %s: its 29-character form %s", (_, id, matches) => {
    expect(titleShowsThread(`repo | ${id.slice(0, 29)}...`, id)).toBe(matches);
    expect(titleShowsThread(`repo | ${id}`, id)).toBe(true);
  });

  it("a title alone does not answer: a pane that runs no Codex is refused as not-codex", () => {
    const inventory = parseInventory(listing(line(1, 100, `repo | ${SHORT}`), line(2, 200, "x")));
    const none = seatByCodexThread(inventory, THREAD, () => false);
    expect(none).toMatchObject({ ok: false, reason: "not-codex", candidates: ["%1"] });
    expect(none.ok ? "" : none.error).toMatch(
      /^%1 shows Codex thread .* in the title, but no Codex process runs there$/,
    );
    expect(none.ok ? "" : none.fix).toMatch(/^a pane title is only a hint/);
    expect(seatPane(seatByCodexThread(inventory, THREAD, (pane) => pane.pid === 100))).toBe("%1");
    // A forged title beside the real Codex pane is not a second match.
    const forged = parseInventory(listing(line(1, 100, SHORT), line(2, 200, THREAD)));
    expect(seatPane(seatByCodexThread(forged, THREAD, (pane) => pane.pid === 200))).toBe("%2");
  });

  it("a dead pane with a stale title does not count", () => {
    const inventory = parseInventory(
      listing(line(1, 100, SHORT, { dead: true }), line(2, 200, SHORT)),
    );
    expect(seatPane(seatByCodexThread(inventory, THREAD))).toBe("%2");
  });
});
