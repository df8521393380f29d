// How long a waiter waits for a lock another process holds, with real processes on a real folder
// (test/lock-worker.ts, against the built package): never refused while the holding is younger
// than the lock's break bound (a live holder slowed by a loaded machine), the lock broken when its
// holder is stuck past that bound or dead, and "busy" only for a holding that cannot be broken.
// The three that wait out the break bound (seconds each) are long waits: `pnpm test:long`
// (MUSTER_LONG_TESTS), which CI runs; `pnpm test` keeps the dead holder's lock broken at once.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, nodeSleep, processFacts } from "@muster/node";
import { LONG_TESTS, lineQueue } from "@muster/test-support";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LOCK_STALE_MS } from "./_lock.js";
import { openRoster } from "./index.js";

const WORKER = path.join(import.meta.dirname, "..", "test", "lock-worker.ts");
const scratch = mkdtempSync(path.join(tmpdir(), "muster-lock-wait-"));
const children = new Set<ChildProcess>();
let teams = 0;

afterEach(() => {
  for (const child of children) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
  children.clear();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function holder(dir: string, mode: "slow" | "stop", holdMs = 0, aheadMs = 0) {
  const args = [WORKER, mode, dir, String(holdMs), String(aheadMs)];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.add(child);
  const queue = lineQueue(child.stdout!);
  expect(await queue.next()).toBe("locked");
  return { child, next: queue.next };
}

async function waiter() {
  teams += 1;
  const dir = path.join(scratch, `team-${teams}`);
  const options = { dir, fs: nodeFs, clock: Date.now, processes: processFacts, sleep: nodeSleep };
  const opened = await openRoster(options);
  if (!opened.ok) throw new Error(opened.error);
  const take = async () => {
    const started = Date.now();
    const lease = { holderId: "me", holder: "me", pattern: "mine", mode: "exclusive" as const };
    const taken = await opened.roster.takeLease(
      { ...lease, reason: "waiting", ttlMs: 60_000 },
      () => true,
      () => ({ ok: true }),
    );
    return { ok: taken.ok, reason: taken.ok ? undefined : taken.reason, ms: Date.now() - started };
  };
  return { dir, take };
}

describe("waiting for a lock another process holds", () => {
  it.skipIf(!LONG_TESTS)(
    "a live holder slowed past 4.1 s but within the break bound: the waiter waits, then takes it",
    async () => {
      const { dir, take } = await waiter();
      const slow = await holder(dir, "slow", LOCK_STALE_MS - 400);
      const taken = await take();
      expect(taken).toMatchObject({ ok: true });
      expect(taken.ms).toBeGreaterThan(4_100);
      // The holder finished its own step first: nothing was broken under it.
      expect(JSON.parse(await slow.next())).toEqual({ ok: true });
    },
    30_000,
  );

  it.skipIf(!LONG_TESTS)(
    "a holder stuck (stopped) past the break bound: the lock is broken and fenced",
    async () => {
      const { dir, take } = await waiter();
      const stuck = await holder(dir, "stop");
      const taken = await take();
      expect(taken).toMatchObject({ ok: true });
      expect(taken.ms).toBeGreaterThan(LOCK_STALE_MS - 1_000);
      stuck.child.kill("SIGCONT");
      // The holder that stalled past the break learns it lost the lock and commits nothing.
      expect(JSON.parse(await stuck.next())).toEqual({ ok: false, reason: "busy" });
    },
    30_000,
  );

  it("a holder killed while holding: the lock is broken at once", async () => {
    const { dir, take } = await waiter();
    const dead = await holder(dir, "stop");
    dead.child.kill("SIGKILL");
    await new Promise((resolve) => dead.child.once("exit", resolve));
    const taken = await take();
    expect(taken).toMatchObject({ ok: true });
    expect(taken.ms).toBeLessThan(LOCK_STALE_MS / 2);
  }, 30_000);

  it.skipIf(!LONG_TESTS)(
    "a live holding that cannot be broken (dated ahead, within the skew bound): busy, in bounded time",
    async () => {
      const { dir, take } = await waiter();
      await holder(dir, "slow", 120_000, 60_000);
      const taken = await take();
      expect(taken).toMatchObject({ ok: false, reason: "busy" });
      expect(taken.ms).toBeGreaterThan(LOCK_STALE_MS);
      expect(taken.ms).toBeLessThan(3 * LOCK_STALE_MS);
    },
    60_000,
  );
});
