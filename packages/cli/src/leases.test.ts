// Path leases end to end: the built `muster` as real processes against a real team folder and a
// real git repository. Holders are real shells (so one can be SIGKILLed), and a file planted
// outside the team folder proves nothing there is touched. A member that only has to be there, live,
// is joined in this process.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { rounds } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinedTeam } from "../test/run.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-leases-")));
const repo = path.join(scratch, "repo");
const teamDir = path.join(scratch, "team");
const outside = path.join(scratch, "outside.txt");
const holders = new Set<ChildProcess>();
const env = {
  ...process.env,
  HOME: scratch,
  MUSTER_TEAM_DIR: teamDir,
  TMUX: undefined,
  TMUX_PANE: undefined,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

type Run = { status: number | null; stdout: string; stderr: string };

/** Run a shell command line in the repository, `muster` on hand as a function; its outcome. */
function sh(script: string, team: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      "sh",
      ["-c", `muster() { "${process.execPath}" "${MUSTER}" "$@"; }\n${script}`],
      { cwd: repo, env: { ...env, ...team } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * A member kept live by its own shell: the shell joins under `label` and leases `patterns`, then
 * stays (exec sleep keeps its pid and start time). Resolves once the lease answer is in.
 */
async function holder(
  label: string,
  patterns = "",
  team: Record<string, string> = {},
): Promise<ChildProcess & { answer: string }> {
  const muster = `"${process.execPath}" "${MUSTER}"`;
  const lease = patterns
    ? `${muster} lease ${patterns} --id ${label}-id --reason "${label} at work" --json`
    : "true";
  const child = spawn(
    "sh",
    [
      "-c",
      `${muster} join ${label} --id ${label}-id >/dev/null && ${lease}; echo "::done"; exec sleep 600`,
    ],
    { cwd: repo, env: { ...env, ...team } },
  ) as ChildProcess & { answer: string };
  holders.add(child);
  child.answer = "";
  await new Promise<void>((resolve) => {
    child.stdout?.on("data", (chunk) => {
      child.answer += chunk;
      if (child.answer.includes("::done")) resolve();
    });
  });
  return child;
}

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: repo, env, encoding: "utf8", stdio: "pipe" });

beforeAll(() => {
  mkdirSync(path.join(repo, "src"), { recursive: true });
  writeFileSync(outside, "outside, untouched\n");
  writeFileSync(path.join(repo, "src", "a.ts"), "a\n");
  writeFileSync(path.join(repo, "src", "b.ts"), "b\n");
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "start");
});

afterAll(() => {
  for (const child of holders) child.kill("SIGKILL");
  expect(readFileSync(outside, "utf8")).toBe("outside, untouched\n");
  rmSync(scratch, { recursive: true, force: true });
});

