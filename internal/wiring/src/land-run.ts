// The moving part of a land, under the team's land claim: rebase in a scratch worktree, check
// there, then move the base by compare-and-swap (`git update-ref <base> <new> <old>`) and bring
// its checkout along by a fast-forward. Killed at any point, the base is where it was or at the
// checked result; the member's branch and worktree are never written; the scratch worktree and a
// half-done fast-forward are finished by the next land (cleanDeadLands). The base moved by someone
// else during the check fails the swap, and the land is tried once more on the new base.

import { rmSync } from "node:fs";
import { ignoredInTheWay, type LandOutcome } from "@muster/core";
import { runCheck } from "./land-check.ts";
import { changedPaths, firstLine, git, ignoredPaths, objectOf } from "./land-git.ts";
import { rebaseInScratch } from "./land-rebase.ts";
import {
  closeScratch,
  fastForwardCheckout,
  noteFastForward,
  openLog,
  openScratch,
} from "./land-scratch.ts";

export type RunInput = {
  main: string;
  folder: string;
  label: string;
  baseRef: string;
  base: string;
  /** The member's commit (its branch's tip when the land began: later commits wait their turn). */
  tip: string;
  /** Where the base is checked out, if anywhere. */
  checkout: string | undefined;
  check: string | undefined;
  progress: (line: string) => void;
  output?: ((chunk: string) => void) | undefined;
};

export type RunResult =
  | { ok: true; outcome: LandOutcome; log?: string | undefined }
  | { ok: false; reason?: "nothing-ahead" | undefined; error: string; fix: string };

/** How long a test's hold keeps a land at a step: long enough for its kill, never for good. */
export const LAND_PAUSE_MS = 30_000;

/**
 * Hold at step `name` when a test names it (`MUSTER_LAND_PAUSE`), so its kill lands in the step;
 * the land goes on after `holdMs`, so a process that inherited the variable is only slowed.
 */
export async function landPause(
  name: string,
  env: Record<string, string | undefined> = process.env,
  holdMs = LAND_PAUSE_MS,
) {
  if (env.MUSTER_LAND_PAUSE !== name) return;
  process.stderr.write(
    `muster land: paused at ${name} (MUSTER_LAND_PAUSE; going on in ${Math.round(holdMs / 1000)} s)\n`,
  );
  await new Promise((resolve) => setTimeout(resolve, holdMs));
}

async function step(name: string, progress: (line: string) => void, line: string) {
  progress(line);
  await landPause(name);
}

/** One attempt: rebase onto the base now, check, swap. */
async function attempt(input: RunInput, old: string): Promise<RunResult | "moved"> {
  const mergeBase = await git(input.main, ["merge-base", old, input.tip]);
  if (mergeBase.status !== 0)
    return {
      ok: false,
      error: `${input.label}'s branch shares no history with ${input.base}`,
      fix: "land a branch made from the base",
    };
  const opened = await openScratch(input.main, input.folder, input.tip);
  if (!opened.ok)
    return {
      ok: false,
      error: `git could not make a scratch worktree: ${opened.error}`,
      fix: "run muster prune, then land again",
    };
  const scratch = opened.path;
  try {
    await step(
      "rebase",
      input.progress,
      `rebasing ${input.label}'s commits onto ${input.base} ${old.slice(0, 12)}`,
    );
    const rebased = await rebaseInScratch(scratch, old, mergeBase.stdout.trim());
    if (!rebased.ok)
      return rebased.conflict
        ? { ok: true, outcome: { result: "conflict", files: rebased.files } }
        : {
            ok: false,
            error: `the rebase failed: ${rebased.error}`,
            fix: "check the member's branch with muster diff",
          };
    if (rebased.commit === old)
      return {
        ok: false,
        reason: "nothing-ahead",
        error: `${input.label}'s commits are all on ${input.base} already`,
        fix: `bring its branch up to date: git rebase ${input.base} in its worktree`,
      };
    let log: string | undefined;
    if (input.check !== undefined) {
      await step("check", input.progress, `checking: ${input.check}`);
      const logFile = openLog(input.folder, input.label);
      if (!logFile.ok)
        return { ok: false, error: logFile.error, fix: "remove it, then land again" };
      log = logFile.path;
      const checked = await runCheck(input.check, scratch, logFile, input.output);
      if (!checked.ok)
        return {
          ok: true,
          outcome: {
            result: "check-failed",
            command: input.check,
            code: checked.code,
            tail: checked.tail,
          },
          log,
        };
    }
    const paths = (await changedPaths(input.main, old, rebased.commit)) ?? [];
    const count =
      Number(
        (await git(input.main, ["rev-list", "--count", `${old}..${rebased.commit}`])).stdout.trim(),
      ) || 0;
    return await swap(input, old, rebased.commit, { paths, count, log });
  } finally {
    await closeScratch(input.main, scratch);
  }
}

