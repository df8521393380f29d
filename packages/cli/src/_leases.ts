// `muster lease`, `muster release`: path leases from a shell (`muster guard` is _guard.ts). The rules are core's,
// the files the roster's, the wiring @muster/node's; this file renders and turns refusals into exits.

import path from "node:path";
import {
  advisoryLine,
  checkLeaseRequest,
  compileLeases,
  describeLease,
  type LeaseConflict,
  leaseRefusalLine,
  MEMBER_USE,
  printable,
  unmatchedLine,
  unmatchedPatterns,
} from "@muster/core";
import {
  gitHooksFolder,
  holdingLeases,
  readRegularFile,
  repoFacts,
  repoFiles,
  repoPattern,
  takeLease,
} from "@muster/node";
import type { LeaseEntry, Member, Roster } from "@muster/roster";
import { actAsCaller } from "./_acting.js";
import { type Context, refused, UsageError, unreadable } from "./_context.js";
import { MARKER } from "./_git-hook.js";
import { notMember, resolveCaller } from "./_identity.js";
import { actingCaller } from "./_membership.js";

export const ask = (holder: string) => `muster send ${holder} "…"`;
export const clock = (at: number) => new Date(at).toISOString().slice(11, 16);

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `2h`, `90s`, `1d` (or a bare number of minutes) in milliseconds. */
export function parseTtl(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/u.exec(text.trim());
  if (!match) throw new UsageError(`--ttl takes a duration like 30m, 2h or 90s, not "${text}"`);
  const ms = Number(match[1]) * (UNITS[match[2] || "m"] as number);
  if (ms < 1_000 || ms > 7 * UNITS.d!) throw new UsageError("--ttl must be between 1s and 7d");
  return ms;
}

/** The member this shell belongs to, live on the roster; refused with the fix when it is not. */
async function callerMember(context: Context, explicitId?: string): Promise<Member> {
  const [caller, roster] = await Promise.all([
    resolveCaller(context, explicitId),
    context.roster(),
  ]);
  const read = await roster.read();
  if (!read.ok) throw unreadable("unknown", read);
  const member = read.members.find((entry) => entry.id === caller.id && entry.state === "live");
  if (!member) throw notMember(caller);
  return member;
}

export const leaseJson = (lease: LeaseEntry) => ({
  id: lease.id,
  pattern: lease.pattern,
  mode: lease.mode,
  holder: lease.holder,
  holderId: lease.holderId,
  holderState: lease.holderState,
  reason: lease.reason ?? null,
  takenAt: new Date(lease.takenAt).toISOString(),
  expiresAt: new Date(lease.expiresAt).toISOString(),
});

export type LeaseOptions = {
  patterns: string[];
  shared: boolean;
  ttlMs: number;
  reason?: string | undefined;
  list: boolean;
  id?: string | undefined;
};

/** The refusal of a lease another member's holding lease overlaps. */
function heldRefusal(
  pattern: string,
  refusal: LeaseConflict,
  taken: readonly { pattern: string }[],
) {
  const lease = refusal.lease;
  return refused("lease-held", leaseRefusalLine(pattern, refusal, clock, ask), {
    pattern,
    holder: lease.holder,
    heldPattern: lease.pattern,
    heldReason: lease.reason ?? null,
    expiresAt: new Date(lease.expiresAt).toISOString(),
    taken: taken.map((entry) => entry.pattern),
  });
}

export async function leaseCommand(context: Context, options: LeaseOptions) {
  if (options.list || options.patterns.length === 0) return listLeases(context);
  const [caller, facts, roster] = await Promise.all([
    actingCaller(context, options.id),
    repoFacts(context.io.cwd),
    context.roster(),
  ]);
  // The input first, whoever asks: a pattern that is not one is a usage error, with nothing taken.
  const patterns = options.patterns.map((typed) => {
    const pattern = repoPattern(typed, facts.root);
    if (!pattern.ok) throw new UsageError(pattern.error);
    return pattern.pattern;
  });
  const mode = options.shared ? "shared" : "exclusive";
  const acted = await actAsCaller(context, caller, MEMBER_USE.lease!, {
    purpose: `to lease ${patterns.join(" ")}`,
    // A caller not on the team is refused before it joins when another member holds a path.
    check: async (wouldBe) => {
      const read = await holdingLeases(roster);
      if (!read.ok) return unreadable("unknown", read).refused;
      const holding = compileLeases(read.leases, facts.ignoreCase);
      for (const pattern of patterns) {
        const verdict = checkLeaseRequest(
          { holderId: wouldBe.id, pattern, mode },
          holding,
          facts.ignoreCase,
        );
        if (!verdict.ok) return heldRefusal(pattern, verdict, []);
      }
      return undefined;
    },
    act: (member) => takeAll(roster, member, patterns, options, facts.ignoreCase),
  });
  if (!acted.ok) return acted;
  const { result: taken, joined } = acted;
  const warnings = await leaseNotes(context.io.cwd, facts, patterns);
  if (context.json) return context.emit({ ok: true, leases: taken, joined, warnings });
  for (const lease of taken)
    context.out(
      printable(
        `${lease.renewed ? "Renewed" : "Leased"} ${lease.pattern} (${lease.mode}) until ${clock(Date.parse(lease.expiresAt))}.`,
      ),
    );
  for (const warning of warnings) context.warn(warning);
}

