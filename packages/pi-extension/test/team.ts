// A team for one test: a temporary team folder and work folder, pi sessions started on it (each
// killed when the test ends, so tests run concurrently), and the roster read back from the files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openTestTeam } from "@muster/test-team";
import { Pi, type PiOptions, type PiRecord } from "./pi-rpc.js";

// Made at the first team and made again after removeScratch: test files share this module when
// Vitest runs them in one worker (isolate: false), and each removes its teams when it ends.
let scratch: string | undefined;
let teams = 0;

/** Remove every team folder this file made (call from afterAll). */
export const removeScratch = () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
};

/** The part of a vitest test context the helper needs. */
export type TestEnd = { onTestFinished(fn: () => void): void };

export type TeamStart = Partial<PiOptions> & { label?: string };

export function team(test: TestEnd) {
  teams += 1;
  scratch ??= mkdtempSync(path.join(tmpdir(), "muster-pi-"));
  const dir = path.join(scratch, `team-${teams}`);
  const cwd = path.join(scratch, `work-${teams}`);
  mkdirSync(cwd);
  const started: Pi[] = [];
  test.onTestFinished(() => {
    for (const pi of started) pi.kill();
  });
  return {
    dir,
    cwd,
    scratch,
    start(options: TeamStart = {}) {
      const pi = new Pi({
        cwd,
        ...options,
        args: [
          ...(options.label ? ["--muster-label", options.label] : []),
          ...(options.args ?? []),
        ],
        env: { MUSTER_TEAM_DIR: dir, MUSTER_HEARTBEAT_MS: "300", ...options.env },
      });
      started.push(pi);
      return pi;
    },
    roster: () => openTestTeam(dir),
    async members() {
      const read = await (await this.roster()).read({ all: true });
      if (!read.ok) throw new Error(read.error);
      return read.members;
    },
    /**
     * Change a running session's record as another process would, and wait until one of its own
     * heartbeats has kept the change (a heartbeat that read the record just before would undo it).
     */
    async rewrite(id: string, change: Record<string, unknown>) {
      const file = path.join(dir, "sessions", `${id}.json`);
      const kept = (text: string) =>
        Object.entries(change).every(
          ([key, value]) => JSON.stringify(JSON.parse(text)[key]) === JSON.stringify(value),
        );
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const before = JSON.parse(readFileSync(file, "utf8"));
        writeFileSync(file, `${JSON.stringify({ ...before, ...change })}\n`);
        const written = readFileSync(file, "utf8");
        for (let poll = 0; poll < 40; poll += 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const now = readFileSync(file, "utf8");
          if (now !== written) {
            if (kept(now)) return;
            break;
          }
        }
      }
      throw new Error(`the session ${id} kept undoing the change to its record`);
    },
    /** One session's record, read by path (a folder without read permission still allows it). */
    record(id: string): { label: string; watching: { armed: boolean; wake: boolean } } | undefined {
      try {
        return JSON.parse(readFileSync(path.join(dir, "sessions", `${id}.json`), "utf8"));
      } catch {
        return undefined;
      }
    },
  };
}

/** Wait until the extension has set a footer that says it joined. */
export const joined = (pi: Pi) =>
  pi.waitFor(
    (record) => record.method === "setStatus" && String(record.statusText).startsWith("⚑"),
    "the join to land",
  );

/** Wait until the `nth` call (from 0) of the tool `name` has finished; its end record. */
export const toolEnd = (pi: Pi, name: string, nth = 0) =>
  pi.waitFor(
    (record) =>
      record.type === "tool_execution_end" &&
      record.toolName === name &&
      pi.records
        .filter((seen) => seen.type === "tool_execution_end" && seen.toolName === name)
        .indexOf(record) === nth,
    `${name} #${nth + 1} to finish`,
  );

export const isMail = (record: PiRecord) =>
  record.type === "message_start" &&
  (record.message as { role?: string; customType?: string })?.customType === "muster-mail";

/**
 * Prompt until a record passing `test` has arrived (at most ten turns, a moment apart), and return
 * it. Mail held for the next turn may reach pi's queue after the prompt meant to show it.
 */
export async function promptUntil(pi: Pi, test: (record: PiRecord) => boolean, what: string) {
  const turns = () => pi.records.filter((record) => record.type === "agent_end").length;
  for (let turn = 0; turn < 10 && !pi.records.some(test); turn += 1) {
    if (turn > 0) await new Promise((resolve) => setTimeout(resolve, 300));
    const before = turns();
    await pi.prompt("anything new?");
    await pi.waitFor(() => turns() > before, "the turn to end");
  }
  return pi.waitFor(test, what, 0);
}
