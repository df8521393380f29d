// Opening a team that is already there, as every short-lived start does (tmux's status line each
// second, Claude Code's hook before each edit): its folders are looked at, never made again. A
// mkdir that fails with EEXIST costs a thrown error in Node for each of the team's folders.
import { describe, expect, it } from "vitest";
import { memoryFs } from "../test/memory-fs.js";
import { openRoster, type RosterFs } from "./index.js";

const DIR = "/state/muster/teams/repo-abc";

/** The memory fs, with each call it gets counted by operation. */
function counted() {
  const memory = memoryFs({ uid: 1000 });
  const calls: Record<string, number> = {};
  const fs = Object.fromEntries(
    Object.entries(memory.fs).map(([name, call]) => [
      name,
      (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return (call as (...args: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as RosterFs;
  const open = () =>
    openRoster({ dir: DIR, fs, clock: () => 0, processes: { alive: () => "unknown" } });
  return { memory, calls, open };
}

describe("opening a team that is there", () => {
  it("makes none of its folders again", async () => {
    const team = counted();
    expect((await team.open()).ok).toBe(true);
    const made = team.calls.mkdir ?? 0;
    expect(made).toBeGreaterThan(10);
    for (const name of Object.keys(team.calls)) delete team.calls[name];
    expect((await team.open()).ok).toBe(true);
    // The team folder's own mkdir (it may be gone between starts) at most; not one per folder.
    expect(team.calls.mkdir ?? 0).toBeLessThanOrEqual(1);
  });

  it("makes a folder that went missing, and refuses one that is a link", async () => {
    const team = counted();
    expect((await team.open()).ok).toBe(true);
    team.memory.nodes.delete(`${DIR}/mail`);
    expect((await team.open()).ok).toBe(true);
    expect(team.memory.nodes.get(`${DIR}/mail`)?.kind).toBe("dir");
    team.memory.nodes.set(`${DIR}/leases`, { kind: "file", data: "", mode: 0o600, mtimeMs: 0 });
    expect(await team.open()).toMatchObject({ ok: false, reason: "unwritable" });
  });
});
