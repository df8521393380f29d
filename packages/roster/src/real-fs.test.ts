// The folder store on a real filesystem: hostile folders and damaged records. Racing joins,
// reclaims, forwarding and activity across real processes are the conformance suite's
// (internal/roster-conformance), run on every store; the SIGKILL storm is storm.test.ts.
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, nodeSleep, processFacts as procFacts } from "@muster/node";
import { afterAll, describe, expect, it } from "vitest";
import { openRoster } from "./index.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-roster-"));
let teams = 0;
const newTeam = () => {
  teams += 1;
  return path.join(scratch, `team-${teams}`);
};

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function open(dir: string) {
  const opened = await openRoster({
    dir,
    fs: nodeFs,
    clock: Date.now,
    processes: procFacts,
    sleep: nodeSleep,
  });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}

describe("hostile folders", () => {
  it("a world-writable team folder is refused, and nothing is written in it", async () => {
    const dir = newTeam();
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
    expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
    expect(readdirSync(dir)).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)(
    "a team folder that is a symlink to another user's folder is refused",
    async () => {
      const other = path.join(scratch, "other-user");
      mkdirSync(other, { mode: 0o700 });
      chownSync(other, 65534, 65534);
      const dir = newTeam();
      symlinkSync(other, dir);
      const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
      expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
      expect(opened.ok === false && opened.error).toContain("belongs to uid 65534");
      expect(readdirSync(other)).toEqual([]);
    },
  );

  it("a record truncated in the middle is a named warning; the rest of the team reads", async () => {
    const dir = newTeam();
    const roster = await open(dir);
    await roster.join({
      id: "s1",
      label: "alice",
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    await roster.join({
      id: "s2",
      label: "bob",
      agent: "pi",
      pid: process.pid,
      watching: { armed: true, wake: false },
      liveness: "heartbeat",
    });
    const file = path.join(dir, "sessions", "s2.json");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, Math.floor(text.length / 2)), { mode: 0o600 });
    const team = await roster.read();
    expect(team.ok && team.members.map((member) => member.label)).toEqual(["alice"]);
    expect(team.ok && team.warnings[0]).toMatch(/^sessions\/s2\.json does not parse/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
