// Landing a member's work on the base branch: who may land whose work, what refuses a land before
// anything moves (a path another member leases, nothing ahead, a dirty base checkout the
// fast-forward would touch), the names git is handed, and what each outcome tells the person, the
// member and the lead. Pure: git's output in, a decision and its lines out; the wiring runs git.
import { type BlockedPath, blockedPathLine, blockedPaths, type CompiledLease } from "./_lease.js";
import { printable } from "./_printable.js";
import { matchesParts, pathParts } from "./_wildmatch.js";

/**
 * Who asks to land: its label, whether it is the board's lead, and whether it is the person at
 * their own terminal (a shell no agent runs), who may land anyone's work as the lead may.
 */
export type Lander = { label: string; lead: boolean; person?: boolean | undefined };

export type LandRefusalReason =
  | "not-yours"
  | "bad-branch"
  | "no-worktree"
  | "nothing-ahead"
  | "leased"
  | "base-dirty"
  | "base-ignored"
  | "landing"
  | "check-untrusted";

export type LandRefusal = { ok: false; reason: LandRefusalReason; error: string; fix: string };

/** The fixes, beside the checks that decide them. */
const LAND_FIXES: Record<LandRefusalReason, string> = {
  "not-yours": "ask its member or the board's lead to land it",
  "bad-branch":
    "land a branch muster spawned (muster spawn --worktree), named with letters, digits, '.', '_', '-' and '/'",
  "no-worktree":
    "name a member started with muster spawn --worktree (muster spawn --list shows them)",
  "nothing-ahead": "commit the work on its branch first (muster diff shows what is there)",
  leased: "ask the lease holder to release it, or wait until the lease ends",
  "base-dirty": "commit or stash those changes in the base checkout, then land again",
  "base-ignored":
    "move those files aside in the base checkout (git stash keeps no ignored file), then land again",
  landing: "wait for that land to finish (without --no-wait, land waits its turn)",
  "check-untrusted":
    "read the command; if you trust it, land again and confirm it (or pass --check, --no-check)",
};

const refuse = (reason: LandRefusalReason, error: string): LandRefusal => ({
  ok: false,
  reason,
  error,
  fix: LAND_FIXES[reason],
});

const same = (left: string, right: string) => left.toLowerCase() === right.toLowerCase();

/** A member lands its own work; the lead (or the person) anyone's; everyone else is refused. */
export function mayLand(lander: Lander, member: string): { ok: true } | LandRefusal {
  if (lander.lead || lander.person || same(lander.label, member)) return { ok: true };
  return refuse(
    "not-yours",
    `${lander.label} may not land ${member}'s work: only ${member} or the board's lead may`,
  );
}

/** A branch name muster hands git: never an option, a revision expression or a path trick. */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\/\.)[A-Za-z0-9._/-]{1,200}(?<![./])$/;

export const isBranchName = (name: string) =>
  BRANCH.test(name) && !name.endsWith(".lock") && name !== "HEAD" && !name.startsWith(".");

/** `refs/heads/<name>`, the full name git never reads as an option or a revision; or a refusal. */
export function branchRef(name: string): { ok: true; ref: string } | LandRefusal {
  return isBranchName(name)
    ? { ok: true, ref: `refs/heads/${name}` }
    : refuse("bad-branch", `"${printable(name)}" is not a branch muster will land or land on`);
}

/** git's `-z` name lists (`diff --name-only -z`, `status --porcelain -z` paths): names as written. */
export const splitNul = (text: string): string[] => text.split("\0").filter((name) => name !== "");

/** `git status --porcelain=v1 -z`: the paths changed, staged or untracked (a rename's both names). */
export function statusPaths(porcelain: string): string[] {
  const fields = porcelain.split("\0");
  const paths: string[] = [];
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as string;
    if (field.length < 4) continue;
    paths.push(field.slice(3));
    // A rename or copy names its source in the next field.
    if (field[0] === "R" || field[0] === "C") paths.push(fields[++index] ?? "");
  }
  return paths.filter((name) => name !== "");
}

/** What git says about a member's branch against the base, and about the base checkout. */
export type LandFacts = {
  member: string;
  /** The member's branch and the base, names already checked. */
  branch: string;
  base: string;
  /** Commits on the branch not on the base. */
  ahead: number;
  /** Paths the commits ahead change (`diff --name-only -z base...branch`). */
  paths: readonly string[];
  /** The member's id: its own leases never stand in its way. */
  memberId: string | undefined;
  /** Leases that hold now. */
  holding: readonly CompiledLease[];
  /** Paths with uncommitted changes in the base checkout; undefined when it is not checked out. */
  baseDirty: readonly string[] | undefined;
  /**
   * Files the base checkout keeps and git ignores (a `.env`), where the land would write: git's
   * fast-forward overwrites an ignored file without a word, so they refuse as a change does.
   */
  baseIgnored?: readonly string[] | undefined;
};

export type LandPlan =
  | { ok: true; paths: readonly string[] }
  | (LandRefusal & { blocked?: BlockedPath[] });

const clock = (at: number) => new Date(at).toISOString().slice(11, 16);

