// startedLabelOf against process tables shaped as real Codex 0.171.0 shows them (ps --forest): the
// first TUI's native binary is the app-server daemon's parent, and every thread's muster mcp and
// tool commands run under the daemon. Rows go through the engines' real matching.
import { MAX_STARTED_PIDS } from "@muster/core/internal";
import type { ProcessRow } from "@muster/node";
import { describe, expect, it } from "vitest";
import { startedLabelOf } from "./started-label.ts";

const row = (pid: number, ppid: number, argv: string[]): ProcessRow => ({
  pid,
  ppid,
  start: `${pid}00`,
  name: path(argv[0] ?? ""),
  argv,
});
const path = (file: string) => file.slice(file.lastIndexOf("/") + 1);
const read = (label: string | undefined, pid: number) => ({
  ok: true as const,
  environ: `HOME=/h\0${label ? `MUSTER_LABEL=${label}\0` : ""}`,
  start: `${pid}00`,
});
const DAEMON = "/h/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex";
const tree = (extra: ProcessRow[]) => [
  row(19851, 1, ["bash", "--norc"]),
  row(19872, 19851, ["/x/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"]),
  row(19950, 19872, [DAEMON, "app-server", "--listen", "unix://", "--managed-daemon"]),
  row(20031, 19872, [DAEMON, "app-server", "daemon", "pid-update-loop"]),
  row(20092, 19950, ["node", "/x/muster.js", "mcp"]),
  ...extra,
];
const FIRST = { engine: "codex", pid: 19872, start: "1987200" };

describe("startedLabelOf with Codex's daemon under the first TUI", () => {
  it("keeps the first window's label while any thread's tool runs a Codex under the daemon", async () => {
    const table = tree([
      row(30000, 19950, ["bash", "-lc", "codex exec hi"]),
      row(30001, 30000, ["/x/vendor/bin/codex", "exec", "hi"]),
      row(30002, 19950, ["codex", "40"]),
    ]);
    const asked: number[] = [];
    const started = await startedLabelOf(FIRST, {
      processes: async () => table,
      environ: (pid) => {
        asked.push(pid);
        return read(pid === FIRST.pid ? "alice" : "mallory", pid);
      },
    });
    expect(started).toEqual({ ok: true, label: "alice" });
    expect(asked).toEqual([FIRST.pid]);
  });

  it("decides nothing from processes under a caller whose own row is no longer Codex's", async () => {
    const table = [
      row(10, 1, ["bash"]),
      row(11, 10, ["node", "/x/renamed.js"]),
      row(12, 11, ["codex"]),
    ];
    const started = await startedLabelOf(
      { engine: "codex", pid: 11, start: "1100" },
      { processes: async () => table, environ: (pid) => read("mallory", pid) },
    );
    expect(started).toEqual({ ok: false, reason: "no-process" });
  });

  it("reads no more than one environment past the cap before it refuses", async () => {
    const many = Array.from({ length: 40 }, (_, index) => row(40000 + index, 19872, ["codex"]));
    let reads = 0;
    const started = await startedLabelOf(FIRST, {
      processes: async () => tree(many),
      environ: (pid) => {
        reads += 1;
        return read("alice", pid);
      },
    });
    expect(started).toEqual({ ok: false, reason: "too-many" });
    expect(reads).toBeLessThanOrEqual(MAX_STARTED_PIDS + 1);
  });

  it("does not wait on a process table that never comes: a refusal within the bound", async () => {
    const begun = Date.now();
    const started = await startedLabelOf(FIRST, {
      processes: () => new Promise<never>(() => undefined),
      environ: (pid) => read("alice", pid),
      boundMs: 100,
    });
    expect(started).toEqual({ ok: false, reason: "no-process" });
    expect(Date.now() - begun).toBeLessThan(2_000);
  });
});
