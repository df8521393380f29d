// The team_diff and team_land tools: what a member's branch would land, and landing it — the
// shared wiring's memberDiff and landWork, worded for the model. An agent lands its own work (the
// lead anyone's: core's rule, in the wiring); a check from the repository's muster.toml runs only
// once the person confirmed it at their own terminal: an agent cannot confirm it from here.
import { errorLine, shownPaths } from "@muster/core";
import { hostFolder, landWork, memberDiff } from "@muster/wiring";
import * as z from "zod";
import { printableResult as answer } from "./_result.js";
import { EDIT, READ, tool } from "./_tool.js";

const LABEL = z.string().max(64);

export const LAND_TOOLS = [
  tool({
    name: "team_diff",
    title: "What a member's branch would land",
    description:
      "Show what a teammate's branch (one started with team_spawn worktree: true, branch muster/<label>) changes against the base branch: the commits ahead, the files, and the patch (or its stat). Uncommitted changes in its worktree are listed apart: a land never takes them.",
    input: {
      label: LABEL.describe("The member whose branch to show, e.g. your own label"),
      stat: z
        .boolean()
        .optional()
        .describe("true for a summary (git --stat) instead of the whole patch"),
    },
    annotations: { ...READ, readOnlyHint: true },
    serves: { diff: true },
    async run(args, call) {
      const { roster } = await call.begin();
      const teamDir = await hostFolder(roster, { cwd: call.team.cwd });
      const diff = await memberDiff({ cwd: call.team.cwd, teamDir }, args.label, {
        stat: args.stat,
      });
      if (!diff.ok)
        return answer(`No diff: ${errorLine(diff)}`, { ok: false, reason: diff.reason }, true);
      const head = `${diff.label}'s ${diff.branch}: ${diff.commits.length} commit(s) ahead of ${diff.base}, ${diff.files.length} file(s)`;
      const loose = diff.uncommitted?.length
        ? `\nNot committed (not part of a land): ${shownPaths(diff.uncommitted)}`
        : "";
      return answer(`${head}${loose}\n${diff.patch}`, { ...diff });
    },
  }),
  tool({
    name: "team_land",
    title: "Land a member's work on the base",
    description:
      "Land a member's committed work (its label, or a card it holds like c12) on the base branch: its commits are rebased onto the base in a scratch worktree, the check runs there, and the base moves only if the check passes and nobody moved it meanwhile. Green: its card is done, its leases on the landed paths released, it and the lead are mailed. A conflict or a failing check leaves the base as it was and mails the member why. You may land your own work; the board's lead anyone's. One land runs at a time per team: this waits its turn unless no_wait is true.",
    input: {
      target: LABEL.describe("A member's label (usually your own), or a card id like c12"),
      check: z
        .string()
        .max(4_000)
        .optional()
        .describe("A command to run on the result instead of muster.toml's [land] check"),
      no_check: z.boolean().optional().describe("true to land without any check"),
      dry_run: z.boolean().optional().describe("true to say what would land, changing nothing"),
      no_wait: z.boolean().optional().describe("true to be told who is landing instead of waiting"),
    },
    annotations: EDIT,
    serves: { land: true },
    async run(args, call) {
      const { roster, standpoint } = await call.begin();
      if (standpoint.kind !== "member")
        return answer(
          `Not landed: you are not on the team (${standpoint.error}).`,
          { ok: false, reason: "guest" },
          true,
        );
      const teamDir = await hostFolder(roster, { cwd: call.team.cwd });
      const landed = await landWork(
        { roster, teamDir, cwd: call.team.cwd },
        {
          target: args.target,
          lander: { label: standpoint.label, id: standpoint.caller.id },
          check: args.check,
          noCheck: args.no_check,
          dryRun: args.dry_run,
          noWait: args.no_wait,
        },
      );
      if (!landed.ok)
        return answer(
          `Not landed: ${errorLine(landed)}`,
          { ok: false, reason: landed.reason },
          true,
        );
      const outcome = landed.outcome;
      const what = `${landed.member}'s ${landed.branch} (${landed.commits} commit(s), ${landed.paths.length} file(s))`;
      if (!outcome) return answer(`Would land ${what} on ${landed.base}.`, { ...landed });
      if (outcome.result === "landed")
        return answer(
          [
            `Landed ${what} on ${landed.base} as ${outcome.commit.slice(0, 12)}.`,
            ...landed.warnings,
          ].join("\n"),
          { ...landed },
        );
      const why =
        outcome.result === "conflict"
          ? `it conflicts with ${landed.base} in ${shownPaths(outcome.files)}`
          : outcome.result === "check-failed"
            ? `the check failed (${outcome.code}):\n${outcome.tail}`
            : `${landed.base} moved twice during the check`;
      return answer(
        `Not landed: ${why}. The base is unchanged; ${landed.member} was mailed.`,
        { ...landed, ok: false },
        true,
      );
    },
  }),
];
