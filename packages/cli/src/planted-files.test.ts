// What another process plants among the files muster reads outside the roster (the spawn records
// in `spawned/`): a FIFO would block a plain read for ever, a symlink would read a file muster did
// not write, a folder would throw. Every such reader opens regular files only: each plant is
// named in a warning or a refusal, and `spawn --list`, `stop` and `status` answer.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { lineQueue, tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { joinedTeam, MUSTER, musterKit, NOWHERE } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-planted-");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A team folder whose spawned/ holds a FIFO, a symlink and a folder, each named like a record. */
async function planted() {
  const dir = newTeam();
  const env = { MUSTER_TEAM_DIR: dir };
  await joinedTeam(dir, { alice: "a1" });
  const spawned = path.join(dir, "spawned");
  mkdirSync(spawned, { mode: 0o700 });
  execFileSync("mkfifo", ["-m", "600", path.join(spawned, "zz.json")]);
  const elsewhere = path.join(scratch, "elsewhere.json");
  writeFileSync(elsewhere, "{}");
  symlinkSync(elsewhere, path.join(spawned, "yy.json"));
  mkdirSync(path.join(spawned, "xx.json"));
  return env;
}

// Each would block for ever on a FIFO: killed at 20 s, it answers null, which fails the test.
const patient = { timeoutMs: 20_000 };

describe("files planted in spawned/", () => {
  it("spawn --list names each plant and lists the rest", async () => {
    const env = await planted();
    const result = await muster(["spawn", "--list", "--json"], { env, ...patient });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true, spawned: [] });
    for (const name of ["xx.json", "yy.json", "zz.json"])
      expect(result.stderr).toContain(`${name}: not a spawn record muster wrote`);
  });

  it.each(["zz", "yy", "xx"])(
    "stop %s refuses: muster spawned nothing under that name",
    async (label) => {
      const env = await planted();
      const result = await muster(["stop", label], { env, ...patient });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`muster has no record of spawning "${label}"`);
    },
  );

  it("status --watch draws its frames", async () => {
    const env = await planted();
    const child = spawn(process.execPath, [MUSTER, "status", "--watch", "--json", ...NOWHERE], {
      cwd: scratch,
      env: tmuxEnv({ HOME: scratch, ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const frames = lineQueue(child.stdout);
      // Two frames: the first, then the one a change draws, after passes that read spawned/.
      const first = JSON.parse(await frames.next());
      expect((await muster(["join", "bob", "--id", "b1"], { env, ...patient })).status).toBe(0);
      const second = JSON.parse(await frames.next());
      expect(first.members.map((member: { label: string }) => member.label)).toEqual(["alice"]);
      expect(second.ok).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("status answers", async () => {
    const env = await planted();
    const result = await muster(["status", "--json"], { env, ...patient });
    expect(result.status).toBe(0);
    expect(
      JSON.parse(result.stdout).members.map((member: { label: string }) => member.label),
    ).toEqual(["alice"]);
  });
});
