import { describe, expect, it } from "vitest";
import { type CallerProcess, callerId, findCaller, memberOfAgent } from "./index.js";

const row = (pid: number, ppid: number, name: string, argv: string[] = [name]): CallerProcess => ({
  pid,
  ppid,
  start: `${pid}00`,
  name,
  argv,
});
const recognise = (process: CallerProcess) =>
  process.name === "codex" ? "codex" : process.argv.includes("claude") ? "claude" : undefined;

describe("findCaller", () => {
  const table = [
    row(1, 0, "init"),
    row(10, 1, "tmux"),
    row(20, 10, "bash"),
    row(30, 20, "codex"),
    row(40, 30, "bash"),
    row(50, 40, "muster"),
    row(60, 20, "bash"),
  ];

  it("walks up from the command's parent to the nearest recognised agent", () => {
    expect(findCaller(table, 40, recognise)).toEqual({
      pid: 30,
      start: "3000",
      agent: "codex",
      engine: "codex",
    });
  });

  it("with no agent above, the parent itself is the caller", () => {
    expect(findCaller(table, 60, recognise)).toEqual({
      pid: 60,
      start: "6000",
      agent: "bash",
      engine: undefined,
    });
  });

  it("a parent that is not in the table is no caller", () => {
    expect(findCaller(table, 999, recognise)).toBeUndefined();
  });

  it("a loop in the parent links ends the walk", () => {
    const loop = [row(70, 80, "bash"), row(80, 70, "sh")];
    expect(findCaller(loop, 70, recognise)).toMatchObject({ pid: 70, engine: undefined });
  });

  it("pid 1 is never the caller's agent, whatever it is called", () => {
    expect(findCaller([row(1, 0, "codex"), row(5, 1, "sh")], 5, recognise)).toMatchObject({
      pid: 5,
      engine: undefined,
    });
  });

  it("the member id names the engine, the pid and the start time", () => {
    expect(callerId({ pid: 30, start: "3000", agent: "codex", engine: "codex" })).toBe(
      "codex-30-3000",
    );
    expect(callerId({ pid: 60, start: "6000", agent: "bash", engine: undefined })).toBe(
      "shell-60-6000",
    );
  });
});

describe("memberOfAgent", () => {
  const seat = (pane: string, server = "/tmp/s") => ({ server, pane });
  const members = [
    { label: "gone-one", state: "gone" as const, pid: 100, seat: seat("%1") },
    { label: "by-seat", state: "live" as const, pid: 200, seat: seat("%2") },
    { label: "by-pid", state: "live" as const, pid: 300, seat: seat("%9") },
    { label: "elsewhere", state: "live" as const, pid: 400, seat: seat("%4", "/tmp/other") },
  ];

  it.each([
    [
      "a live member whose process the agent is",
      { pid: 300, pane: "%2", server: "/tmp/s" },
      "by-pid",
    ],
    [
      "else the live member seated in the agent's pane",
      { pid: 999, pane: "%2", server: "/tmp/s" },
      "by-seat",
    ],
    [
      "a member that is not live names nothing",
      { pid: 100, pane: "%1", server: "/tmp/s" },
      undefined,
    ],
    [
      "the same pane id on another server is another pane",
      { pid: 999, pane: "%4", server: "/tmp/s" },
      undefined,
    ],
  ])("%s", (_rule, agent, label) => {
    expect(memberOfAgent(agent, members)?.label).toBe(label);
  });

  it("an agent whose server is not known is matched by its process only", () => {
    expect(memberOfAgent({ pid: 999, pane: "%2", server: undefined }, members)).toBeUndefined();
    expect(memberOfAgent({ pid: 200, pane: "%7", server: undefined }, members)?.label).toBe(
      "by-seat",
    );
  });

  it("a member without a seat is matched by its process only", () => {
    const unseated = [{ label: "a", state: "live" as const, pid: 5, seat: null }];
    expect(memberOfAgent({ pid: 5, pane: "%1", server: "/tmp/s" }, unseated)?.label).toBe("a");
    expect(memberOfAgent({ pid: 6, pane: "%1", server: "/tmp/s" }, unseated)).toBeUndefined();
  });
});
