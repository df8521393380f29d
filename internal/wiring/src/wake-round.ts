// One wake round for one member, as every door runs it (pi's mailbox, Codex's queue, the nudger, a
// Claude Code hook): read the unread mail, let core plan it (planWake, from the book the door
// keeps), mark the holds in the receipts once each, take the claims and the slot the door needs,
// hand the batch to the door, then write what happened (delivered, woke, failed) and book it.
// Sequences only: core decides, the roster judges and keeps, the door keeps its effect and words.

import type { SenderRecord } from "@muster/core";
import {
  bookDone,
  bookSlotsTaken,
  bookWoke,
  EMPTY_WAKE_BOOK,
  planWake,
  type WakeBook,
  type WakePlan,
  type WakePlanPolicy,
  type WakeStep,
} from "@muster/core/internal";
import type { Member, Message, Roster } from "@muster/roster";
import { giveBack, takeWake, type WakeClaims } from "./wake-take.ts";

/** How a door wakes: its name in the receipts, its policy, the claims it takes, what it books. */
export type WakeHow = {
  /** The receipts' name for the door: `pi`, `codex-queue`, `nudge`, `hook`. */
  by: string;
  policy: WakePlanPolicy;
  claims?: WakeClaims | undefined;
  /** Every message it took is handed over for good (the nudger): never planned again while unread. */
  once?: boolean | undefined;
  /** The receipts' name for a wake, where it is not `by` (a Claude hook's `claude-rewake`). */
  wokeBy?: string | undefined;
};

/** The mail a door is handed in one round. */
export type WakeBatch = {
  /** Every message handed over, in the mailbox's order (the waking and the next turn's). */
  messages: readonly Message[];
  /** Mail to wake the member for, each with its step (`steer` when urgent). */
  wake: readonly Message[];
  /** Mail handed over for the next turn, without a wake. */
  nextTurn: readonly Message[];
  modes: Readonly<Record<string, "steer" | "follow-up">>;
  /** The team's members as read for this round, to judge each sender (undefined: not read). */
  members: readonly SenderRecord[] | undefined;
  /**
   * Claim the batch now (the nudger: once the pane is idle); the mail this door may hand over.
   * Empty when every claim was taken elsewhere, or the shared rate holds it (its receipts then say
   * so). A door that never calls it hands over everything, unclaimed.
   */
  take(): Promise<readonly Message[]>;
};

/** What the door did with its batch. */
export type WakeAnswer =
  | {
      ok: true;
      /** Shown to the member now (its receipts say delivered). */
      delivered?: readonly string[] | undefined;
      /** A turn was started for these (woke). */
      woke: readonly string[];
      /** Acknowledge these (read). */
      ack?: readonly string[] | undefined;
    }
  /** Nothing was handed over; `error` (the engine refused) goes in the receipts. */
  | { ok: false; error?: string | undefined };

export type WakeDoor = {
  how: WakeHow;
  /** What the door remembers between rounds (core's WakeBook; absent: nothing yet): wakeRound replaces it. */
  book?: WakeBook | undefined;
  wake(batch: WakeBatch): Promise<WakeAnswer>;
  /** Mail the door handed over by itself (pi's shown or waiting mail): planned as done. */
  handed?: ((messageId: string) => boolean) | undefined;
};

export type { WakeBook };

export type WakeRound = {
  /** The round's plan, as it ended (a batch the shared rate held is planned again as held). */
  steps: readonly WakeStep[];
  /** A turn was started. */
  woke: boolean;
  /** The mail the rate holds, and when it may wake next (ms). */
  held: readonly Message[];
  heldUntil?: number | undefined;
};

const ids = (messages: readonly Message[]) => messages.map((message) => message.id);

/** Write the `wake-held` receipts this plan has not written yet. */
async function markHolds(roster: Roster, memberId: string, door: WakeDoor, plan: WakePlan) {
  const fresh = plan.steps.filter((step) => step.step === "hold" && step.mark);
  const first = fresh[0];
  if (first?.step !== "hold") return;
  await roster.markWakeHeld(
    memberId,
    fresh.map((step) => step.id),
    door.how.by,
    first.hold,
  );
}

/** The round's answer: its steps, whether a turn was started, and what the rate holds. */
function ended(steps: readonly WakeStep[], unread: readonly Message[], woke: boolean): WakeRound {
  const untils = new Map(
    steps.flatMap((step) => (step.step === "hold" ? [[step.id, step.until]] : [])),
  );
  const held = unread.filter((message) => untils.has(message.id));
  return untils.size > 0
    ? { steps, woke, held, heldUntil: Math.min(...untils.values()) }
    : { steps, woke, held };
}