/**
 * What the taker should know besides the leases: a pattern that covers no file (a typo), and that
 * commits are not checked where muster's git hook is not installed. Outside git, nothing.
 */
async function leaseNotes(
  cwd: string,
  facts: { root: string | undefined; ignoreCase: boolean },
  patterns: readonly string[],
): Promise<string[]> {
  if (facts.root === undefined) return [];
  const [files, folder] = await Promise.all([repoFiles(facts.root), gitHooksFolder(cwd)]);
  const notes = files
    ? unmatchedPatterns(patterns, files, facts.ignoreCase).map(unmatchedLine)
    : [];
  // muster writes its hook as a regular file; anything else (none, a FIFO, a link) is not its own.
  let hook: string | undefined;
  try {
    hook = folder ? readRegularFile(path.join(folder, "pre-commit")) : undefined;
  } catch {
    hook = undefined;
  }
  if (!hook?.includes(MARKER)) notes.push(advisoryLine());
  return notes;
}

/** Take each lease in turn as `member`; the first refused one ends it, naming those taken. */
async function takeAll(
  roster: Roster,
  member: { id: string; label: string },
  patterns: readonly string[],
  options: LeaseOptions,
  ignoreCase: boolean,
) {
  const taken = [];
  for (const pattern of patterns) {
    const answer = await takeLease(
      roster,
      {
        holderId: member.id,
        holder: member.label,
        pattern,
        mode: options.shared ? "shared" : "exclusive",
        reason: options.reason,
        ttlMs: options.ttlMs,
      },
      ignoreCase,
    );
    if (!answer.ok) {
      if (answer.reason === "refused") return heldRefusal(pattern, answer.refusal, taken);
      return refused(answer.reason, {
        error: `cannot lease ${pattern}: ${answer.error}`,
        fix: answer.fix,
      });
    }
    taken.push({ ...leaseJson(answer.lease), renewed: answer.renewed });
  }
  return taken;
}

async function listLeases(context: Context) {
  const roster = await context.roster();
  const read = await holdingLeases(roster);
  if (!read.ok) throw unreadable("unknown", read);
  for (const warning of read.warnings) context.warn(printable(warning));
  // A read changes nothing: a lease that lapsed is said to be lapsed, and the next lease clears it.
  if (context.json)
    return context.emit({
      ok: true,
      leases: read.leases.map(leaseJson),
      lapsed: read.lapsed.map(leaseJson),
      released: [],
    });
  for (const lease of read.lapsed)
    context.out(printable(`Lapsed: ${lease.pattern} of ${lease.holder} no longer holds.`));
  if (read.leases.length === 0) return context.out("No leases.");
  for (const lease of read.leases)
    context.out(printable(`${lease.pattern.padEnd(24)} ${describeLease(lease, clock)}`));
}

export async function releaseCommand(
  context: Context,
  options: { patterns: string[]; all: boolean; id?: string | undefined },
) {
  if (options.all === options.patterns.length > 0)
    throw new UsageError("name the patterns to release, or pass --all");
  const [member, facts, roster] = await Promise.all([
    callerMember(context, options.id),
    repoFacts(context.io.cwd),
    context.roster(),
  ]);
  const patterns: string[] = [];
  for (const typed of options.patterns) {
    const pattern = repoPattern(typed, facts.root);
    if (!pattern.ok) throw new UsageError(pattern.error);
    patterns.push(pattern.pattern);
  }
  const released = await roster.releaseLeases(member.id, options.all ? "all" : patterns);
  if (!released.ok) throw unreadable("unknown", released);
  const missing = patterns.filter((pattern) => !released.released.includes(pattern));
  if (missing.length === 0 && context.json)
    return context.emit({ released: released.released, missing });
  if (released.released.length > 0 && !context.json)
    context.out(printable(`Released ${released.released.join(", ")}.`));
  // What was released stays released; the document says so beside the refusal.
  if (missing.length > 0)
    return refused(
      "not-held",
      {
        error: printable(`you hold no lease on ${missing.join(", ")}`),
        fix: "see muster lease --list",
      },
      { released: released.released, missing },
    );
  if (released.released.length === 0) context.out("You held no leases.");
}

/** The leases that hold, for `muster status`: a JSON list and a short section (empty when none). */
export async function leaseSection(context: Context) {
  const read = await holdingLeases(await context.roster()).catch(() => undefined);
  if (!read?.ok) return { json: null, text: "" };
  const lines = read.leases.map(
    (lease) => `  ${printable(lease.pattern).padEnd(24)} ${printable(describeLease(lease, clock))}`,
  );
  return {
    json: read.leases.map(leaseJson),
    text:
      lines.length > 0
        ? `\n\n${context.color.bold(`Leases (${lines.length})`)}\n${lines.join("\n")}`
        : "",
  };
}