/** Whether the land may start, refused at once (with its fix) where it would break a promise. */
export function planLand(facts: LandFacts): LandPlan {
  if (facts.ahead === 0)
    return refuse(
      "nothing-ahead",
      `${facts.member}'s branch ${facts.branch} has nothing ahead of ${facts.base}`,
    );
  const blocked = blockedPaths(facts.paths, facts.holding, facts.memberId);
  const first = blocked[0];
  if (first)
    return {
      ...refuse(
        "leased",
        `${printable(blockedPathLine(first, clock)).replace(/\.$/u, "")}${blocked.length > 1 ? ` (and ${blocked.length - 1} more path(s))` : ""}`,
      ),
      blocked,
    };
  const changed = new Set(facts.paths);
  const dirty = (facts.baseDirty ?? []).filter((name) => changed.has(name));
  if (dirty.length > 0)
    return refuse(
      "base-dirty",
      `the base checkout of ${facts.base} has uncommitted changes the land would overwrite: ${shownPaths(dirty)}`,
    );
  return (
    ignoredInTheWay(facts.base, facts.paths, facts.baseIgnored) ?? { ok: true, paths: facts.paths }
  );
}

/**
 * The refusal when the base checkout keeps an ignored file on a path the land writes (asked again
 * just before the base moves: a build may have made one during the check), else undefined.
 */
export function ignoredInTheWay(
  base: string,
  paths: readonly string[],
  ignored: readonly string[] | undefined,
): LandRefusal | undefined {
  const changed = new Set(paths);
  const inTheWay = (ignored ?? []).filter((name) => changed.has(name));
  return inTheWay.length > 0
    ? refuse(
        "base-ignored",
        `the base checkout of ${base} keeps ignored files the land would overwrite: ${shownPaths(inTheWay)}`,
      )
    : undefined;
}

/** Paths for a line: escaped, at most five, then a count. */
export function shownPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).map((name) => printable(name));
  return `${shown.join(", ")}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}`;
}

/** Another land holds the team's land claim: who, and on what. */
export const landingLine = (holder: { label: string; member: string }): string =>
  `${holder.label} is landing ${holder.member}'s work now`;

export const landingRefusal = (holder: { label: string; member: string }): LandRefusal =>
  refuse("landing", landingLine(holder));

/** A check command from the repository's muster.toml the person has not confirmed. */
export const untrustedCheck = (command: string): LandRefusal =>
  refuse(
    "check-untrusted",
    `this repository's muster.toml asks land to run "${printable(command)}", which you have not confirmed`,
  );

/** How a land ended. */
export type LandOutcome =
  | { result: "landed"; commit: string; base: string; count: number; paths: readonly string[] }
  | { result: "conflict"; files: readonly string[] }
  | { result: "check-failed"; command: string; code: number | string; tail: string }
  | { result: "base-moved"; base: string };

/** The mail the member gets: what happened, then what to do. */
export function landMailToMember(
  outcome: LandOutcome,
  facts: { member: string; branch: string; worktree: string },
): string {
  switch (outcome.result) {
    case "landed":
      return `Landed ${outcome.count} commit(s) of ${facts.branch} on ${outcome.base} as ${outcome.commit.slice(0, 12)}. Your branch was not touched: bring it up to date with git -C ${facts.worktree} rebase ${outcome.base} (the landed commits drop out).`;
    case "conflict":
      return `Your branch ${facts.branch} did not land: it conflicts with the base${outcome.files.length > 0 ? ` in ${shownPaths(outcome.files)}` : ""}. The base is unchanged and your card stays yours: rebase onto the base (git -C ${facts.worktree} rebase <base>), resolve, commit, and land again.`;
    case "check-failed":
      return `Your branch ${facts.branch} did not land: the check "${printable(outcome.command)}" failed (${outcome.code}) on it rebased onto the base. The base is unchanged and your card stays yours. The end of its output:\n${printable(outcome.tail, { lines: true })}`;
    case "base-moved":
      return `Your branch ${facts.branch} did not land: the base ${outcome.base} moved twice while it was checked. Nothing changed; land again.`;
  }
}

/** The lead's one line about a land. */
export function landMailToLead(outcome: LandOutcome, member: string, branch: string): string {
  return outcome.result === "landed"
    ? `Landed ${member}'s ${branch} on ${outcome.base}: ${outcome.commit.slice(0, 12)} (${outcome.count} commit(s), ${outcome.paths.length} file(s)).`
    : `${member}'s ${branch} did not land (${outcome.result}); ${member} was told why.`;
}

/** The team's land queue as status shows it: who lands, who waits, how the last land ended. */
export type LandQueue = {
  landing?: { label: string; member: string } | undefined;
  waiting: readonly string[];
  last?:
    | { member: string; result: LandOutcome["result"]; commit?: string | undefined; at: string }
    | undefined;
};

/** "land: alice landing bob; waiting carol; last bob landed 1a2b3c4d5e6f": undefined when idle and new. */
export function landQueueLine(queue: LandQueue): string | undefined {
  const parts: string[] = [];
  if (queue.landing)
    parts.push(`${printable(queue.landing.label)} landing ${printable(queue.landing.member)}`);
  if (queue.waiting.length > 0)
    parts.push(`waiting ${queue.waiting.map((label) => printable(label)).join(", ")}`);
  if (queue.last)
    parts.push(
      `last ${printable(queue.last.member)} ${printable(queue.last.result)}${queue.last.commit ? ` ${printable(queue.last.commit.slice(0, 12))}` : ""}`,
    );
  return parts.length > 0 ? `land: ${parts.join("; ")}` : undefined;
}

/** The member's own leases a land releases: each that covers a path it landed. */
export function leasesToRelease(
  paths: readonly string[],
  holding: readonly CompiledLease[],
  memberId: string,
): string[] {
  const own = holding.filter((lease) => lease.holderId === memberId);
  return own
    .filter((lease) =>
      paths.some((name) =>
        matchesParts(lease.compiled, pathParts(name, lease.compiled.ignoreCase)),
      ),
    )
    .map((lease) => lease.pattern);
}
