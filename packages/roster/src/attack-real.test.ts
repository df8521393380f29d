// Adversarial review (issue #11): the member lock on a real filesystem with the synchronous nodeFs.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processStart, processFacts as procFacts } from "@muster/node";
import { afterAll, expect, it } from "vitest";
import { openRoster } from "./index.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-attack-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The nodeFs before ef6362f (fs.promises for writes, renames, links, unlinks, stats): for comparison.
const asyncFs = {
  ...nodeFs,
  writeFile: (p: string, d: string, mode: number) => fsp.writeFile(p, d, { mode, flag: "wx" }),
  rename: (a: string, b: string) => fsp.rename(a, b),
  link: (a: string, b: string) => fsp.link(a, b),
  unlink: (p: string) => fsp.unlink(p),
};

it.each([
  ["sync nodeFs (main)", nodeFs],
  ["async fs (before ef6362f)", asyncFs],
])(
  "%s: a join waits a little while another live process holds the member lock (documented: waitForLock)",
  async (name, fs) => {
    const dir = path.join(scratch, name.replace(/\W/g, "-"));
    // Opened exactly as the composers open it (internal/wiring openTeam): no `sleep` passed.
    const opened = await openRoster({ dir, fs, clock: Date.now, processes: procFacts });
    if (!opened.ok) throw new Error(opened.error);
    const lockFile = path.join(dir, "locks", "member.s1.lock");
    // Another live process (a prune, say) holds s1's member lock for 300 ms, then releases it.
    const holder = spawn("sh", ["-c", `sleep 0.3; rm -f '${lockFile}'`], { stdio: "ignore" });
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    const lock = {
      v: 1,
      holder: "prune",
      at: new Date().toISOString(),
      token: "held-by-prune",
      pid: holder.pid,
      pidStart: processStart(holder.pid!),
      place: procFacts.place?.(),
    };
    writeFileSync(lockFile, `${JSON.stringify(lock)}\n`);
    const started = Date.now();
    const joined = await opened.roster.join({
      id: "s1",
      label: "lead",
      agent: "pi",
      pid: process.pid,
      pidStart: processStart(process.pid),
      watching: { armed: true, wake: false },
      liveness: "process",
    });
    const waitedMs = Date.now() - started;
    const stillHeld = statSync(lockFile, { throwIfNoEntry: false }) !== undefined;
    await exited;
    expect(
      joined,
      JSON.stringify({ waitedMs, lockStillHeldWhenJoinAnswered: stillHeld, joined }),
    ).toMatchObject({ ok: true });
  },
);
