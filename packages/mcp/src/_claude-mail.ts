// The mail a Claude Code hook hands its session: chosen by core's wake policy, claimed so that no
// two hooks of one session (a Stop and a FileChanged at once) show one message, and acknowledged
// only once the hook's answer is written. An answer that could not be written (a full disk, a
// closed pipe) releases the claims and leaves the mail unread for the next hook: never marked
// read and lost. A hook killed between its write and its acknowledgement shows the mail again
// once its claim has expired: shown twice, never lost.
import { randomBytes } from "node:crypto";
import { DEFAULT_WAKE_POLICY, decideDelivery, type SenderRecord } from "@muster/core";
import { processStart } from "@muster/node";
import type { Message, Roster } from "@muster/roster";

/** A hook runs at most its timeout (10 s as installed): a claim older than this names no hook. */
export const SHOWN_CLAIM_MS = 60_000;

/** The mail taken, and what to do once the answer carrying it was (or was not) written. */
export type TakenMail = {
  mail: Message[];
  /** The team's members as read for this take, to judge each sender (undefined: not read). */
  members: SenderRecord[] | undefined;
  /** Written: acknowledge and mark the receipts (delivered; woke, for a rewake). Else: give back. */
  settle(written: boolean, woke: boolean): Promise<void>;
};

const none: TakenMail = { mail: [], members: undefined, settle: async () => undefined };

/** The claim naming one message while one hook hands it over (in the roster's `wakes` space). */
const shownKey = (memberId: string, messageId: string) => `shown.${memberId}.${messageId}`;

/** Take the mail the policy lets through that no other hook of this session is showing now. */
export async function takeMail(
  me: { roster: Roster; id: string },
  wakingOnly: boolean,
): Promise<TakenMail> {
  const read = await me.roster.read();
  const record = read.ok ? read.members.find((member) => member.id === me.id) : undefined;
  if (record?.state !== "live") return none;
  const inbox = await me.roster.receive(me.id);
  if (!inbox.ok) return none;
  const now = Date.now();
  const chosen = inbox.messages.filter((message) => {
    const delivery = decideDelivery(message, record.watching, [], now, DEFAULT_WAKE_POLICY);
    return delivery.action === "deliver" && (!wakingOnly || delivery.wake);
  });
  if (chosen.length === 0) return none;
  const holder = `hook-${process.pid}-${randomBytes(6).toString("hex")}`;
  const claimed = await Promise.all(
    chosen.map((message) =>
      me.roster.claim({
        space: "wakes",
        key: shownKey(me.id, message.id),
        holder,
        // Free once this hook's process is proven dead or the claim is old: the roster judges.
        heldBy: { pid: process.pid, start: processStart(process.pid) },
        maxAgeMs: SHOWN_CLAIM_MS,
      }),
    ),
  );
  const mail = chosen.filter((_message, index) => claimed[index]?.ok);
  const ids = mail.map((message) => message.id);
  return {
    mail,
    members: read.ok ? read.members : undefined,
    async settle(written, woke) {
      try {
        if (written && ids.length > 0) {
          await me.roster.ack(me.id, ids);
          await me.roster.markDelivered(me.id, ids, "hook");
          if (woke) await me.roster.markWoke(me.id, ids, "claude-rewake");
        }
      } finally {
        await Promise.all(
          ids.map((id) => me.roster.releaseClaim("wakes", shownKey(me.id, id), holder)),
        );
      }
    },
  };
}
