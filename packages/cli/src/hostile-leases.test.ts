// A lease file is written by whoever holds the team folder: its pattern, reason and label are
// hostile text. Every human view of a lease shows them inert (`lease --list`, `status`, the commit
// guard's refusal); `--json` keeps them exact.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectClean, HOSTILE, musterKit } from "../test/run.ts";

const { scratch, newTeam, muster } = musterKit("muster-hostile-leases-");
const env = {
  MUSTER_TEAM_DIR: newTeam(),
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};
const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: scratch, env: { ...process.env, ...env } });

/** Rewrite one lease file's data as an attacker would, keeping it a valid lease otherwise. */
function plant(pattern: string, change: (data: Record<string, unknown>) => void) {
  const folder = path.join(env.MUSTER_TEAM_DIR, "leases");
  for (const name of readdirSync(folder)) {
    const file = path.join(folder, name);
    const claim = JSON.parse(readFileSync(file, "utf8"));
    if (claim.data?.pattern !== pattern) continue;
    change(claim.data);
    writeFileSync(file, JSON.stringify(claim));
    return;
  }
  throw new Error(`no lease on ${pattern}`);
}

beforeAll(async () => {
  git("init", "-q");
  mkdirSync(path.join(scratch, "src"));
  writeFileSync(path.join(scratch, "src", "a.ts"), "a\n");
  expect((await muster(["join", "alice", "--id", "a1"], { env })).status).toBe(0);
  const leased = await muster(["lease", "src/a.ts", "docs/**", "--reason", "x", "--id", "a1"], {
    env,
  });
  expect(leased.status).toBe(0);
  plant("src/a.ts", (data) => {
    data.reason = `refactor${HOSTILE}`;
    data.holder = `alice${HOSTILE}`;
  });
  plant("docs/**", (data) => {
    data.pattern = `docs/**${HOSTILE}`;
  });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("hostile text in a lease file", () => {
  it("lease --list shows it inert, and --json keeps it exact", async () => {
    const human = await muster(["lease", "--list"], { env });
    expect(human.status).toBe(0);
    expectClean(human);
    expect(human.stdout).toContain("\\x1b");
    const json = await muster(["lease", "--list", "--json"], { env });
    const leases = JSON.parse(json.stdout).leases as { pattern: string; reason?: string }[];
    expect(leases.map((lease) => lease.pattern).sort()).toEqual([`docs/**${HOSTILE}`, "src/a.ts"]);
    expect(leases.find((lease) => lease.pattern === "src/a.ts")?.reason).toBe(`refactor${HOSTILE}`);
  });

  it("status shows it inert", async () => {
    const status = await muster(["status"], { env });
    expectClean(status);
    expect(`${status.stdout}${status.stderr}`).toContain("src/a.ts");
  });

  it("the commit guard's refusal names the holder and reason inert", async () => {
    git("add", "src/a.ts");
    const guard = await muster(["guard"], { env });
    expect(guard.status).toBe(1);
    expectClean(guard);
    expect(guard.stderr).toContain("src/a.ts");
    expect(guard.stderr).toContain("\\x1b");
  });
});
