// Changing the board's files. A card is created exclusively under the next free id; after that it
// is written only by the holder of its claim (the general claim, space `cards`), checked just
// before the write, so two processes never both change one card. The caller's rule decides what
// the card becomes: it is asked once over the board as read, and again under the claim.

import {
  type BoardMembersView,
  type BoardSnapshot,
  readAround,
  readBoardWhole,
  readCard,
  readHolder,
} from "./_board-read.js";
import { type CardRecord, cardText, checkCard, isCardId } from "./_card-file.js";
import { CLAIM_GRACE_MS, takeClaim } from "./_claim.js";
import { type Claim, claimKey, readClaim } from "./_claim-read.js";
import { removeClaim, swapClaim } from "./_claim-release.js";
import { claimLockKey, holdsLock, releaseLock, takeLock } from "./_lock.js";
import { iso, type Team } from "./_team.js";

/** What a rule answers: the card as it should be written, or its own refusal (passed back). */
export type CardDecision = { ok: true; card: CardRecord; changed: boolean } | { ok: false };

/** Whether a card's owner still holds it (core's `ownerVerdict`): only proof lets go. */
export type OwnerVerdictRule = (
  card: CardRecord,
  members: BoardMembersView,
) => { keep: true } | { keep: false; reason: string };

export type CardChange<Decision extends CardDecision> = {
  /** The card's id, as the rule will find it in the snapshot. */
  card: string;
  /** The session id making the change: it holds the card's claim while it writes. */
  actor: string;
  /** What the card becomes; asked over the board as read, then again under the claim. */
  decide: (board: BoardSnapshot) => Decision;
  /**
   * What happens to the claim once the card is written: kept, released, or passed on to another
   * session id (a hand-off; a function of the decision, which names the new owner).
   */
  after: ClaimAfter | ((decision: Extract<Decision, { ok: true }>) => ClaimAfter);
};

export type ClaimAfter = "keep" | "release" | { transfer: string };

/** The board's own refusals: the card is changing hands right now, or cannot be written. */
export type BoardFileRefusal = {
  ok: false;
  reason: "busy" | "unwritable" | "bad-card";
  error: string;
  fix: string;
};

const ATTEMPTS = 12;

/** The time of the last change a card records. */
const lastChange = (card: CardRecord | undefined) =>
  card ? Date.parse(card.history.at(-1)?.at ?? card.createdAt) : Number.NEGATIVE_INFINITY;

/**
 * May the claim on a card be taken over? From a holder the rule says is gone; from a holder the
 * card does not name (a change that crashed half-way) once both claim and card are older than the
 * grace; else it is held.
 */
function judgeCard(team: Team, id: string, rule: OwnerVerdictRule) {
  return async (claim: Claim, now: number) => {
    const [snapshot, members] = await Promise.all([
      readCard(team, id),
      readHolder(team, claim.holder),
    ]);
    const asHeld: CardRecord = {
      ...(snapshot ?? {
        id,
        title: "",
        deps: [],
        createdBy: "x",
        createdAt: iso(now),
        history: [],
      }),
      state: "held",
      owner: { label: snapshot?.owner?.label ?? "x", id: claim.holder },
    };
    const verdict = rule(asHeld, members);
    const old = now - Date.parse(claim.at) > CLAIM_GRACE_MS;
    if (!verdict.keep) {
      // A holder with no record may be a reader releasing a card: give it the grace.
      if (verdict.reason !== "owner-left" || old)
        return {
          free: true as const,
          reason: verdict.reason === "owner-expired" ? "expired" : "dead",
        } as const;
    }
    const named = snapshot?.state === "held" && snapshot.owner?.id === claim.holder;
    if (!named && old && now - lastChange(snapshot) > CLAIM_GRACE_MS)
      return { free: true as const, reason: "orphan" as const };
    return { free: false as const, held: claim };
  };
}

