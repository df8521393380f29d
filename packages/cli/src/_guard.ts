// `muster guard`: the git guard, run by the hooks `muster install git-hook` writes (_git-hook.ts)
// before a change reaches a commit. The rules are core's, the lease files the roster's, the staged
// paths and lease wiring @muster/node's; this file turns a blocked path into a refused commit.
import { blockedPathLine, printable, uncheckedLine } from "@muster/core";
import { holdingLeases, pathsBlocked, repoFacts, stagedPaths } from "@muster/node";
import type { LeaseEntry } from "@muster/roster";
import { type Context, Refusal } from "./_context.js";
import { resolveCaller } from "./_identity.js";
import { ask, clock, leaseJson } from "./_leases.js";

/**
 * The pre-commit guard: refuse a commit that touches paths another live member holds exclusively,
 * and one it cannot check (the leases cannot be read). `--warn` (or MUSTER_GUARD=warn) only warns;
 * `git commit --no-verify` skips every hook.
 */
export async function guardCommand(context: Context, options: { warn: boolean }) {
  const warnOnly = options.warn || context.io.env.MUSTER_GUARD === "warn";
  const [staged, facts] = await Promise.all([
    stagedPaths(context.io.cwd),
    repoFacts(context.io.cwd),
  ]);
  if (!staged.ok) throw new Refusal("no-git", `cannot list the staged paths: ${staged.error}`);
  // A team folder that cannot be opened is leases that cannot be read.
  const read = await context.roster().then(
    (roster) => holdingLeases(roster),
    (error: unknown) => ({ ok: false as const, error: (error as Error).message }),
  );
  if (!read.ok) {
    // A guard that cannot read the leases cannot say the commit touches none: it refuses, unless
    // the person chose to be warned only.
    if (!warnOnly) throw new Refusal("unchecked", uncheckedLine("This commit", read.error));
    context.warn(printable(`${read.error}; leases were not checked`));
    return context.json ? context.emit({ ok: true, checked: false, blocked: [] }) : undefined;
  }
  // A committer muster cannot tell holds nothing: every lease counts against it, saying why.
  const caller = await resolveCaller(context).then(
    (found) => ({ id: found.id, unknown: "" }),
    (error: Error) => ({
      id: undefined,
      unknown: `; muster cannot tell who commits (${error.message})`,
    }),
  );
  const blocked = pathsBlocked(staged.paths, read.leases, caller.id, facts.ignoreCase);
  const document = {
    checked: true,
    paths: staged.paths.length,
    blocked: blocked.map((entry) => ({
      path: entry.path,
      ...leaseJson(entry.lease as LeaseEntry),
    })),
  };
  for (const entry of blocked)
    context.io.stderr.write(`muster guard: ${printable(blockedPathLine(entry, clock, ask))}\n`);
  if (blocked.length === 0 || warnOnly) return context.json ? context.emit(document) : undefined;
  throw new Refusal(
    "lease-held",
    {
      error: `commit refused: ${blocked.length} path(s) leased by other members${printable(caller.unknown)}`,
      fix: "release or ask them, or commit with --no-verify if you mean it",
    },
    document,
  );
}
