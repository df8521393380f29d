// `muster land <label|card>` as every door runs it: whose work (a label, or the card's holder),
// whether the caller may land it (core's mayLand), what refuses it at once (core's planLand), then
// one land at a time per team (the land claim) and the moving part (land-run.ts), and after it the
// card, the leases and the mail (land-tell.ts). Refusals and outcomes are values.
import {
  compileLeases,
  type LandOutcome,
  type LandRefusal,
  mayLand,
  parseCardId,
  planLand,
  untrustedCheck,
} from "@muster/core";
import { holdingLeases } from "@muster/node";
import type { Roster } from "@muster/roster";
import { readBoard, teamBoard } from "./board.ts";
import { claimLand, recordLast } from "./land-claim.ts";
import {
  changedPaths,
  checkoutOf,
  commitsAhead,
  ignoredPaths,
  objectOf,
  uncommittedPaths,
} from "./land-git.ts";
import { runLand } from "./land-run.ts";
import { cleanDeadLands, landFolder, readyLandFolder } from "./land-scratch.ts";
import { confirmCheck, confirmedChecksFile, isConfirmed } from "./land-settings.ts";
import { type LandTarget, landTarget, type TargetRefusal } from "./land-target.ts";
import { tellLand } from "./land-tell.ts";

export type LandRequest = {
  /** A member's label, or a card (`c12`, `#12`) whose holder's work lands. */
  target: string;
  /** Who asks: its label and id (a member), or the person at their own terminal. */
  lander: { label: string; id: string; person?: boolean | undefined };
  check?: string | undefined;
  noCheck?: boolean | undefined;
  dryRun?: boolean | undefined;
  noWait?: boolean | undefined;
  /** Asked once per repository and command before a check muster.toml names runs; none: refused. */
  confirm?: ((command: string) => Promise<boolean>) | undefined;
  progress?: ((line: string) => void) | undefined;
  output?: ((chunk: string) => void) | undefined;
};

export type LandEffects = {
  roster: Roster;
  teamDir: string;
  cwd: string;
  env?: NodeJS.ProcessEnv | undefined;
};

export type LandAnswer =
  | {
      ok: true;
      dryRun: boolean;
      member: string;
      branch: string;
      base: string;
      card: string | undefined;
      check: string | undefined;
      commits: number;
      paths: readonly string[];
      outcome: LandOutcome | undefined;
      log: string | undefined;
      warnings: string[];
    }
  | (
      | LandRefusal
      | TargetRefusal
      | { ok: false; reason: "land-failed" | "bad-card"; error: string; fix: string }
    );

