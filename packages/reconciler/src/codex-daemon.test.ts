import { describe, expect, it } from "vitest";
import { codexDaemonHome, codexDaemonsBelow } from "./index.js";

const DAEMON =
  "/home/u/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex";
// The tree a spawned Codex 0.171.0 made (measured): the pane's process, Codex, its daemon and the
// daemon's pid updater as Codex's children; another home's daemon elsewhere.
const rows = [
  { pid: 10, ppid: 1, start: "100", argv: ["node", "/x/@openai/codex/bin/codex.js"] },
  { pid: 11, ppid: 10, start: "101", argv: ["/x/vendor/bin/codex"] },
  {
    pid: 12,
    ppid: 11,
    start: "102",
    argv: [DAEMON, "app-server", "--listen", "unix://", "--managed-daemon"],
  },
  { pid: 13, ppid: 11, start: "103", argv: [DAEMON, "app-server", "daemon", "pid-update-loop"] },
  {
    pid: 20,
    ppid: 1,
    start: "200",
    argv: [DAEMON.replace("/home/u", "/home/v"), "app-server", "--managed-daemon"],
  },
];

describe("codexDaemonsBelow", () => {
  it("finds the daemon and its updater a spawned Codex started, with their home and start", () => {
    expect(codexDaemonsBelow(rows, 10)).toEqual([
      { pid: 12, start: "102", codexHome: "/home/u/.codex" },
      { pid: 13, start: "103", codexHome: "/home/u/.codex" },
    ]);
  });

  it("not a daemon it did not start (re-parented to pid 1, or another home's)", () => {
    expect(codexDaemonsBelow(rows, 20)).toEqual([]);
    expect(codexDaemonsBelow(rows.slice(0, 2), 10)).toEqual([]);
  });

  it("a codex at that path that is not the app-server is no daemon", () => {
    expect(codexDaemonHome({ argv: [DAEMON, "exec", "hello"] })).toBeUndefined();
    expect(codexDaemonHome({ argv: ["/x/vendor/bin/codex", "app-server"] })).toBeUndefined();
  });
});
