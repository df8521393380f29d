// The scratch worktree a land rebases and checks in: a detached worktree under the repository's
// git folder (`<common>/muster-land/<name>`), never the member's, which it may be editing. Each
// is named beside an owner file (pid and start time); the next land or `muster prune` removes
// those whose owner is proven dead, and finishes a base checkout's fast-forward a killed land
// left half done (the `ff.json` note written before the base moved).
import { randomBytes } from "node:crypto";
import {
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { splitNul } from "@muster/core";
import { processAlive, processStart, readRegularFile } from "@muster/node";
import { firstLine, git, objectOf } from "./land-git.ts";

/** The folder of a repository's scratch worktrees and notes. */
export async function landFolder(main: string): Promise<string | undefined> {
  const common = await git(main, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  return common.status === 0 ? path.join(common.stdout.trim(), "muster-land") : undefined;
}

const linkOrNothing = (file: string) => {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
};

/**
 * Make `folder` (0700) or find it made: a real folder of this user's, never a link another process
 * planted in git's folder (every worktree may write there), which would take muster's scratch
 * worktrees, their removal and its logs elsewhere. The error says what is wrong.
 */
export function readyLandFolder(folder: string): string | undefined {
  if (!linkOrNothing(folder))
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch {}
  const facts = linkOrNothing(folder);
  if (!facts) return `${folder} cannot be made`;
  if (!facts.isDirectory() || facts.isSymbolicLink())
    return `${folder} is not a folder but a ${facts.isSymbolicLink() ? "link" : "file"}`;
  if (typeof process.getuid === "function" && facts.uid !== process.getuid())
    return `${folder} belongs to another user`;
  return undefined;
}

/**
 * The check's log, `<folder>/<label>.log`, made anew: whatever was planted under that name (a
 * link, a hard link to the person's file) is unlinked, never written through.
 */
export function openLog(
  folder: string,
  label: string,
): { ok: true; path: string; descriptor: number } | { ok: false; error: string } {
  const file = path.join(folder, `${label}.log`);
  try {
    if (linkOrNothing(file)?.isDirectory()) rmSync(file, { recursive: true, force: true });
    else rmSync(file, { force: true });
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    return { ok: true, path: file, descriptor: openSync(file, flags, 0o600) };
  } catch (error) {
    return { ok: false, error: `${file} cannot be made: ${(error as Error).message}` };
  }
}

type Owner = { pid: number; start: string };

const ownerOf = (file: string): Owner | undefined => {
  try {
    const owner = JSON.parse(readRegularFile(file)) as Partial<Owner>;
    return typeof owner.pid === "number" && typeof owner.start === "string"
      ? (owner as Owner)
      : undefined;
  } catch {
    return undefined;
  }
};

const ownerDead = (owner: Owner | undefined) =>
  !owner || processAlive(owner.pid, owner.start) === "dead";

const me = (): Owner => ({ pid: process.pid, start: processStart(process.pid) ?? "" });

/** A new scratch worktree at `commit` (detached: no branch is made or moved). */
export async function openScratch(
  main: string,
  folder: string,
  commit: string,
): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const name = `${process.pid}-${randomBytes(4).toString("hex")}`;
  writeFileSync(path.join(folder, `${name}.owner.json`), JSON.stringify(me()), { mode: 0o600 });
  const scratch = path.join(folder, name);
  const added = await git(main, ["worktree", "add", "--detach", "--", scratch, commit]);
  return added.status === 0 ? { ok: true, path: scratch } : { ok: false, error: firstLine(added) };
}

/** Remove a scratch worktree and its owner file. */
export async function closeScratch(main: string, scratch: string): Promise<void> {
  // A link planted under a scratch worktree's name names someone's worktree: git would remove that.
  if (!linkOrNothing(scratch)?.isSymbolicLink())
    await git(main, ["worktree", "remove", "--force", "--force", "--", scratch]);
  rmSync(scratch, { recursive: true, force: true });
  rmSync(`${scratch}.owner.json`, { force: true });
  await git(main, ["worktree", "prune"]);
}

/** The note of a base checkout's fast-forward under way: written before the base moves. */
export type FastForward = { checkout: string; baseRef: string; from: string; to: string };

export function noteFastForward(folder: string, note: FastForward): string {
  const file = path.join(folder, `ff-${process.pid}.json`);
  // Its name is this pid's: whatever was planted there is unlinked, and the note made anew.
  rmSync(file, { force: true });
  writeFileSync(file, JSON.stringify({ ...note, ...me() }), { mode: 0o600, flag: "wx" });
  return file;
}

/**
 * Bring a checkout of the base from `from` to `to`: a two-tree merge of its index and files (what
 * `git merge --ff-only` does after it moved the ref); git refuses where a local change is in the way.
 */
export async function fastForwardCheckout(note: FastForward, dryRun = false) {
  return git(note.checkout, [
    "read-tree",
    ...(dryRun ? ["-n"] : []),
    "-m",
    "-u",
    note.from,
    note.to,
  ]);
}

/** Finish what a dead land left: its fast-forward, its scratch worktrees. The lines say what. */
export async function cleanDeadLands(main: string): Promise<string[]> {
  const folder = await landFolder(main);
  if (!folder || !linkOrNothing(folder)) return [];
  const unready = readyLandFolder(folder);
  if (unready) return [`left ${folder} alone: ${unready}`];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const name of names.filter((each) => /^ff-\d+\.json$/u.test(each))) {
    const file = path.join(folder, name);
    const note = ownerOf(file) as (Owner & Partial<FastForward>) | undefined;
    if (!ownerDead(note)) continue;
    if (note?.checkout && note.baseRef && note.from && note.to)
      done.push(...(await finishFastForward(note as FastForward)));
    rmSync(file, { force: true });
  }
  for (const name of names.filter((each) => /^\d+-[0-9a-f]{8}$/u.test(each))) {
    if (!ownerDead(ownerOf(path.join(folder, `${name}.owner.json`)))) continue;
    const planted = linkOrNothing(path.join(folder, name))?.isSymbolicLink();
    await closeScratch(main, path.join(folder, name));
    done.push(
      planted
        ? `removed a link planted where a land's scratch worktree would be (${name}), not what it named`
        : `removed the scratch worktree of a land that died (${name})`,
    );
  }
  return done;
}

/** The base moved to `to` but its checkout's index is still at `from`: bring the checkout along. */
async function finishFastForward(note: FastForward): Promise<string[]> {
  if ((await objectOf(note.checkout, note.baseRef)) !== note.to) return [];
  const head = await git(note.checkout, ["symbolic-ref", "-q", "HEAD"]);
  if (head.stdout.trim() !== note.baseRef) return [];
  const index = await git(note.checkout, [
    "diff-index",
    "--cached",
    "-z",
    "--name-only",
    note.from,
    "--",
  ]);
  if (index.status !== 0 || splitNul(index.stdout).length > 0) return [];
  const moved = await fastForwardCheckout(note);
  return moved.status === 0
    ? [`finished updating ${note.checkout} to ${note.to.slice(0, 12)} (a land died before it did)`]
    : [
        `${note.checkout} is behind its branch after a land died: ${firstLine(moved)}; run git -C ${note.checkout} read-tree -m -u ${note.from} ${note.to}`,
      ];
}
