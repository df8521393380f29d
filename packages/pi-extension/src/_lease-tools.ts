// pi's tools for path leases: team_lease and team_release (the guard that refuses another member's
// edits of leased paths is _leases.ts).
import { Type } from "typebox";
import { tool } from "./_tool.js";

export const LEASE_TOOLS = [
  tool({
    name: "team_lease",
    label: "Lease paths",
    description:
      "Tell the team which files you are about to change, so no teammate overwrites them: leases paths or globs (relative to the repository root, git's glob rules: src/auth/**, docs/*.md). Exclusive by default: another member's edits of those paths are blocked until you release them or the lease ends. Refused, with the holder's label, when a teammate already holds an overlapping lease: then ask them with team_send instead of working around it. Release with team_release when done.",
    parameters: Type.Object({
      paths: Type.Array(Type.String(), { description: 'Paths or globs, e.g. ["src/parser/**"]' }),
      reason: Type.Optional(Type.String({ description: "What you are doing, shown to others" })),
      shared: Type.Optional(
        Type.Boolean({ description: "true if others may lease it shared too (e.g. reading)" }),
      ),
      minutes: Type.Optional(
        Type.Number({ description: "How long it lasts unless renewed (default 30)" }),
      ),
    }),
    serves: { lease: true },
    async run(params, { leases, footer }) {
      const text = await leases.lease(params.paths, {
        shared: params.shared === true,
        reason: params.reason,
        minutes: params.minutes,
      });
      footer.leases();
      return { text };
    },
  }),
  tool({
    name: "team_release",
    label: "Release leased paths",
    description:
      "Give back path leases you took with team_lease, as soon as you are done with those files, so teammates can change them.",
    parameters: Type.Object({
      paths: Type.Optional(
        Type.Array(Type.String(), { description: "The patterns as leased; omit to release all" }),
      ),
    }),
    serves: { release: true },
    async run(params, { leases, footer }) {
      const text = await leases.release(params.paths ?? "all");
      footer.leases();
      return { text };
    },
  }),
];
