// Path leases for MCP engines: the team_lease / team_release / team_leases tools. Rules are
// core's, files the roster's, wiring @muster/node's; these rows word the results.
import { DEFAULT_LEASE_MS, describeLease, errorLine, leaseRefusalLine } from "@muster/core";
import { holdingLeases, repoFacts, repoPattern, takeLease } from "@muster/node";
import type { Roster } from "@muster/roster";
import * as z from "zod";
import { printableResult as answer } from "./_result.js";
import type { Standpoint } from "./_team.js";
import { tool } from "./_tool.js";

const clock = (at: number) => new Date(at).toISOString().slice(11, 16);
const ask = (holder: string) => `team_send to "${holder}"`;

type LeaseAsk = { shared?: boolean | undefined; reason?: string | undefined; minutes?: number };
type Leased = { line: string; entry: Record<string, unknown> };

/** Lease one typed path or glob for the member: its line and its facts. */
async function leaseOne(
  roster: Roster,
  member: Extract<Standpoint, { kind: "member" }>,
  typed: string,
  facts: Awaited<ReturnType<typeof repoFacts>>,
  args: LeaseAsk,
): Promise<Leased> {
  const pattern = repoPattern(typed, facts.root);
  if (!pattern.ok)
    return {
      line: `Not leased: ${pattern.error}.`,
      entry: { pattern: typed, ok: false, reason: "bad-pattern" },
    };
  const taken = await takeLease(
    roster,
    {
      holderId: member.caller.id,
      holder: member.label,
      pattern: pattern.pattern,
      mode: args.shared ? "shared" : "exclusive",
      reason: args.reason,
      ttlMs: args.minutes === undefined ? DEFAULT_LEASE_MS : args.minutes * 60_000,
    },
    facts.ignoreCase,
  );
  if (taken.ok)
    return {
      line: `${taken.renewed ? "Renewed" : "Leased"} ${taken.lease.pattern} until ${clock(taken.lease.expiresAt)}.`,
      entry: {
        pattern: taken.lease.pattern,
        ok: true,
        expiresAt: new Date(taken.lease.expiresAt).toISOString(),
      },
    };
  if (taken.reason === "refused")
    return {
      line: `Not leased: ${leaseRefusalLine(pattern.pattern, taken.refusal, clock, ask)}`,
      entry: {
        pattern: pattern.pattern,
        ok: false,
        reason: "lease-held",
        holder: taken.refusal.lease.holder,
      },
    };
  return {
    line: `Not leased: ${errorLine(taken)}.`,
    entry: { pattern: pattern.pattern, ok: false, reason: taken.reason },
  };
}

export const LEASE_TOOLS = [
  tool({
    name: "team_lease",
    title: "Lease paths",
    description:
      "Tell the team which files you are about to change, so no teammate overwrites them: leases paths or globs relative to the repository root (git's glob rules: src/auth/**, docs/*.md). Exclusive by default. Refused, naming the holder, when a teammate already holds an overlapping lease: then ask them with team_send instead of working around it. Release with team_release when done.",
    input: {
      paths: z.array(z.string()).min(1).max(32).describe('Paths or globs, e.g. ["src/parser/**"]'),
      reason: z.string().max(200).optional().describe("What you are doing, shown to others"),
      shared: z.boolean().optional().describe("true if others may hold it shared too"),
      minutes: z.number().min(1).max(1440).optional().describe("How long (default 30)"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    serves: { lease: true },
    async run(args, call) {
      const { roster, standpoint } = await call.begin();
      if (standpoint.kind !== "member")
        return answer(
          `Not leased: you are not on the team (${standpoint.error}).`,
          { ok: false, leases: [] },
          true,
        );
      const facts = await repoFacts(call.team.cwd);
      const each: Leased[] = [];
      for (const typed of args.paths)
        each.push(await leaseOne(roster, standpoint, typed, facts, args));
      const leases = each.map((leased) => leased.entry);
      const ok = leases.every((entry) => entry.ok === true);
      return answer(each.map((leased) => leased.line).join("\n"), { ok, leases }, !ok);
    },
  }),
  tool({
    name: "team_release",
    title: "Release leased paths",
    description:
      "Give back path leases you took with team_lease as soon as you are done with those files, so teammates can change them. Omit paths to release all of yours.",
    input: {
      paths: z.array(z.string()).max(32).optional().describe("The patterns as leased"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    serves: { release: true },
    async run(args, call) {
      const { roster, standpoint } = await call.begin();
      if (standpoint.kind !== "member")
        return answer("You hold no leases: you are not on the team.", { ok: true, released: [] });
      const { root } = await repoFacts(call.team.cwd);
      const patterns = args.paths
        ? args.paths.flatMap((typed) => {
            const pattern = repoPattern(typed, root);
            return pattern.ok ? [pattern.pattern] : [];
          })
        : "all";
      const released = await roster.releaseLeases(standpoint.caller.id, patterns);
      if (!released.ok)
        return answer(`Not released: ${released.error}.`, { ok: false, released: [] }, true);
      return answer(
        released.released.length > 0
          ? `Released ${released.released.join(", ")}.`
          : "You held no lease on that.",
        { ok: true, released: released.released },
      );
    },
  }),
  tool({
    name: "team_leases",
    title: "Path leases",
    description:
      "List the path leases that hold on this repository: which teammate is changing which files, why, and until when. Check it before starting on files a teammate may be changing.",
    input: {},
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    serves: { leases: true },
    async run(_args, call) {
      const { roster } = await call.begin();
      const read = await holdingLeases(roster);
      if (!read.ok)
        return answer(`The leases cannot be read: ${read.error}.`, { ok: false, leases: [] }, true);
      const lines = read.leases.map(
        (lease) => `- ${lease.pattern}: ${describeLease(lease, clock)}`,
      );
      return answer(lines.length > 0 ? `Leases:\n${lines.join("\n")}` : "No leases.", {
        ok: true,
        leases: read.leases.map((lease) => ({
          pattern: lease.pattern,
          mode: lease.mode,
          holder: lease.holder,
          reason: lease.reason ?? null,
          expiresAt: new Date(lease.expiresAt).toISOString(),
        })),
      });
    },
  }),
];
