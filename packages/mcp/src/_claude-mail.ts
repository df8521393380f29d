// The mail a Claude Code hook hands its session, in the wiring's one wake round: chosen by core's
// wake policy, claimed so that no two hooks of one session (a Stop and a FileChanged at once) show
// one message, and acknowledged
// only once the hook's answer is written. An answer that could not be written (a full disk, a
// closed pipe) releases the claims and leaves the mail unread for the next hook: never marked
// read and lost. A hook killed between its write and its acknowledgement shows the mail again
// once its claim has expired: shown twice, never lost.
import { DEFAULT_WAKE_POLICY, type SenderRecord } from "@muster/core";
import { processStart } from "@muster/node";
import type { Message, Roster } from "@muster/roster";
import { type WakeAnswer, type WakeDoor, type WakeHow, wakeRound } from "@muster/wiring";

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

/**
 * The hook's door: claims named `shown.<member>.<message>` (no two hooks of one session show one
 * message), no rate of its own (a hook answers at a turn's edge), given back once the mail is read.
 */
const hookHow = (wakingOnly: boolean): WakeHow => ({
  by: "hook",
  policy: { ...DEFAULT_WAKE_POLICY, count: "none", nextTurn: !wakingOnly },
  claims: {
    prefix: "shown",
    holder: `hook-${process.pid}`,
    // Free once this hook's process is proven dead or the claim is old: the roster judges.
    heldBy: { pid: process.pid, start: processStart(process.pid) },
    maxAgeMs: SHOWN_CLAIM_MS,
    keep: false,
  },
  wokeBy: "claude-rewake",
});

/**
 * Take the mail the policy lets through that no other hook of this session is showing now. The
 * wiring's wake round holds its batch open until the answer carrying it is settled.
 */
export async function takeMail(
  me: { roster: Roster; id: string },
  wakingOnly: boolean,
): Promise<TakenMail> {
  const read = await me.roster.read();
  const record = read.ok ? read.members.find((member) => member.id === me.id) : undefined;
  if (record?.state !== "live") return none;
  return new Promise<TakenMail>((resolve, reject) => {
    const door: WakeDoor = {
      how: hookHow(wakingOnly),
      async wake(batch) {
        const mail = await batch.take();
        if (mail.length === 0) return { ok: false };
        const ids = mail.map((message) => message.id);
        return new Promise<WakeAnswer>((answer) =>
          resolve({
            mail: [...mail],
            members: batch.members ? [...batch.members] : undefined,
            async settle(written, woke) {
              answer(
                written
                  ? { ok: true, delivered: ids, woke: woke ? ids : [], ack: ids }
                  : { ok: false },
              );
              await round;
            },
          }),
        );
      },
    };
    const round = wakeRound(me.roster, record, door);
    round.then(() => resolve(none), reject);
  });
}
