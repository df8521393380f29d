// Path leases, wired once for every composer (CLI, pi extension, MCP server, git hook): the
// roster's lease files judged by core's rules, and the git facts a lease check needs.
import path from "node:path";
import {
  blockedPaths,
  checkLeaseRequest,
  compileLeases,
  type HolderState,
  type Lease,
  type LeaseConflict,
  leaseStanding,
  normalisePattern,
} from "@muster/core";
import { runProgram } from "./_exec.js";
import { type PathSpelling, writtenPaths } from "./_lease-paths.js";
import { readRepoFacts } from "./_repo-facts.js";

// The roster's lease shapes, met structurally: the roster's tests depend on this package, so this
// package cannot depend on the roster.
type LeaseEntry = Lease & { holderState: HolderState };
type LeaseHolds = (lease: LeaseEntry, now: number) => boolean;
type LeaseRequest = {
  holderId: string;
  holder: string;
  pattern: string;
  mode: "exclusive" | "shared";
  reason?: string | undefined;
  ttlMs: number;
};
/** What taking a lease answers (the roster's `TakeLeaseResult`). */
export type TakeLeaseAnswer<Refusal> =
  | { ok: true; lease: LeaseEntry; renewed: boolean }
  | { ok: false; reason: "refused"; refusal: Refusal }
  | { ok: false; reason: "busy" | "unknown" | "bad-input"; error: string; fix: string };
/** As much of a roster as leases need (`@muster/roster`'s `Roster` fits). */
export type LeaseRoster<Read> = {
  leases(holds: LeaseHolds): Promise<Read>;
  takeLease<Refusal>(
    request: LeaseRequest,
    holds: LeaseHolds,
    check: (holding: readonly LeaseEntry[]) => { ok: true } | { ok: false; refusal: Refusal },
  ): Promise<TakeLeaseAnswer<Refusal>>;
};

/** Core's rule, in the roster's shape: a lease holds while its TTL runs and its holder may live. */
export const leaseHolds: LeaseHolds = (lease, now) =>
  leaseStanding(lease, lease.holderState, now).holds;

/** What a lease check needs to know of the repository `cwd` is in. */
export type RepoFacts = { root: string | undefined; ignoreCase: boolean };

/**
 * The worktree root and `core.ignorecase`: read from git's own files where that is plain
 * (_repo-facts.ts), else two git questions, asked at once.
 */
export async function repoFacts(cwd: string): Promise<RepoFacts> {
  const known = readRepoFacts(cwd, process.env);
  if (known) return known;
  const [top, ignore] = await Promise.all([
    runProgram("git", ["rev-parse", "--show-toplevel"], { cwd, timeoutMs: 5_000 }),
    runProgram("git", ["config", "--type=bool", "core.ignorecase"], { cwd, timeoutMs: 5_000 }),
  ]);
  return {
    root: top.status === 0 ? top.stdout.trim() : undefined,
    ignoreCase: ignore.status === 0 && ignore.stdout.trim() === "true",
  };
}

/**
 * A pattern as typed, made relative to the repository root: an absolute path inside the worktree
 * is made relative to it (agents pass absolute paths); anything else is taken as root-relative.
 */
export function repoPattern(
  input: string,
  root: string | undefined,
): { ok: true; pattern: string } | { ok: false; error: string } {
  let typed = input;
  if (path.isAbsolute(input)) {
    if (!root)
      return { ok: false, error: `${input} is absolute, and this is not a git repository` };
    const relative = path.relative(root, input);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative))
      return { ok: false, error: `${input} is outside the repository (${root})` };
    typed = relative.split(path.sep).join("/");
  }
  const normal = normalisePattern(typed);
  return normal.ok ? normal : { ok: false, error: normal.error };
}

/** The leases that hold, in the order taken; the ones found dead are removed as they are read. */
export function holdingLeases<Read>(roster: Pick<LeaseRoster<Read>, "leases">) {
  return roster.leases(leaseHolds);
}

/** Take (or renew) one lease by core's conflict rule, as one fenced step in the roster. */
export function takeLease(
  roster: Pick<LeaseRoster<unknown>, "takeLease">,
  request: LeaseRequest,
  ignoreCase: boolean,
): Promise<TakeLeaseAnswer<LeaseConflict>> {
  return roster.takeLease<LeaseConflict>(request, leaseHolds, (holding) => {
    const verdict = checkLeaseRequest(request, compileLeases(holding, ignoreCase), ignoreCase);
    return verdict.ok ? verdict : { ok: false, refusal: verdict };
  });
}

