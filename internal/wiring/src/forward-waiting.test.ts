// The mail that waited for a member while it was down goes to the id a resumed Claude Code comes
// back under once that Claude Code watches its new mailbox (its inbox and its doorbell: a delivery
// it does not watch yet would not wake it), not after a fixed grace: Claude Code 2.1.332 watches
// them with inotify up to ~4 s after it joined (measured), later on a loaded machine. Here the
// "engine" is a process that starts watching both folders only after 4.5 s, and one that never does
// (the wait is bounded: the mail is forwarded anyway, to wait for its next prompt). Both sit out
// those waits: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LONG_TESTS } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";
import { forwardWaiting } from "./team-up-check.ts";
import type { TeamEffects } from "./team-up-types.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function setUp() {
  const dir = mkdtempSync(path.join(tmpdir(), "muster-forward-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const inbox = path.join(dir, "new");
  const bell = path.join(dir, "bell");
  mkdirSync(inbox);
  mkdirSync(bell);
  let forwardedAt: number | undefined;
  const roster = {
    receive: async () => ({ ok: true, messages: [{ id: "m1" }] }),
    forwardMail: async () => {
      forwardedAt = Date.now();
      return { ok: true, forwarded: 1 };
    },
    inboxFolder: () => inbox,
    doorbell: () => ({ folder: bell, arm: async () => undefined }),
  };
  const effects = { roster } as unknown as TeamEffects;
  return { inbox, bell, effects, forwardedAt: () => forwardedAt };
}

/** A process that watches `folders` (inotify, as Claude Code's watcher does) after `afterMs`. */
function watcher(folders: string[], afterMs: number): ChildProcess {
  const code = `setTimeout(() => { for (const f of ${JSON.stringify(folders)}) require("node:fs").watch(f); }, ${afterMs}); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  cleanups.push(() => child.kill("SIGKILL"));
  return child;
}

it.skipIf(process.platform !== "linux" || !LONG_TESTS)(
  "forwarded once the engine watches its inbox and doorbell, not before",
  async () => {
    const { inbox, bell, effects, forwardedAt } = setUp();
    const child = watcher([inbox, bell], 4500);
    const started = Date.now();
    await forwardWaiting(effects, { id: "old", label: "clara" }, "new-id", { pid: child.pid! });
    expect(forwardedAt()).toBeDefined();
    expect(forwardedAt()! - started).toBeGreaterThanOrEqual(4500);
    expect(forwardedAt()! - started).toBeLessThan(8000);
  },
  20_000,
);

it.skipIf(process.platform !== "linux" || !LONG_TESTS)(
  "an engine that never watches: forwarded anyway once the wait's bound is over",
  async () => {
    const { inbox, effects, forwardedAt } = setUp();
    const child = watcher([inbox], 0);
    const started = Date.now();
    await forwardWaiting(
      effects,
      { id: "old", label: "clara" },
      "new-id",
      { pid: child.pid! },
      { waitMs: 1500 },
    );
    expect(forwardedAt()! - started).toBeGreaterThanOrEqual(1500);
    expect(forwardedAt()! - started).toBeLessThan(2900);
  },
  20_000,
);
