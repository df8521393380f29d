import { describe, expect, it } from "vitest";
import {
  findCodexSeat,
  findProcessSeat,
  INVENTORY_FORMAT,
  InventoryLineError,
  listPanes,
  parseInventory,
  parseTmuxEnv,
  type SeatResult,
  seatByCodexThread,
  seatByPane,
  seatByProcess,
  serverArgs,
  type TmuxRunner,
  titleShowsThread,
} from "./index.js";

const THREAD = "01a22ae4-26be-7480-acf3-78282c9e1f0d";
const SHORT = `${THREAD.slice(0, 29)}...`;

/** One inventory line as tmux prints it in INVENTORY_FORMAT. */
function line(
  id: number,
  pid: number,
  title: string,
  overrides: { dead?: boolean; session?: number; sessionName?: string; path?: string } = {},
) {
  return [
    `%${id}`,
    overrides.dead ? "" : String(pid),
    `/dev/pts/${id}`,
    `$${overrides.session ?? 0}`,
    `@${id}`,
    String(id),
    "0",
    overrides.dead ? "1" : "0",
    "4242",
    "node",
    overrides.sessionName ?? "main",
    "/tmp/tmux-0/default",
    overrides.path ?? "/repo",
    title,
  ].join("\t");
}

/** A runner that answers from a table of (args → result) and records every call. */
function fakeRunner(
  answer: (args: string[]) => { status: number | null; stdout?: string; stderr?: string },
) {
  const calls: string[][] = [];
  const run: TmuxRunner = async (args) => {
    calls.push(args);
    const result = answer(args);
    return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
  };
  return { run, calls };
}

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

describe("the inventory", () => {
  it("is one list-panes -a with the format, on the chosen server", async () => {
    const fake = fakeRunner(() => ({ status: 0, stdout: `${line(1, 100, "t")}\n` }));
    await listPanes(fake.run, { name: "work" });
    expect(fake.calls).toEqual([["-u", "-L", "work", "list-panes", "-a", "-F", INVENTORY_FORMAT]]);
  });

  it("parses typed panes, with tabs and ` | ` in the title surviving", () => {
    const inventory = parseInventory(
      [
        line(1, 100, "repo | thread\twith\ttabs"),
        line(2, 0, "", { dead: true, sessionName: "a\\tb" }),
      ].join("\n"),
    );
    expect(inventory.server).toEqual({ socket: "/tmp/tmux-0/default", pid: 4242 });
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
      title: "repo | thread\twith\ttabs",
    });
    expect(inventory.panes[1]).toMatchObject({ id: "%2", dead: true, sessionName: "a\\tb" });
  });

  it.each([
    ["too few fields", "%1\t100\t/dev/pts/1"],
    ["no pane id", line(1, 100, "t").replace("%1", "1")],
    ["a bad pid", line(1, 100, "t").replace("\t100\t", "\tabc\t")],
    ["no session id", line(1, 100, "t").replace("$0", "0")],
  ])("a line that does not parse throws, naming it (%s)", (_, bad) => {
    expect(() => parseInventory(`${line(2, 200, "ok")}\n${bad}\n`)).toThrowError(
      InventoryLineError,
    );
    expect(() => parseInventory(bad)).toThrowError(JSON.stringify(bad).slice(0, 20));
  });

  it("a failing list-panes -a is no-server (by status alone); a signal-killed tmux throws", async () => {
    expect(
      await listPanes(fakeRunner(() => ({ status: 1, stderr: "anything at all" })).run),
    ).toMatchObject({
      ok: false,
      reason: "no-server",
    });
    await expect(listPanes(fakeRunner(() => ({ status: null })).run)).rejects.toThrow(
      /killed by a signal/,
    );
  });
});

describe("seat by pane id", () => {
  const echo = (pane: string) => ({
    status: 0,
    stdout: `${pane}\t$3\t@4\t2\t1\t4242\tmain\t/tmp/tmux-0/default\n`,
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
    [line(1, 100, ""), line(2, 200, ""), line(3, 300, "", { dead: true })].join("\n"),
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
    const fake = fakeRunner(() => ({ status: 0, stdout: line(1, 100, "") }));
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
      titles.map((title, index) => line(index + 1, 100 + index, title)).join("\n"),
    );
    expect(seatPane(seatByCodexThread(inventory, THREAD))).toBe(result);
  });

  it("ambiguous names the candidate panes; unresolved carries the Codex repair", () => {
    const inventory = parseInventory([line(1, 100, SHORT), line(2, 200, THREAD)].join("\n"));
    expect(seatByCodexThread(inventory, THREAD)).toMatchObject({
      reason: "ambiguous",
      candidates: ["%1", "%2"],
    });
    expect(seatByCodexThread(inventory, "nope")).toMatchObject({
      error: expect.stringContaining("allow-set-title off"),
    });
  });

  it("an empty thread id is refused before any tmux call", async () => {
    const fake = fakeRunner(() => ({ status: 0, stdout: "" }));
    expect(await findCodexSeat(fake.run, "  ")).toMatchObject({ ok: false, reason: "bad-thread" });
    expect(fake.calls).toEqual([]);
  });

  it("a dead pane with a stale title does not count", () => {
    const inventory = parseInventory(
      [line(1, 100, SHORT, { dead: true }), line(2, 200, SHORT)].join("\n"),
    );
    expect(seatPane(seatByCodexThread(inventory, THREAD))).toBe("%2");
  });
});
