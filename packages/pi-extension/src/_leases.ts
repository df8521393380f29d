// Path leases inside pi: an edit or write tool call on a path another live member leased
// exclusively is blocked, and the model is told whom to ask; `team_lease` and `team_release` take
// and give back leases. Rules are core's, files the roster's, wiring @muster/node's. The path is
// read as pi's own tools read it (a leading `@`, `~`, a `file://` URL) and followed through its
// symlinks; a check that cannot decide blocks, with the reason (MUSTER_GUARD=warn: it warns).
import { homedir } from "node:os";
import {
  blockedPathLine,
  DEFAULT_LEASE_MS,
  errorLine,
  leaseRefusalLine,
  printable,
  uncheckedLine,
} from "@muster/core";
import {
  checkEdit,
  holdingLeases,
  type RepoFacts,
  repoFacts,
  repoPattern,
  takeLease,
} from "@muster/node";
import type { Roster } from "@muster/roster";
import { errorMessage } from "@muster/wiring";

/** How a pi model reaches a holder. */
const ask = (holder: string) => `team_send to "${holder}"`;
const clock = (at: number) => new Date(at).toISOString().slice(11, 16);

/** Tools whose `path` argument names a file they change. */
const EDITING_TOOLS = new Set(["edit", "write"]);

export type LeaseSeat = {
  roster: Roster | undefined;
  id: string;
  cwd: string;
  /** The label this session is on the team under; undefined when it is not on it. */
  label: () => string | undefined;
};

/** How the guard tells the person what it let through unchecked (MUSTER_GUARD=warn). */
export type GuardWarn = (line: string) => void;

/** What the guard's doors share: the seat found anew at each call, the warning, the repo's facts. */
type Guard = {
  seat: () => LeaseSeat | undefined;
  warn: GuardWarn;
  repo: (cwd: string) => Promise<RepoFacts>;
};

/** The lease guard and lease doors of a pi session: one line back from each. */
export function createLeaseGuard(seat: () => LeaseSeat | undefined, warn: GuardWarn = () => {}) {
  let facts: Promise<RepoFacts> | undefined;
  const guard: Guard = {
    seat,
    warn,
    repo: (cwd) => {
      facts ??= repoFacts(cwd);
      return facts;
    },
  };
  return {
    onToolCall: (event: ToolCall) => onToolCall(guard, event),
    lease: (patterns: readonly string[], options: LeaseOptions) => lease(guard, patterns, options),
    release: (patterns: readonly string[] | "all") => release(guard, patterns),
    mine: () => mine(guard),
  };
}

type ToolCall = { toolName: string; input: Record<string, unknown> };
type LeaseOptions = { shared: boolean; reason?: string; minutes?: number };

/** Why this edit may not go on, or undefined; whatever cannot be decided is a reason. */
async function verdict(guard: Guard, file: unknown): Promise<string | undefined> {
  const where = guard.seat();
  if (typeof file !== "string") return uncheckedLine("This edit", "it names no file");
  if (!where?.roster)
    return uncheckedLine(file, "this session has no team folder open (see /team status)");
  const check = await checkEdit(where.roster, {
    file,
    cwd: where.cwd,
    memberId: where.id,
    spelling: "pi",
    home: homedir(),
    facts: await guard.repo(where.cwd),
  });
  if (check.ok) return undefined;
  return check.reason === "lease-held"
    ? blockedPathLine(check.blocked, clock, ask)
    : uncheckedLine(file, check.error);
}

/** pi's `tool_call` handler: block an edit of another member's exclusive lease. */
async function onToolCall(guard: Guard, event: ToolCall) {
  if (!EDITING_TOOLS.has(event.toolName)) return undefined;
  const found = await verdict(guard, event.input.path).catch((error: unknown) =>
    uncheckedLine("This edit", errorMessage(error)),
  );
  if (found === undefined) return undefined;
  // It quotes the holder's lease reason, which another member wrote: pi hands it to the model.
  const reason = printable(found);
  if (process.env.MUSTER_GUARD === "warn") {
    guard.warn(`muster guard (warn only): ${reason}`);
    return undefined;
  }
  return { block: true, reason };
}

/** `team_lease`: take or renew leases; one line for each pattern. */
async function lease(guard: Guard, patterns: readonly string[], options: LeaseOptions) {
  const where = guard.seat();
  const label = where?.label();
  if (!where?.roster || !label)
    return "Not leased: this session is not on the team; /team join <label> first.";
  const { root, ignoreCase } = await guard.repo(where.cwd);
  const lines: string[] = [];
  for (const typed of patterns) {
    const pattern = repoPattern(typed, root);
    if (!pattern.ok) {
      lines.push(`Not leased: ${pattern.error}.`);
      continue;
    }
    const answer = await takeLease(
      where.roster,
      {
        holderId: where.id,
        holder: label,
        pattern: pattern.pattern,
        mode: options.shared ? "shared" : "exclusive",
        reason: options.reason,
        ttlMs: options.minutes === undefined ? DEFAULT_LEASE_MS : options.minutes * 60_000,
      },
      ignoreCase,
    );
    lines.push(
      answer.ok
        ? `${answer.renewed ? "Renewed" : "Leased"} ${answer.lease.pattern} (${answer.lease.mode}) until ${clock(answer.lease.expiresAt)}.`
        : answer.reason === "refused"
          ? `Not leased: ${leaseRefusalLine(pattern.pattern, answer.refusal, clock, ask)}`
          : `Not leased: ${errorLine(answer)}.`,
    );
  }
  return lines.join("\n");
}

/** `team_release`: give back leases on these patterns, or all. */
async function release(guard: Guard, patterns: readonly string[] | "all") {
  const where = guard.seat();
  if (!where?.roster) return "No team folder: nothing to release.";
  const { root } = await guard.repo(where.cwd);
  const normal =
    patterns === "all"
      ? "all"
      : patterns.flatMap((typed) => {
          const pattern = repoPattern(typed, root);
          return pattern.ok ? [pattern.pattern] : [];
        });
  const released = await where.roster.releaseLeases(where.id, normal);
  if (!released.ok) return `Not released: ${released.error}.`;
  return released.released.length > 0
    ? `Released ${released.released.join(", ")}.`
    : "You held no lease on that.";
}

/** This session's leases, for the footer: `src/auth/** +1`, or undefined. */
async function mine(guard: Guard): Promise<string | undefined> {
  const where = guard.seat();
  if (!where?.roster) return undefined;
  const read = await holdingLeases(where.roster);
  if (!read.ok) return undefined;
  const own = read.leases.filter((entry) => entry.holderId === where.id);
  const first = own[0];
  if (!first) return undefined;
  return own.length > 1 ? `${first.pattern} +${own.length - 1}` : first.pattern;
}