describe("muster lease", () => {
  it("a conflicting lease is refused, naming the holder, its reason and what to do", async () => {
    const bob = await holder("bob", "'src/auth/**'");
    expect(JSON.parse(bob.answer.replace("::done", ""))).toMatchObject({
      ok: true,
      leases: [{ pattern: "src/auth/**", mode: "exclusive", holder: "bob" }],
    });
    await joinedTeam(teamDir, { carol: "carol-id" });
    const refused = await sh("muster lease src/auth/login.ts --id carol-id");
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /src\/auth\/login\.ts overlaps src\/auth\/\*\*, held by bob \(bob at work\) until \d\d:\d\d; ask bob to release it \(muster send bob "…"\)/,
    );
    const elsewhere = await sh("muster lease 'docs/*.md' --id carol-id --json");
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({
      ok: true,
      leases: [{ pattern: "docs/*.md" }],
    });
    const status = await sh("muster status -L muster-test-no-server");
    expect(status.stdout).toMatch(
      /Leases \(2\)\n {2}src\/auth\/\*\* +held by bob \(bob at work\) until/,
    );
    const listed = JSON.parse((await sh("muster lease --list --json")).stdout);
    expect(listed.leases.map((lease: { holder: string }) => lease.holder)).toEqual([
      "bob",
      "carol",
    ]);
    expect((await sh("muster release --all --id carol-id")).stdout).toBe("Released docs/*.md.\n");
    expect((await sh("muster release --all --id bob-id")).stdout).toBe("Released src/auth/**.\n");
  });

  // Each round is four CLI starts (seconds each on a loaded machine): the time allowed grows with
  // the rounds, past it they stop (the signal), and on a team of their own, so a round still
  // running takes no lease under the next test.
  const raceRounds = rounds(2, 12);
  const race = { MUSTER_TEAM_DIR: path.join(scratch, "race-team") };
  it(
    "two members racing for overlapping exclusive leases: exactly one wins, every round",
    async ({ signal }) => {
      await joinedTeam(race.MUSTER_TEAM_DIR, { r1: "r1-id", r2: "r2-id" });
      for (let round = 0; round < raceRounds && !signal.aborted; round += 1) {
        const [first, second] = await Promise.all([
          sh("muster lease 'lib/**' --id r1-id --json", race),
          sh("muster lease lib/core.ts --id r2-id --json", race),
        ]);
        expect([first.status, second.status].sort()).toEqual([0, 1]);
        const loser = first.status === 1 ? first : second;
        expect(JSON.parse(loser.stdout)).toMatchObject({ ok: false, reason: "lease-held" });
        // The next round starts from nothing held; after the last, nothing reads this team.
        if (round + 1 < raceRounds)
          await sh("muster release --all --id r1-id; muster release --all --id r2-id", race);
      }
    },
    30_000 + raceRounds * 15_000,
  );

  it("a holder SIGKILLed: its lease lapses on the next read, said so, and the read changes nothing", async () => {
    const dave = await holder("dave", "src/db.ts");
    expect((await sh("muster lease --list")).stdout).toContain("src/db.ts");
    dave.kill("SIGKILL");
    await new Promise((resolve) => dave.once("exit", resolve));
    const read = await sh("muster lease --list --json");
    const lapsed = { leases: [], lapsed: [{ pattern: "src/db.ts", holder: "dave" }], released: [] };
    expect(JSON.parse(read.stdout)).toMatchObject(lapsed);
    // Read again: still there to be read, nothing released by the look.
    expect(JSON.parse((await sh("muster lease --list --json")).stdout)).toMatchObject(lapsed);
    expect((await sh("muster lease --list")).stdout).toContain("Lapsed: src/db.ts of dave");
    await joinedTeam(teamDir, { erin: "erin-id" });
    expect((await sh("muster lease src/db.ts --id erin-id")).status).toBe(0);
    await sh("muster release --all --id erin-id");
  });

  it("refuses what is not a path in this repository; a shell not on the team joins to lease", async () => {
    const climbing = await sh("muster lease ../outside.txt --id r1-id");
    expect(climbing).toMatchObject({ status: 2 });
    expect(climbing.stderr).toContain("leaves the repository");
    const absolute = await sh(`muster lease ${outside} --id r1-id`);
    expect(absolute.stderr).toContain("is outside the repository");
    const stranger = await sh("muster lease src/x.ts --id nobody-id");
    expect(stranger).toMatchObject({ status: 0 });
    expect(stranger.stdout).toMatch(
      /^Joined the team as \S+ to lease src\/x\.ts\.\nLeased src\/x\.ts/,
    );
    await sh("muster release --all --id nobody-id; muster leave --id nobody-id");
  });
});

describe("what a lease taker is told besides the lease", () => {
  it("a pattern that covers no file is warned of (a typo); leases are advisory without the git hook", async () => {
    const typo = await sh("muster lease 'scr/**' 'src/*.ts' --id gina-id");
    expect(typo.status, typo.stderr).toBe(0);
    expect(typo.stdout).toMatch(/Leased scr\/\*\* .*\nLeased src\/\*\.ts /);
    expect(typo.stderr).toMatch(
      /warning: no file in the repository matches scr\/\*\* \(a typo\?\); the lease holds for files made later; .*muster release/,
    );
    expect(typo.stderr).not.toMatch(/matches src\/\*\.ts/);
    expect(typo.stderr).toMatch(
      /warning: leases are advisory for commits here: .*muster install git-hook/,
    );
    const json = JSON.parse((await sh("muster lease 'scr/**' --id gina-id --json")).stdout);
    expect(json.warnings).toEqual([
      expect.stringMatching(/matches scr\/\*\*/),
      expect.stringMatching(/advisory/),
    ]);
    // With muster's hook in place, commits check leases: nothing to say about that any more.
    expect((await sh("muster install git-hook")).status).toBe(0);
    const guarded = await sh("muster lease 'src/b.ts' --id gina-id");
    expect(guarded).toMatchObject({ status: 0, stderr: "" });
    expect((await sh("muster install git-hook --uninstall")).status).toBe(0);
    await sh("muster release --all --id gina-id; muster leave --id gina-id");
  });
});

