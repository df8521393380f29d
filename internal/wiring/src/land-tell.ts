// After a land: the member's card done and its leases on the landed paths released (green only),
// and the member and the lead told by mail. Each step that fails comes back as a warning: the
// base has moved or not by then, and nothing here changes that.
import {
  compileLeases,
  errorLine,
  type LandOutcome,
  landMailToLead,
  landMailToMember,
  leasesToRelease,
} from "@muster/core";
import { holdingLeases } from "@muster/node";
import type { Roster } from "@muster/roster";
import { changeCard, teamBoard } from "./board.ts";

export type LandParties = {
  member: { label: string; id: string | undefined };
  lead: string | undefined;
  card: string | undefined;
  branch: string;
  worktree: string;
};

/** Send `body` from muster (a guest) to `to`; a warning when it could not go. */
async function mail(roster: Roster, to: string, body: string): Promise<string[]> {
  const receipt = await roster
    .send({ from: "land", to, body, guest: "muster" })
    .catch((error: unknown) => ({ ok: false as const, error: String(error), fix: "" }));
  return receipt.ok ? [] : [`could not mail ${to}: ${errorLine(receipt as never)}`];
}

/** Finish the card, release the leases, tell the member and the lead; the warnings. */
export async function tellLand(
  roster: Roster,
  parties: LandParties,
  outcome: LandOutcome,
): Promise<string[]> {
  const warnings: string[] = [];
  const { member } = parties;
  if (outcome.result === "landed" && member.id !== undefined) {
    if (parties.card) {
      const done = await changeCard(
        teamBoard(roster),
        { label: member.label, id: member.id },
        {
          kind: "done",
          card: parties.card,
          note: `landed on ${outcome.base} as ${outcome.commit.slice(0, 12)}`,
        },
      );
      if (!done.ok) warnings.push(`card ${parties.card} is not marked done: ${done.error}`);
    }
    const read = await holdingLeases(roster);
    if (read.ok) {
      const patterns = leasesToRelease(outcome.paths, compileLeases(read.leases), member.id);
      if (patterns.length > 0) await roster.releaseLeases(member.id, patterns);
    } else warnings.push(`its leases were not released: ${read.error}`);
  }
  warnings.push(
    ...(await mail(
      roster,
      member.label,
      landMailToMember(outcome, {
        member: member.label,
        branch: parties.branch,
        worktree: parties.worktree,
      }),
    )),
  );
  if (parties.lead && parties.lead.toLowerCase() !== member.label.toLowerCase())
    warnings.push(
      ...(await mail(roster, parties.lead, landMailToLead(outcome, member.label, parties.branch))),
    );
  return warnings;
}
