// A wake round's take: the claims and the slot a door needs before it hands mail over. Each message
// is a claim in the roster's `wakes` space (`<member>.<message>`, or the door's prefix before it),
// so one message is woken (or shown) once however many processes try; a door whose rate is shared
// (Codex's queue) then takes one of the member's wake slots for the batch. Sequences only: the
// roster judges the claims, core's wakeRate says what a slot is.
import { randomBytes } from "node:crypto";
import { wakeRate } from "@muster/core";
import type { WakePlanPolicy } from "@muster/core/internal";
import type { Message, Roster } from "@muster/roster";

/** How a door claims the mail it hands over (absent: it claims nothing, being its member's only door). */
export type WakeClaims = {
  /** Before `<member>.<message>` in the key: a Claude hook's `shown`. */
  prefix?: string | undefined;
  /** A name for this process; each take adds a random tail, so an earlier take is judged like anyone's. */
  holder: string;
  /** The process holding the claims: free once it is proven dead (the roster judges). */
  heldBy: { pid: number; start: string | undefined };
  /** Free past this age too (absent: only once the process is dead). */
  maxAgeMs?: number | undefined;
  /** Kept once the mail woke (once per message across processes), else given back once acknowledged. */
  keep: boolean;
};

export type Taken =
  | { ok: true; won: Message[]; holder: string }
  /** The shared slots are all taken: when each was taken, for the hold. */
  | { ok: false; reason: "rate-limited"; takenAt: number[]; holder: string }
  | { ok: false; reason: "no-slot"; holder: string };

const claimKey = (claims: WakeClaims, memberId: string, messageId: string) =>
  `${claims.prefix ? `${claims.prefix}.` : ""}${memberId}.${messageId}`;

/** Claim each message (in order) and, for a shared rate, a slot; the claims are given back on a refusal. */
export async function takeWake(
  roster: Roster,
  memberId: string,
  messages: readonly Message[],
  claims: WakeClaims | undefined,
  policy: WakePlanPolicy,
): Promise<Taken> {
  const holder = claims ? `${claims.holder}-${randomBytes(4).toString("hex")}` : `${memberId}-door`;
  const won: Message[] = [];
  for (const message of messages) {
    if (!claims) {
      won.push(message);
      continue;
    }
    const claimed = await roster.claim({
      space: "wakes",
      key: claimKey(claims, memberId, message.id),
      holder,
      heldBy: claims.heldBy,
      ...(claims.maxAgeMs === undefined ? {} : { maxAgeMs: claims.maxAgeMs }),
    });
    if (claimed.ok) won.push(message);
  }
  if (policy.count !== "shared" || won.length === 0) return { ok: true, won, holder };
  const slot = await roster
    .takeWakeSlot(memberId, claims?.holder ?? holder, wakeRate(policy))
    .catch(async (error: unknown) => {
      // A store that threw: the claims go at once, so the next sweep may wake.
      await giveBack(roster, memberId, won, claims, holder).catch(() => undefined);
      throw error;
    });
  if (slot.ok) return { ok: true, won, holder };
  await giveBack(roster, memberId, won, claims, holder);
  return slot.reason === "rate-limited"
    ? { ok: false, reason: "rate-limited", takenAt: slot.takenAt, holder }
    : { ok: false, reason: "no-slot", holder };
}

/** Give back the claims of mail that did not wake (anyone may try again). */
export async function giveBack(
  roster: Roster,
  memberId: string,
  messages: readonly Message[],
  claims: WakeClaims | undefined,
  holder: string,
): Promise<void> {
  if (!claims) return;
  await Promise.all(
    messages.map((message) =>
      roster.releaseClaim("wakes", claimKey(claims, memberId, message.id), holder),
    ),
  );
}
