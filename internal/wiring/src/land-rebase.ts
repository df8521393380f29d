// The rebase step of a land: the member's commits since they left the base, replayed onto the
// base's commit now, in a scratch worktree (detached: the member's branch is never moved). A
// conflict is aborted there and its files named; nothing outside the scratch worktree changes.
import { splitNul } from "@muster/core";
import { firstLine, git } from "./land-git.ts";

export type Rebased =
  | { ok: true; commit: string }
  | { ok: false; conflict: true; files: string[] }
  | { ok: false; conflict: false; error: string };

/** Replay `tip`'s commits since `mergeBase` onto `onto`, in `scratch` (detached at `tip`). */
export async function rebaseInScratch(
  scratch: string,
  onto: string,
  mergeBase: string,
): Promise<Rebased> {
  const rebased = await git(scratch, [
    "-c",
    "rebase.autoStash=false",
    "-c",
    "rebase.autoSquash=false",
    "-c",
    "rebase.updateRefs=false",
    "rebase",
    "--no-verify",
    "--onto",
    onto,
    mergeBase,
  ]);
  if (rebased.status === 0) {
    const head = await git(scratch, ["rev-parse", "--verify", "HEAD^{commit}"]);
    return head.status === 0
      ? { ok: true, commit: head.stdout.trim() }
      : { ok: false, conflict: false, error: firstLine(head) };
  }
  const unmerged = await git(scratch, ["diff", "--name-only", "--diff-filter=U", "-z"]);
  const files = unmerged.status === 0 ? [...new Set(splitNul(unmerged.stdout))] : [];
  await git(scratch, ["rebase", "--abort"]);
  return files.length > 0 || /conflict/iu.test(rebased.stdout + rebased.stderr)
    ? { ok: false, conflict: true, files }
    : { ok: false, conflict: false, error: firstLine(rebased) };
}
