// Reading the leases judges their holders only: the edit guard reads them before every edit
// (Claude Code's PreToolUse), so a team of ten with one lease reads one session record, not ten
// and every label besides. The states stay what reading the whole team said (leases.test.ts).
import { describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { type LeaseHolds, openRoster, type ProcessFact, type RosterFs } from "./index.js";

const DIR = "/teams/holders";
const holds: LeaseHolds = (lease, now) =>
  now < lease.expiresAt && !["dead", "expired", "absent"].includes(lease.holderState);

async function team() {
  const processes = new Map<number, ProcessFact>();
  const memory = memoryFs({ uid: 1, now: () => 0 });
  const touched: string[] = [];
  const fs = { ...memory.fs } as RosterFs;
  for (const name of ["readFile", "readdir", "stat", "lstat"] as const) {
    const call = memory.fs[name] as (path: string, ...rest: unknown[]) => Promise<unknown>;
    (fs as Record<string, unknown>)[name] = (path: string, ...rest: unknown[]) => {
      touched.push(path.slice(DIR.length + 1));
      return call(path, ...rest);
    };
  }
  const opened = await openRoster({
    dir: DIR,
    fs,
    clock: () => 0,
    processes: { alive: (pid: number) => processes.get(pid) ?? "unknown" },
  });
  if (!opened.ok) throw new Error(opened.error);
  return { roster: opened.roster, processes, touched };
}

describe("reading the leases", () => {
  it("reads the holders' session records, not every member's nor the labels", async () => {
    const { roster, processes, touched } = await team();
    for (let index = 0; index < 10; index += 1) {
      processes.set(100 + index, index === 3 ? "dead" : "alive");
      await roster.join({
        id: `s${index}`,
        label: `member-${index}`,
        agent: "pi",
        pid: 100 + index,
        pidStart: "1",
        watching: { armed: true, wake: false },
        liveness: "process",
      });
    }
    for (const [id, pattern] of [
      ["s1", "src"],
      ["s3", "docs"],
    ] as const)
      await roster.takeLease(
        {
          holderId: id,
          holder: `member-${id.slice(1)}`,
          pattern,
          mode: "exclusive",
          ttlMs: 60_000,
        },
        holds,
        () => ({ ok: true }),
      );
    touched.length = 0;
    const read = await roster.leases(holds);
    expect(read).toMatchObject({
      ok: true,
      leases: [{ holderId: "s1", holderState: "live" }],
      lapsed: [{ holderId: "s3", holderState: "dead" }],
    });
    const sessions = touched.filter((path) => path.startsWith("sessions"));
    expect(new Set(sessions.filter((path) => path !== "sessions"))).toEqual(
      new Set(["sessions/s1.json", "sessions/s3.json"]),
    );
    expect(touched.filter((path) => path.startsWith("labels"))).toEqual([]);
  });
});
