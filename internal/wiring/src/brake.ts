// Telling of a braked conversation, once (the roster's `brake.<conversation>` claim decides which
// send is first): a mail to the board's lead, when there is one, and the person through the
// alert path (one of the team's alert slots, on the tmux server of a member of the conversation).
// The rule (the budget, the words) is core's; this only carries it.
import { ownerVerdict } from "@muster/core";
import { brakeLine } from "@muster/core/internal";
import type { Receipt, Roster } from "@muster/roster";
import { type AlertOptions, alertSlot, raiseAlert } from "./attention.ts";

export type BrakeTold = { lead: string | undefined; alerted: boolean };

/**
 * After a send: when its receipt is the first past its conversation's budget, tell the lead (mail
 * from muster, as a guest, so it starts its own conversation) and the person. Never throws.
 */
export async function tellBrake(
  roster: Roster,
  receipt: Receipt,
  sender: { id: string; label: string },
  options: AlertOptions,
): Promise<BrakeTold | undefined> {
  if (!receipt.ok || !receipt.brake?.first) return undefined;
  try {
    const labels = [...new Set([sender.label, ...receipt.to.map((each) => each.label)])];
    const line = brakeLine(labels, receipt.conversation);
    const lead = await roster.board({ ownerVerdict }).lead();
    const mailed = lead
      ? await roster.send({ from: `brake-${receipt.id}`, to: lead, body: line, guest: "muster" })
      : undefined;
    const read = await roster.read();
    const ids = new Set([sender.id, ...receipt.to.map((each) => each.id)]);
    const seat = read.ok
      ? read.members.find((member) => ids.has(member.id) && member.seat)?.seat
      : undefined;
    const shown = await raiseAlert(
      { line, server: seat?.server },
      { allowed: alertSlot(roster), ...options },
    );
    return { lead: mailed?.ok ? lead : undefined, alerted: shown.told.length > 0 || shown.belled };
  } catch {
    return undefined;
  }
}
