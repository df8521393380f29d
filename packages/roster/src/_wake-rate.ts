// A member's wake rate, kept across every process that can wake it: `slots` exclusive claims in
// the `wakes` space (`rate.<member>.<n>`), each recording when it was taken. A wake takes a slot
// that is free (never taken, or, by the caller's rule, taken long enough ago); when none is, the
// wake is held. How many slots and when one frees are core's rule (wakeRate), passed in; why slots
// and not a count is said there. Store-agnostic: only the claim (create, compare-and-swap).
import { takeClaim } from "./_claim.js";
import type { Team } from "./_team.js";
import { uniqueName } from "./_unique.js";
import { validateId } from "./_validate.js";

/** The rule a member's slots follow (core's WakeRate fits). */
export type WakeSlots = {
  slots: number;
  free: (takenAt: number, now: number) => boolean;
};

export type WakeSlotResult =
  | { ok: true; slot: number }
  /** Every slot is taken within the rule: when each was taken (ms), for core's heldWake. */
  | { ok: false; reason: "rate-limited"; takenAt: number[] }
  | { ok: false; reason: "bad-input"; error: string };

/** The key of one of a member's rate slots. */
export const wakeSlotKey = (memberId: string, slot: number) => `rate.${memberId}.${slot}`;

/** The key of one of a conversation's turn slots (the loop brake's count). */
export const turnSlotKey = (conversation: string, slot: number) => `turn.${conversation}.${slot}`;

/**
 * Take one of member `id`'s wake slots for `holder`. Each take names a holder of its own, so a
 * slot this process took earlier is judged by the rule like anyone's, never kept as "ours".
 */
export async function takeWakeSlot(
  team: Team,
  id: string,
  holder: string,
  rate: WakeSlots,
  key: (id: string, slot: number) => string = wakeSlotKey,
): Promise<WakeSlotResult> {
  const member = validateId(id);
  if (!member.ok) return { ok: false, reason: "bad-input", error: member.error };
  const takenAt: number[] = [];
  for (let slot = 0; slot < rate.slots; slot += 1) {
    const claimed = await takeClaim(team, {
      space: "wakes",
      key: key(id, slot),
      holder: `${holder.slice(0, 100)}-${uniqueName(team.clock()).slice(-12)}`,
      judge: async (current, now) => {
        const at = Date.parse(current.at);
        return rate.free(at, now) ? { free: true, reason: "expired" } : { free: false, held: at };
      },
    });
    if (claimed.ok) return { ok: true, slot };
    // Held: when it was taken. Busy (another process is taking it now): as good as taken now.
    takenAt.push(claimed.reason === "held" ? claimed.held : team.clock());
  }
  return { ok: false, reason: "rate-limited", takenAt };
}
