import { describe, expect, it } from "vitest";
import { type ChainProcess, notifyOrigin } from "./index.js";

const HOME = "/home/me/.codex";
const here = "boot a pid:[1]";
const member = { pid: 500, pidStart: "77", place: here, engineHome: HOME };
const row = (pid: number, start: string, argv: string[], home?: string): ChainProcess => ({
  pid,
  start,
  argv,
  home,
});
const notify = row(900, "1", ["node", "muster.js", "hook", "codex", "notify", "{}"]);
const shell = row(800, "1", ["sh", "-c", "…"]);

describe("notifyOrigin: a notify is believed only from under Codex", () => {
  it.each([
    ["under the thread's own Codex", [notify, shell, row(500, "77", ["codex"])], "thread-process"],
    [
      "under the daemon of the member's home",
      [notify, row(600, "5", ["codex", "app-server", "--listen"], HOME)],
      "daemon",
    ],
  ] as const)("%s: believed", (_, chain, via) => {
    expect(notifyOrigin(member, here, chain)).toEqual({ ok: true, via });
  });

  it.each([
    ["a shell of the person's", [notify, shell, row(1, "1", ["init"])]],
    ["the member's pid reused by another process", [notify, row(500, "78", ["codex"])]],
    ["a daemon of another home", [notify, row(600, "5", ["codex", "app-server"], "/other/.codex")]],
    ["a daemon whose home could not be read", [notify, row(600, "5", ["codex", "app-server"])]],
    ["an empty chain (no process table)", []],
  ] as const)("%s: not believed", (_, chain) => {
    expect(notifyOrigin(member, here, chain)).toEqual({ ok: false, reason: "not-under-codex" });
  });

  it("a member on another host is never notified from here", () => {
    const chain = [notify, row(500, "77", ["codex"])];
    expect(notifyOrigin({ ...member, place: "boot b pid:[1]" }, here, chain)).toEqual({
      ok: false,
      reason: "elsewhere",
    });
  });

  it("a record without a start time proves nothing by its pid", () => {
    const chain = [notify, row(500, "77", ["codex"])];
    expect(notifyOrigin({ ...member, pidStart: undefined }, here, chain)).toMatchObject({
      ok: false,
    });
  });
});
