// Land figures, real git: `landWork` (the wiring every door runs) landing a 1-commit change with a
// no-op check (`true`), beside bare `git rebase` + `git merge --ff-only` of the same kind of change
// (each run its own fresh commit, the base moved between runs); and a queue of 10 lands started at
// once, which the team's land claim takes one at a time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { makeLandRepo, restoreGitIdentity } from "@muster/test-team";
import { landWork } from "@muster/wiring";
import { type BenchRow, median } from "../src/bench-kit.ts";

const RUNS = 9;

export async function run(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-bench-land-"));
  try {
    const repo = await makeLandRepo(scratch);
    const alice = await repo.addMember("alice");
    const bob = await repo.addMember("bob");
    const person = { label: "lead", id: "lead-id", person: true };
    const land = (target: string, check = "true") =>
      landWork(
        { roster: repo.roster, teamDir: repo.teamDir, cwd: repo.main },
        { target, lander: person, check },
      );
    const landed: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < RUNS + 1; round++) {
      repo.commit(alice.worktree, { [`a/${round}.txt`]: `${round}\n` });
      repo.commit(repo.main, { [`main/${round}.txt`]: `${round}\n` }, "the base moves");
      let started = performance.now();
      const answer = await land("alice");
      if (!answer.ok || answer.outcome?.result !== "landed")
        throw new Error(`bench land failed: ${JSON.stringify(answer)}`);
      if (round > 0) landed.push(performance.now() - started);
      repo.commit(bob.worktree, { [`b/${round}.txt`]: `${round}\n` });
      repo.commit(repo.main, { [`main/b${round}.txt`]: `${round}\n` }, "the base moves");
      started = performance.now();
      repo.git(bob.worktree, "rebase", "-q", "main");
      repo.git(repo.main, "merge", "-q", "--ff-only", "muster/bob");
      if (round > 0) bare.push(performance.now() - started);
    }
    const members = await Promise.all(
      Array.from({ length: 10 }, (_, index) => repo.addMember(`q${index}`)),
    );
    for (const [index, member] of members.entries())
      repo.commit(member.worktree, { [`q/${index}.txt`]: `${index}\n` });
    const started = performance.now();
    const queue = await Promise.all(members.map((_, index) => land(`q${index}`)));
    const queueMs = performance.now() - started;
    if (queue.some((answer) => !answer.ok || answer.outcome?.result !== "landed"))
      throw new Error("bench: a queued land did not land");
    const figure = median(landed);
    const reference = median(bare);
    return [
      {
        name: "land: a 1-commit change, no-op check (rebase + check + CAS + ff, card/leases/mail)",
        medianMs: figure,
        reference: { name: "bare git rebase + git merge --ff-only", medianMs: reference },
        target: { text: "< 10× bare git", met: figure < 10 * reference },
      },
      {
        name: "land: a queue of 10 lands started at once (one at a time by the land claim), per land",
        medianMs: queueMs / 10,
        target: { text: "< 2× one land", met: queueMs / 10 < 2 * figure },
      },
    ];
  } finally {
    // makeLandRepo put git's identity (and GIT_CONFIG_NOSYSTEM) in process.env: the benches that
    // run after this one in the same process must not start their commands with it.
    restoreGitIdentity();
    rmSync(scratch, { recursive: true, force: true });
  }
}
