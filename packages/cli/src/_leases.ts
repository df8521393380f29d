// `muster lease`, `muster release`, `muster guard`: path leases from a shell. The rules are core's,
// the files the roster's, the wiring @muster/node's; this file renders and turns refusals into exits.
import {
  blockedPathLine,
  describeLease,
  errorLine,
  leaseRefusalLine,
  printable,
} from "@muster/core";
import {
  holdingLeases,
  pathsBlocked,
  repoFacts,
  repoPattern,
  stagedPaths,
  takeLease,
} from "@muster/node";
import type { LeaseEntry, Member } from "@muster/roster";
import { type Context, Refusal, UsageError, unreadable } from "./_context.js";
import { notMember, resolveCaller } from "./_identity.js";

const ask = (holder: string) => `muster send ${holder} "…"`;
const clock = (at: number) => new Date(at).toISOString().slice(11, 16);

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

const leaseJson = (lease: LeaseEntry) => ({
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

export async function leaseCommand(context: Context, options: LeaseOptions) {
  if (options.list || options.patterns.length === 0) return listLeases(context);
  const [member, facts, roster] = await Promise.all([
    callerMember(context, options.id),
    repoFacts(context.io.cwd),
    context.roster(),
  ]);
  const taken = [];
  for (const typed of options.patterns) {
    const pattern = repoPattern(typed, facts.root);
    if (!pattern.ok) throw new UsageError(pattern.error);
    const answer = await takeLease(
      roster,
      {
        holderId: member.id,
        holder: member.label,
        pattern: pattern.pattern,
        mode: options.shared ? "shared" : "exclusive",
        reason: options.reason,
        ttlMs: options.ttlMs,
      },
      facts.ignoreCase,
    );
    if (!answer.ok) {
      if (answer.reason === "refused") {
        const lease = answer.refusal.lease;
        throw new Refusal(
          "lease-held",
          leaseRefusalLine(pattern.pattern, answer.refusal, clock, ask),
          {
            pattern: pattern.pattern,
            holder: lease.holder,
            heldPattern: lease.pattern,
            heldReason: lease.reason ?? null,
            expiresAt: new Date(lease.expiresAt).toISOString(),
            taken: taken.map((entry) => entry.pattern),
          },
        );
      }
      throw new Refusal(
        answer.reason,
        errorLine({ error: `cannot lease ${pattern.pattern}: ${answer.error}`, fix: answer.fix }),
      );
    }
    taken.push({ ...leaseJson(answer.lease), renewed: answer.renewed });
  }
  if (context.json) return context.emit({ ok: true, leases: taken });
  for (const lease of taken)
    context.out(
      printable(
        `${lease.renewed ? "Renewed" : "Leased"} ${lease.pattern} (${lease.mode}) until ${clock(Date.parse(lease.expiresAt))}.`,
      ),
    );
}

async function listLeases(context: Context) {
  const roster = await context.roster();
  const read = await holdingLeases(roster);
  if (!read.ok) throw unreadable("unknown", read);
  for (const warning of read.warnings) context.warn(printable(warning));
  if (context.json)
    return context.emit({
      ok: true,
      leases: read.leases.map(leaseJson),
      released: read.released.map(leaseJson),
    });
  for (const lease of read.released)
    context.out(printable(`Released ${lease.pattern} of ${lease.holder}: its holder is gone.`));
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
  if (context.json)
    return context.emit({ ok: missing.length === 0, released: released.released, missing });
  if (released.released.length > 0)
    context.out(printable(`Released ${released.released.join(", ")}.`));
  if (missing.length > 0)
    throw new Refusal(
      "not-held",
      printable(`you hold no lease on ${missing.join(", ")}; see muster lease --list`),
      { quiet: context.json },
    );
  if (released.released.length === 0) context.out("You held no leases.");
}

/**
 * The pre-commit guard: refuse a commit that touches paths another live member holds exclusively.
 * `--warn` (or MUSTER_GUARD=warn) only warns; `git commit --no-verify` skips every hook.
 */
export async function guardCommand(context: Context, options: { warn: boolean }) {
  const warnOnly = options.warn || context.io.env.MUSTER_GUARD === "warn";
  const [staged, facts] = await Promise.all([
    stagedPaths(context.io.cwd),
    repoFacts(context.io.cwd),
  ]);
  if (!staged.ok) throw new Refusal("no-git", `cannot list the staged paths: ${staged.error}`);
  const roster = await context.roster();
  const read = await holdingLeases(roster);
  if (!read.ok) {
    // No word from the roster is no lease: a guard that cannot read must not block every commit.
    context.warn(printable(`${read.error}; leases were not checked`));
    return context.json ? context.emit({ ok: true, checked: false, blocked: [] }) : undefined;
  }
  const caller = await resolveCaller(context).catch(() => undefined);
  const blocked = pathsBlocked(staged.paths, read.leases, caller?.id, facts.ignoreCase);
  const document = {
    ok: blocked.length === 0 || warnOnly,
    checked: true,
    paths: staged.paths.length,
    blocked: blocked.map((entry) => ({
      path: entry.path,
      ...leaseJson(entry.lease as LeaseEntry),
    })),
  };
  if (context.json) context.emit(document);
  for (const entry of blocked)
    context.io.stderr.write(`muster guard: ${printable(blockedPathLine(entry, clock, ask))}\n`);
  if (blocked.length === 0 || warnOnly) return;
  throw new Refusal(
    "lease-held",
    `commit refused: ${blocked.length} path(s) leased by other members; release or ask them, or commit with --no-verify if you mean it`,
    { quiet: true },
  );
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