/** Move the base from `old` to `next` only if it is still at `old`; then its checkout. */
async function swap(
  input: RunInput,
  old: string,
  next: string,
  facts: { paths: string[]; count: number; log: string | undefined },
): Promise<RunResult | "moved"> {
  const note = input.checkout
    ? { checkout: input.checkout, baseRef: input.baseRef, from: old, to: next }
    : undefined;
  if (note) {
    const dry = await fastForwardCheckout(note, true);
    if (dry.status !== 0)
      return {
        ok: false,
        error: `the base checkout ${note.checkout} cannot be fast-forwarded: ${firstLine(dry)}`,
        fix: "commit or stash the changes there, then land again",
      };
    // Asked again now: a build during the check may have made an ignored file the land writes.
    const ignored = await ignoredPaths(note.checkout, facts.paths);
    const refused = ignored
      ? ignoredInTheWay(input.base, facts.paths, ignored)
      : { error: `git could not say which files ${note.checkout} ignores`, fix: "land again" };
    if (refused) return { ok: false, error: refused.error, fix: refused.fix };
  }
  const noted = note ? noteFastForward(input.folder, note) : undefined;
  try {
    await step(
      "ref",
      input.progress,
      `moving ${input.base} from ${old.slice(0, 12)} to ${next.slice(0, 12)}`,
    );
    const moved = await git(input.main, [
      "update-ref",
      "-m",
      `muster land ${input.label}`,
      input.baseRef,
      next,
      old,
    ]);
    if (moved.status !== 0)
      return (await objectOf(input.main, input.baseRef)) !== old
        ? "moved"
        : {
            ok: false,
            error: `git could not move ${input.base}: ${firstLine(moved)}`,
            fix: "check the repository with git status",
          };
    if (note) {
      await step("ff", input.progress, `updating ${note.checkout}`);
      const forwarded = await fastForwardCheckout(note);
      if (forwarded.status !== 0)
        input.progress(
          `${note.checkout} was not updated (${firstLine(forwarded)}): run git -C ${note.checkout} read-tree -m -u ${old} ${next}`,
        );
    }
  } finally {
    if (noted) rmSync(noted, { force: true });
  }
  return {
    ok: true,
    outcome: {
      result: "landed",
      commit: next,
      base: input.base,
      count: facts.count,
      paths: facts.paths,
    },
    log: facts.log,
  };
}

/** Rebase, check and swap; once more on the new base if it moved during the check. */
export async function runLand(input: RunInput): Promise<RunResult> {
  for (let round = 0; round < 2; round++) {
    const old = await objectOf(input.main, input.baseRef);
    if (!old)
      return {
        ok: false,
        error: `${input.base} names no commit`,
        fix: "check the base branch with git branch --list",
      };
    const result = await attempt(input, old);
    if (result !== "moved") return result;
    input.progress(
      `${input.base} moved while ${input.label}'s work was checked: trying once more on the new base`,
    );
  }
  return { ok: true, outcome: { result: "base-moved", base: input.base } };
}
