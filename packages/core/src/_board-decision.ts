// What a board decision answers: the board as read, the change asked, and either the card as it
// should be written with the notices to send, or a refusal with its stable reason and fix.
import { type BoardActor, type Card, holds } from "./_board-card.js";
import type { BoardMember, BoardMembers } from "./_board-members.js";
import type { BoardNotice } from "./_board-notice.js";
import { oneSentence } from "./_refusal.js";

/** The board as read when a change is decided. `at` is the time the change is made (ISO). */
export type BoardView = {
  cards: ReadonlyMap<string, Card>;
  lead?: string | undefined;
  members: BoardMembers;
  at: string;
};

export type BoardChange =
  | {
      kind: "add";
      /** The id the roster is about to create the card under. */
      id: string;
      title: string;
      body?: string | undefined;
      deps?: readonly string[] | undefined;
    }
  | { kind: "claim"; card: string }
  | { kind: "done"; card: string; note?: string | undefined }
  | { kind: "drop"; card: string; reason: string }
  | { kind: "handoff"; card: string; to: string; message?: string | undefined }
  | { kind: "ask"; card: string; question: string };

export type BoardRefusalReason =
  | "bad-card-id"
  | "bad-text"
  | "unknown-card"
  | "unknown-dependency"
  | "dependency-cycle"
  | "card-held"
  | "card-done"
  | "card-blocked"
  | "not-holder"
  | "handoff-self"
  | "no-live-holder"
  | "reason-needed"
  | "nobody-to-ask"
  | "not-member"
  | "lead-held"
  | "members-unknown";

export type BoardRefusal = {
  ok: false;
  reason: BoardRefusalReason;
  error: string;
  fix: string;
  /** The label holding the card, where that is why. */
  holder?: string | undefined;
  /** The live label a mistyped one most likely meant, for `no-live-holder`. */
  suggestion?: string | undefined;
  /** The unfinished dependencies, for `card-blocked`. */
  blockers?: string[] | undefined;
  notices: BoardNotice[];
};

export type BoardDecision =
  | {
      ok: true;
      /** The card as it should be written (the same object when nothing changes). */
      card: Card;
      changed: boolean;
      /** Whom a hand-off or a question goes to. */
      to?: BoardMember | undefined;
      notices: BoardNotice[];
    }
  | BoardRefusal;

export const refuse = (
  reason: BoardRefusalReason,
  error: string,
  fix: string,
  extra: Partial<Pick<BoardRefusal, "holder" | "blockers" | "notices">> = {},
): BoardRefusal => ({ ok: false, reason, error, fix, notices: [], ...extra });

/** One sentence for a refused change: what happened, then what to do. */
export const boardFailureLine = (refusal: Pick<BoardRefusal, "error" | "fix">) =>
  oneSentence([refusal.error, refusal.fix]);

/** A change only the holder may make: refused for an open card, a done one, or another's. */
export function notHolder(card: Card, actor: BoardActor, verb: string): BoardRefusal | undefined {
  if (holds(card, actor)) return undefined;
  if (card.state === "done") return doneRefusal(card);
  if (card.state === "open") {
    return refuse(
      "not-holder",
      `card ${card.id} is open, not held by ${actor.label}`,
      `claim ${card.id} first, then ${verb} it`,
    );
  }
  const holder = card.owner?.label ?? "another session";
  return refuse(
    "not-holder",
    `card ${card.id} is held by ${holder}, not by ${actor.label}`,
    `only ${holder} can ${verb} ${card.id}; ask them about it`,
    { holder: card.owner?.label },
  );
}

export function doneRefusal(card: Card): BoardRefusal {
  const finisher = [...card.history].reverse().find((entry) => entry.event === "finished")?.by;
  return refuse(
    "card-done",
    `card ${card.id} is already done${finisher ? ` (finished by ${finisher})` : ""}`,
    "add a new card for more work on it",
  );
}