/** Change one card under its claim; see the file header. */
export async function changeCard<Decision extends CardDecision>(
  team: Team,
  rule: OwnerVerdictRule,
  change: CardChange<Decision>,
): Promise<Decision | BoardFileRefusal> {
  const key = change.card;
  if (!isCardId(key))
    return {
      ok: false,
      reason: "bad-card",
      error: `"${key}" is not a card id`,
      fix: "card ids look like c12",
    };
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const before = change.decide(await readAround(team, key));
    if (!before.ok || !before.changed) return before;
    const claimed = await takeClaim(team, {
      space: "cards",
      key,
      holder: change.actor,
      judge: judgeCard(team, key, rule),
    });
    if (!claimed.ok && claimed.reason === "held") {
      // Held by another: the rule says so in its own words, over the card as the claim has it.
      const board = await readAround(team, key);
      const card = board.cards.get(key);
      const holder = claimed.current.holder;
      const member =
        board.members === "unknown"
          ? undefined
          : board.members.members.find((each) => each.id === holder);
      if (card && card.owner?.id !== holder) {
        board.cards.set(key, {
          ...card,
          state: "held",
          owner: { label: member?.label ?? card.owner?.label ?? "another-session", id: holder },
        });
      }
      const refused = change.decide(board);
      if (!refused.ok) return refused;
    } else if (claimed.ok) {
      const written = await underClaim(team, change, claimed.claim);
      if (written !== "retry") return written;
    } else if (claimed.reason === "bad-key") {
      return { ok: false, reason: "bad-card", error: claimed.error, fix: "card ids look like c12" };
    }
    await team.sleep(5 + attempt * 10);
  }
  return {
    ok: false,
    reason: "busy",
    error: `${key} is changing hands right now`,
    fix: "try again in a moment",
  };
}

async function underClaim<Decision extends CardDecision>(
  team: Team,
  change: CardChange<Decision>,
  claim: Claim,
): Promise<Decision | "retry"> {
  const board = await readAround(team, change.card);
  const decision = change.decide(board);
  const stillOurs = async () => {
    const current = await readClaim(team, "cards", change.card);
    return current !== undefined && current !== "unreadable" && current.token === claim.token;
  };
  if (!decision.ok || !decision.changed) {
    // Never keep a claim on a card the card file does not say we hold.
    const card = board.cards.get(change.card);
    if (!(card?.state === "held" && card.owner?.id === change.actor))
      await removeClaim(team, "cards", change.card, claim);
    return decision;
  }
  const checked = checkCard(decision.card);
  if (!checked.ok || decision.card.id !== change.card) {
    await removeClaim(team, "cards", change.card, claim);
    throw new Error(
      `the board's rule answered a card that ${checked.ok ? "has another id" : checked.error}`,
    );
  }
  // Fenced: a holder whose claim was taken over while it decided must not write.
  if (!(await stillOurs())) return "retry";
  await team.store.put("board", change.card, cardText(decision.card));
  const after =
    typeof change.after === "function"
      ? change.after(decision as Extract<Decision, { ok: true }>)
      : change.after;
  if (after === "release") await removeClaim(team, "cards", change.card, claim);
  else if (typeof after === "object") await transferClaim(team, change.card, claim, after.transfer);
  return decision;
}

/**
 * Pass a claim we hold to another holder: under the claim's lock, only while it is still ours.
 * False when it was not ours any more (the card file then names the new owner, and the new owner
 * takes the claim on its first change).
 */
export async function transferClaim(
  team: Team,
  key: string,
  claim: Claim,
  to: string,
): Promise<boolean> {
  const lock = await takeLock(team, claimLockKey("cards", claimKey(key)), claim.holder);
  if (!lock) return false;
  try {
    const current = await readClaim(team, "cards", key);
    if (current === undefined || current === "unreadable" || current.token !== claim.token)
      return false;
    const now = team.clock();
    const passed: Claim = {
      ...current,
      holder: to,
      at: iso(now),
      token: `${current.token}-${now.toString(36)}`,
    };
    if (!(await holdsLock(team, lock))) return false;
    return await swapClaim(team, "cards", current, passed);
  } finally {
    await releaseLock(team, lock);
  }
}

/**
 * The lowest id no card file has, parsed or not (an id is never reused while its file is there).
 * Never the highest plus one: a planted `c999999999.json` would end the board, and any planted
 * name would steer every id after it.
 */
export function nextCardId(keys: readonly string[]): string {
  const taken = new Set<number>();
  for (const key of keys) if (isCardId(key)) taken.add(Number(key.slice(1)));
  let next = 1;
  while (taken.has(next)) next += 1;
  return `c${next}`;
}

/** Add a card under the next free id: `build` makes it for that id, or refuses. */
export async function addCard<Decision extends CardDecision>(
  team: Team,
  build: (board: BoardSnapshot, id: string) => Decision,
): Promise<Decision | BoardFileRefusal> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const { board, taken } = await readBoardWhole(team);
    const id = nextCardId(taken);
    const decision = build(board, id);
    if (!decision.ok) return decision;
    const checked = checkCard(decision.card);
    if (!checked.ok || decision.card.id !== id)
      throw new Error(
        `the board's rule answered a card that ${checked.ok ? "has another id" : checked.error}`,
      );
    if (await team.store.create("board", id, cardText(decision.card))) return decision;
  }
  return {
    ok: false,
    reason: "busy",
    error: "many cards are being added at once",
    fix: "try again in a moment",
  };
}