/** The paths `memberId` may not change, by the leases that hold now. */
export function pathsBlocked(
  paths: readonly string[],
  leases: readonly LeaseEntry[],
  memberId: string | undefined,
  ignoreCase: boolean,
) {
  return blockedPaths(paths, compileLeases(leases, ignoreCase), memberId);
}

/** What an edit guard answers: go on, blocked by a lease, or refused because it cannot tell. */
export type EditCheck =
  | { ok: true }
  | { ok: false; reason: "lease-held"; blocked: BlockedPath<LeaseEntry> }
  | { ok: false; reason: "unchecked"; error: string };

type BlockedPath<Entry> = { path: string; lease: Entry };

/**
 * May `memberId` (undefined: unknown, so every lease counts as another's) change `file`, as the
 * engine's tool names it from `cwd`? Every path the write changes (as named and through its
 * symlinks) is checked against the leases that hold. Anything that stops the check (the paths
 * cannot be told, the leases cannot be read) answers `unchecked`: a guard refuses on it.
 */
export async function checkEdit(
  roster: Pick<LeaseRoster<LeaseRead>, "leases">,
  edit: {
    file: string;
    cwd: string;
    memberId: string | undefined;
    spelling: PathSpelling;
    home?: string | undefined;
    /** The repository's facts, when the caller keeps them (else git is asked). */
    facts?: RepoFacts | undefined;
  },
): Promise<EditCheck> {
  const facts = edit.facts ?? (await repoFacts(edit.cwd));
  // Outside git the team is this folder's, and so are the lease patterns.
  const written = await writtenPaths(edit.file, {
    cwd: edit.cwd,
    root: facts.root ?? edit.cwd,
    spelling: edit.spelling,
    home: edit.home,
  });
  if (!written.ok) return { ok: false, reason: "unchecked", error: written.error };
  if (written.paths.length === 0) return { ok: true };
  const read = await holdingLeases(roster);
  if (!read.ok) return { ok: false, reason: "unchecked", error: read.error };
  const [blocked] = pathsBlocked(written.paths, read.leases, edit.memberId, facts.ignoreCase);
  return blocked
    ? { ok: false, reason: "lease-held", blocked: blocked as BlockedPath<LeaseEntry> }
    : { ok: true };
}

/** What reading the leases answers, as far as a guard needs it. */
type LeaseRead = { ok: true; leases: LeaseEntry[] } | { ok: false; error: string };

/** The paths a commit would change, from the index: both sides of a rename or a copy. */
export async function stagedPaths(
  cwd: string,
): Promise<{ ok: true; paths: string[] } | { ok: false; error: string }> {
  const diff = await runProgram(
    "git",
    ["diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff", "--no-color"],
    { cwd, timeoutMs: 30_000 },
  );
  if (diff.status !== 0) {
    // Outside a repository git diff prints its whole usage page: say what git says of the folder.
    const inside = await runProgram("git", ["rev-parse", "--git-dir"], { cwd, timeoutMs: 30_000 });
    const said = inside.status === 0 ? diff.stderr : inside.stderr;
    return { ok: false, error: said.trim().split("\n")[0] || "git diff --cached did not answer" };
  }
  const fields = diff.stdout.split("\0");
  const paths: string[] = [];
  for (let index = 0; index < fields.length; ) {
    const status = fields[index] ?? "";
    if (status === "") break;
    const sides = status.startsWith("R") || status.startsWith("C") ? 2 : 1;
    for (let side = 1; side <= sides; side += 1) {
      const file = fields[index + side];
      if (file) paths.push(file);
    }
    index += 1 + sides;
  }
  return { ok: true, paths: [...new Set(paths)] };
}

/** The folder git runs hooks from (honours `core.hooksPath`), absolute; undefined outside git. */
export async function gitHooksFolder(cwd: string): Promise<string | undefined> {
  const answer = await runProgram(
    "git",
    ["rev-parse", "--path-format=absolute", "--git-path", "hooks"],
    {
      cwd,
      timeoutMs: 5_000,
    },
  );
  return answer.status === 0 ? answer.stdout.trim() : undefined;
}