const CARD = /^(?:#|c)?\d+$/iu;

/** The member and card a target names: a card's holder, or a label and the card it holds. */
async function whose(roster: Roster, reader: string, target: string) {
  const read = await readBoard(teamBoard(roster), reader);
  const board = read.ok ? read.board : undefined;
  const cards = board ? [...board.cards.values()] : [];
  const members = board && board.members !== "unknown" ? board.members.members : [];
  if (CARD.test(target)) {
    const id = parseCardId(target);
    const card = id.ok ? cards.find((each) => each.id === id.id) : undefined;
    if (!card?.owner)
      return {
        ok: false as const,
        reason: "bad-card" as const,
        error: `no one holds card ${target}`,
        fix: "land a card a member holds, or land the member by label",
      };
    return {
      ok: true as const,
      label: card.owner.label,
      id: card.owner.id,
      card: card.id,
      lead: board?.lead,
    };
  }
  const label = target.toLowerCase();
  const card = cards.find(
    (each) => each.state === "held" && each.owner?.label.toLowerCase() === label,
  );
  const member = members.find(
    (each) => each.state === "live" && each.label.toLowerCase() === label,
  );
  return {
    ok: true as const,
    label,
    id: card?.owner?.id ?? member?.id,
    card: card?.id,
    lead: board?.lead,
  };
}

/** The check to run: `--check`, else muster.toml's once confirmed, else none. */
async function chooseCheck(request: LandRequest, target: LandTarget, env: NodeJS.ProcessEnv) {
  if (request.noCheck) return { ok: true as const, check: undefined };
  if (request.check !== undefined) return { ok: true as const, check: request.check };
  const command = target.settings.check;
  if (command === undefined) return { ok: true as const, check: undefined };
  const file = confirmedChecksFile(env);
  const confirmation = { repository: target.main, command };
  if (isConfirmed(file, confirmation)) return { ok: true as const, check: command };
  if (request.dryRun || !request.confirm || !(await request.confirm(command)))
    return untrustedCheck(command);
  confirmCheck(file, confirmation);
  return { ok: true as const, check: command };
}

type Refused = Extract<LandAnswer, { ok: false }>;
type Whose = Extract<Awaited<ReturnType<typeof whose>>, { ok: true }>;

/** Land `request.target`'s committed work on the base, or say why not. */
export async function landWork(effects: LandEffects, request: LandRequest): Promise<LandAnswer> {
  const progress = request.progress ?? (() => undefined);
  const found = await findLand(effects, request);
  if (!found.ok) return found;
  for (const line of await cleanDeadLands(found.target.main)) progress(line);
  const planned = await planWork(effects, found);
  if (!planned.ok) return planned;
  const { answer } = planned;
  if (request.dryRun)
    return { ...answer, dryRun: true, outcome: undefined, log: undefined, warnings: [] };
  const claimed = await claimLand(
    effects.roster,
    { lander: request.lander.label, member: found.who.label },
    { noWait: request.noWait, progress },
  );
  if (!claimed.ok) return claimed;
  try {
    const { who, target, folder } = found;
    const ran = await runLand({
      main: target.main,
      folder,
      label: who.label,
      baseRef: target.baseRef,
      base: target.base,
      tip: planned.tip,
      checkout: planned.checkout,
      check: answer.check,
      progress,
      output: request.output,
    });
    if (!ran.ok)
      return { ok: false, reason: ran.reason ?? "land-failed", error: ran.error, fix: ran.fix };
    await recordLast(effects.roster, who.label, ran.outcome);
    const warnings = await tellLand(
      effects.roster,
      {
        member: { label: who.label, id: who.id },
        lead: who.lead,
        card: who.card,
        branch: target.branch,
        worktree: target.worktree,
      },
      ran.outcome,
    );
    return { ...answer, dryRun: false, outcome: ran.outcome, log: ran.log, warnings };
  } finally {
    await claimed.claim.release();
  }
}

/** Whose work, whether the caller may land it, where it is, the check, git's folder. */
async function findLand(
  effects: LandEffects,
  request: LandRequest,
): Promise<
  { ok: true; who: Whose; target: LandTarget; check: string | undefined; folder: string } | Refused
> {
  const who = await whose(effects.roster, request.lander.id, request.target);
  if (!who.ok) return who;
  const allowed = mayLand(
    {
      label: request.lander.label,
      lead: who.lead?.toLowerCase() === request.lander.label.toLowerCase(),
      person: request.lander.person,
    },
    who.label,
  );
  if (!allowed.ok) return allowed;
  const target = await landTarget({ cwd: effects.cwd, teamDir: effects.teamDir }, who.label);
  if (!target.ok) return target;
  const check = await chooseCheck(request, target, effects.env ?? process.env);
  if (!check.ok) return check;
  const folder = await landFolder(target.main);
  if (!folder)
    return {
      ok: false,
      reason: "land-failed",
      error: "git did not say where its folder is",
      fix: "check the repository with git status",
    };
  const unready = readyLandFolder(folder);
  if (unready)
    return {
      ok: false,
      reason: "land-failed",
      error: `muster will not land there: ${unready}`,
      fix: `remove ${folder}, then land again (muster makes it anew)`,
    };
  return { ok: true, who, target, check: check.check, folder };
}

/** What would land (core's planLand over the commits, paths, leases and checkout), or why not. */
async function planWork(
  effects: LandEffects,
  found: { who: Whose; target: LandTarget; check: string | undefined },
) {
  const { who, target } = found;
  const [base, tip] = await Promise.all([
    objectOf(target.main, target.baseRef),
    objectOf(target.main, target.branchRef),
  ]);
  if (!base || !tip)
    return {
      ok: false,
      reason: "bad-branch",
      error: `${!base ? target.base : target.branch} names no commit`,
      fix: "check it with git branch --list",
    } satisfies Refused;
  const checkout = await checkoutOf(target.main, target.base);
  const [commits, paths, leases, dirty] = await Promise.all([
    commitsAhead(target.main, base, tip),
    changedPaths(target.main, base, tip),
    holdingLeases(effects.roster),
    checkout ? uncommittedPaths(checkout) : Promise.resolve(undefined),
  ]);
  const ignored = checkout ? await ignoredPaths(checkout, paths ?? []) : [];
  if (!ignored)
    return {
      ok: false,
      reason: "land-failed",
      error: `git could not say which files ${checkout} ignores`,
      fix: `check it with git -C ${checkout} status --ignored, then land again`,
    } satisfies Refused;
  if (!leases.ok)
    return {
      ok: false,
      reason: "land-failed",
      error: `the leases cannot be read: ${leases.error}`,
      fix: "check the team with muster doctor, then land again",
    } satisfies Refused;
  const plan = planLand({
    member: who.label,
    branch: target.branch,
    base: target.base,
    ahead: commits?.length ?? 0,
    paths: paths ?? [],
    memberId: who.id,
    holding: compileLeases(leases.leases),
    baseDirty: dirty,
    baseIgnored: ignored,
  });
  if (!plan.ok) return plan;
  const answer = {
    member: who.label,
    branch: target.branch,
    base: target.base,
    card: who.card,
    check: found.check,
    commits: commits?.length ?? 0,
    paths: plan.paths,
  };
  return { ok: true as const, answer: { ok: true as const, ...answer }, tip, checkout };
}