describe("muster guard, the pre-commit hook", () => {
  it("refuses a commit of another member's leased path, then allows it once released or dead", async () => {
    const existing =
      '#!/bin/sh\necho user-hook-ran >> "$(git rev-parse --git-dir)/user-hook.log"\n';
    const hookFile = path.join(repo, ".git", "hooks", "pre-commit");
    writeFileSync(hookFile, existing);
    chmodSync(hookFile, 0o755);
    expect((await sh("muster install git-hook")).stdout).toMatch(/your hook runs after it/);

    const frank = await holder("frank", "src/a.ts");
    writeFileSync(path.join(repo, "src", "a.ts"), "a changed\n");
    const refused = await sh("git add src/a.ts && git commit -qm 'touch a'");
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/src\/a\.ts is leased \(src\/a\.ts\), held by frank/);

    // A rename out of a leased path is a change to it too.
    await sh("git reset -q && git checkout -q -- src/a.ts");
    const renamed = await sh("git mv src/a.ts src/c.ts && git commit -qm 'rename a'");
    expect(renamed.status).not.toBe(0);
    expect(renamed.stderr).toContain("src/a.ts is leased");
    expect((await sh("MUSTER_GUARD=warn git commit -qm 'rename a, warned'")).status).toBe(0);
    expect(readFileSync(path.join(repo, ".git", "user-hook.log"), "utf8")).toContain(
      "user-hook-ran",
    );

    frank.kill("SIGKILL");
    await new Promise((resolve) => frank.once("exit", resolve));
    writeFileSync(path.join(repo, "src", "c.ts"), "c changed\n");
    expect((await sh("git add src/c.ts && git commit -qm 'after frank'")).status).toBe(0);

    expect((await sh("muster guard --uninstall")).stdout).toMatch(/removed the muster guard/i);
    expect(readFileSync(hookFile, "utf8")).toBe(existing);
  });

  it("leases it cannot read refuse the commit, saying why; MUSTER_GUARD=warn lets it through, warned", async () => {
    const broken = path.join(scratch, "broken-team");
    const inBroken = `MUSTER_TEAM_DIR='${broken}'`;
    await openTestTeam(broken);
    rmSync(path.join(broken, "leases"), { recursive: true });
    writeFileSync(path.join(broken, "leases"), "not a folder");
    writeFileSync(path.join(repo, "src", "b.ts"), "b changed\n");
    git("add", "src/b.ts");
    try {
      const refused = await sh(`${inBroken} muster guard`);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(
        /^muster: This commit is refused: muster could not check it against the team's leases \(.+\); fix what stops the check/,
      );
      const warned = await sh(`${inBroken} MUSTER_GUARD=warn muster guard --json`);
      expect(warned.status).toBe(0);
      expect(JSON.parse(warned.stdout)).toMatchObject({ ok: true, checked: false });
      expect(warned.stderr).toContain("leases were not checked");
    } finally {
      git("reset", "-q");
      git("checkout", "-q", "--", "src/b.ts");
    }
  });

  it("a merge or a git am that brings in a change of a leased path is refused, naming the holder", async () => {
    // The guard as installed (pre-commit, pre-merge-commit, pre-applypatch), a branch that changes
    // src/b.ts, committed past the guard, and main moved on, so the merge makes a commit.
    expect((await sh("muster install git-hook")).status).toBe(0);
    const side = `git checkout -q -b side && echo b2 > src/b.ts && git commit -qam b2 --no-verify &&
      git format-patch -q -1 -o ../patches && git checkout -q - && echo m > m.txt &&
      git add m.txt && git commit -qm 'main moves' --no-verify`;
    expect((await sh(side)).status).toBe(0);
    const grace = await holder("grace", "src/b.ts");
    try {
      const merged = await sh("git merge -q --no-edit side");
      expect(merged.status).not.toBe(0);
      expect(merged.stderr).toMatch(/src\/b\.ts is leased \(src\/b\.ts\), held by grace/);
      await sh("git merge --abort");
      const applied = await sh("git am -q ../patches/*.patch");
      expect(applied.status).not.toBe(0);
      expect(applied.stderr).toContain("src/b.ts is leased");
      expect(git("log", "-1", "--format=%s").trim()).toBe("main moves");
      await sh("git am --abort");
    } finally {
      grace.kill("SIGKILL");
      await new Promise((resolve) => grace.once("exit", resolve));
    }
    // Once its holder is gone, the same merge goes through.
    expect((await sh("git merge -q --no-edit side")).status).toBe(0);
    expect((await sh("muster guard --uninstall")).status).toBe(0);
  });
});
