// Landing work from pi: the `team_diff` and `team_land` tools. The caller is this pi session, on
// the team under its label; the diff and the land themselves are the shared wiring's memberDiff and
// landWork (core decides who may land whose work). This file wires and words the answer.
import { errorLine, shownPaths } from "@muster/core";
import { hostFolder, landWork, memberDiff } from "@muster/wiring";
import { Type } from "typebox";
import { tool } from "./_tool.js";

export const LAND_TOOLS = [
  tool({
    name: "team_diff",
    label: "What a member's branch would land",
    description:
      "Show what a teammate's branch (one spawned with a worktree, branch muster/<label>) changes against the base branch: the commits ahead, the files, and the patch (or its stat). Uncommitted changes in its worktree are listed apart: a land never takes them.",
    parameters: Type.Object({
      label: Type.String({ description: "The member whose branch to show, e.g. your own label" }),
      stat: Type.Optional(Type.Boolean({ description: "true for a summary instead of the patch" })),
    }),
    serves: { diff: true },
    async run(params, { team }) {
      const session = team();
      if (!session?.roster) return { text: "No diff: muster has no team folder here." };
      const cwd = session.options.cwd;
      const teamDir = await hostFolder(session.roster, { cwd });
      const diff = await memberDiff({ cwd, teamDir }, params.label, { stat: params.stat });
      if (!diff.ok)
        return { text: `No diff: ${errorLine(diff)}`, details: { ok: false, reason: diff.reason } };
      const loose = diff.uncommitted?.length
        ? `\nNot committed (not part of a land): ${shownPaths(diff.uncommitted)}`
        : "";
      return {
        text: `${diff.label}'s ${diff.branch}: ${diff.commits.length} commit(s) ahead of ${diff.base}, ${diff.files.length} file(s)${loose}\n${diff.patch}`,
        details: { ...diff },
      };
    },
  }),
  tool({
    name: "team_land",
    label: "Land a member's work",
    description:
      "Land a member's committed work (its label, or a card it holds like c12) on the base branch: rebased onto the base in a scratch worktree, checked there, and the base moved only if the check passes. Green: its card is done, its leases on the landed paths released, it and the lead mailed. A conflict or a failing check leaves the base as it was and mails the member why. You may land your own work; the board's lead anyone's. One land runs at a time per team.",
    parameters: Type.Object({
      target: Type.String({
        description: "A member's label (usually your own), or a card id like c12",
      }),
      check: Type.Optional(
        Type.String({ description: "A command to run on the result instead of muster.toml's" }),
      ),
      no_check: Type.Optional(Type.Boolean({ description: "true to land without any check" })),
      dry_run: Type.Optional(
        Type.Boolean({ description: "true to say what would land, changing nothing" }),
      ),
      no_wait: Type.Optional(
        Type.Boolean({ description: "true to be told who is landing instead of waiting" }),
      ),
    }),
    serves: { land: true },
    async run(params, { team }) {
      const session = team();
      const standing = session?.standing;
      if (!session?.roster || !standing?.ok)
        return { text: "Not landed: this session is not on the team." };
      const cwd = session.options.cwd;
      const landed = await landWork(
        { roster: session.roster, teamDir: await hostFolder(session.roster, { cwd }), cwd },
        {
          target: params.target,
          lander: { label: standing.label, id: session.options.id },
          check: params.check,
          noCheck: params.no_check,
          dryRun: params.dry_run,
          noWait: params.no_wait,
        },
      );
      if (!landed.ok)
        return {
          text: `Not landed: ${errorLine(landed)}`,
          details: { ok: false, reason: landed.reason },
        };
      const outcome = landed.outcome;
      const what = `${landed.member}'s ${landed.branch} (${landed.commits} commit(s), ${landed.paths.length} file(s))`;
      if (!outcome)
        return { text: `Would land ${what} on ${landed.base}.`, details: { ...landed } };
      if (outcome.result === "landed")
        return {
          text: [
            `Landed ${what} on ${landed.base} as ${outcome.commit.slice(0, 12)}.`,
            ...landed.warnings,
          ].join("\n"),
          details: { ...landed },
        };
      const why =
        outcome.result === "conflict"
          ? `it conflicts with ${landed.base} in ${shownPaths(outcome.files)}`
          : outcome.result === "check-failed"
            ? `the check failed (${outcome.code}):\n${outcome.tail}`
            : `${landed.base} moved twice during the check`;
      return {
        text: `Not landed: ${why}. The base is unchanged; ${landed.member} was mailed.`,
        details: { ...landed, ok: false },
      };
    },
  }),
];