/** Run one round for `member` through `door`; the door's book is replaced with the next one. */
export async function wakeRound(
  roster: Roster,
  member: Pick<Member, "id" | "watching">,
  door: WakeDoor,
  now: number = Date.now(),
): Promise<WakeRound> {
  const inbox = await roster.receive(member.id);
  if (!inbox.ok) return { steps: [], woke: false, held: [] };
  const policy = door.how.policy;
  // Mail the door handed over itself (pi's shown or waiting mail) is never planned again.
  const book = door.book ?? EMPTY_WAKE_BOOK;
  const handedBefore = inbox.messages.filter((message) => door.handed?.(message.id));
  let plan = planWake(
    inbox.messages,
    member.watching,
    handedBefore.length > 0 ? bookDone(book, ids(handedBefore)) : book,
    now,
    policy,
  );
  door.book = plan.book;
  await markHolds(roster, member.id, door, plan);
  const stepOf = new Map(plan.steps.map((step) => [step.id, step.step]));
  const wake = inbox.messages.filter((message) => stepOf.get(message.id) === "wake");
  const nextTurn = inbox.messages.filter((message) => stepOf.get(message.id) === "next-turn");
  if (wake.length === 0 && nextTurn.length === 0) return ended(plan.steps, inbox.messages, false);
  const team = await roster.read();
  const modes = Object.fromEntries(
    plan.steps.flatMap((step) => (step.step === "wake" ? [[step.id, step.mode]] : [])),
  );
  let taken: { won: readonly Message[]; holder: string } | undefined;
  const take = async (): Promise<readonly Message[]> => {
    if (taken) return taken.won;
    const outcome = await takeWake(roster, member.id, batch.messages, door.how.claims, policy);
    if (door.how.once) door.book = bookDone(plan.book, ids(wake));
    if (!outcome.ok && outcome.reason === "rate-limited") {
      // The shared slots are full: held till the first frees, the receipts say so once.
      door.book = bookSlotsTaken(door.book ?? plan.book, outcome.takenAt, now, policy);
      plan = planWake(inbox.messages, member.watching, door.book, now, policy);
      door.book = plan.book;
      await markHolds(roster, member.id, door, plan);
    }
    taken = { won: outcome.ok ? outcome.won : [], holder: outcome.holder };
    return taken.won;
  };
  const batch: WakeBatch = {
    messages: inbox.messages.filter(
      (message) => wake.includes(message) || nextTurn.includes(message),
    ),
    wake,
    nextTurn,
    modes,
    members: team.ok ? team.members : undefined,
    take,
  };
  let answer: WakeAnswer;
  try {
    answer = await door.wake(batch);
  } catch (error) {
    // A store or an effect that threw: the claims go at once, as for a failed wake.
    if (taken)
      await giveBack(roster, member.id, taken.won, door.how.claims, taken.holder).catch(
        () => undefined,
      );
    throw error;
  }
  const woke = await settleRound(roster, member.id, door, { answer, taken, now });
  return ended(plan.steps, inbox.messages, woke);
}

/** Write what the door did, and book it: delivered, woke, read; or the claims back and why. */
async function settleRound(
  roster: Roster,
  memberId: string,
  door: WakeDoor,
  round: {
    answer: WakeAnswer;
    taken: { won: readonly Message[]; holder: string } | undefined;
    now: number;
  },
): Promise<boolean> {
  const { answer, taken, now } = round;
  const claims = door.how.claims;
  if (!answer.ok) {
    if (taken) {
      await giveBack(roster, memberId, taken.won, claims, taken.holder);
      if (answer.error && taken.won.length > 0)
        await roster.markWakeFailed(memberId, ids(taken.won), door.how.by, answer.error);
    }
    return false;
  }
  try {
    if (answer.delivered?.length)
      await roster.markDelivered(memberId, answer.delivered, door.how.by);
    if (answer.woke.length > 0)
      await roster.markWoke(memberId, answer.woke, door.how.wokeBy ?? door.how.by);
    if (answer.ack?.length) await roster.ack(memberId, answer.ack);
  } finally {
    if (taken && claims && !claims.keep)
      await giveBack(roster, memberId, taken.won, claims, taken.holder);
  }
  if (answer.woke.length > 0)
    door.book = bookWoke(door.book ?? EMPTY_WAKE_BOOK, answer.woke, now, door.how.policy);
  return answer.woke.length > 0;
}
