// The task board of one team folder, as callers hold it: read (releasing cards whose owners are
// proven gone, as the caller's rule says), add, change a card under its claim, and set the lead.
// Which change is allowed is never decided here: every decision is a rule the caller passes in.
import {
  addCard,
  type BoardFileRefusal,
  type CardChange,
  type CardDecision,
  changeCard,
  type OwnerVerdictRule,
} from "./_board-change.js";
import {
  type BoardMembersView,
  type BoardSnapshot,
  readLead,
  readMembers,
  readSnapshot,
} from "./_board-read.js";
import { errorText } from "./_error.js";
import { claimLockKey, releaseLock, waitForLock } from "./_lock.js";
import { iso, type Team } from "./_team.js";
import { validateId } from "./_validate.js";

export type BoardRead<Release extends CardDecision> =
  | { ok: true; board: BoardSnapshot; released: Extract<Release, { ok: true }>[] }
  | { ok: false; state: "unknown"; error: string };

export type LeadDecision = { ok: true; lead: string | undefined; changed: boolean } | { ok: false };

export type BoardOptions = {
  /** Whether a held card's owner still holds it: core's `ownerVerdict`. */
  ownerVerdict: OwnerVerdictRule;
};

export class Board {
  readonly #team: Team;
  readonly #rule: OwnerVerdictRule;

  constructor(team: Team, options: BoardOptions) {
    this.#team = team;
    this.#rule = options.ownerVerdict;
  }

  /** The board's lead alone (one small file): undefined when there is none or it cannot be read. */
  lead(): Promise<string | undefined> {
    return readLead(this.#team, []);
  }

  /**
   * Every card, the lead and the team. With `release`, each held card whose owner the rule says
   * is gone is first changed by `release.decide` under its claim (taken over from the dead owner
   * by `release.reader`), so the board read back is never held by the dead.
   */
  async read<Release extends CardDecision = CardDecision>(
    release?: { reader: string; decide: (board: BoardSnapshot, id: string) => Release } | undefined,
  ): Promise<BoardRead<Release>> {
    try {
      let board = await readSnapshot(this.#team);
      const released: Extract<Release, { ok: true }>[] = [];
      if (release && validateId(release.reader).ok) {
        const gone = [...board.cards.values()].filter(
          (card) => card.state === "held" && !this.#rule(card, board.members).keep,
        );
        for (const card of gone) {
          const changed = await changeCard(this.#team, this.#rule, {
            card: card.id,
            actor: release.reader,
            decide: (now) => release.decide(now, card.id),
            after: "release",
          });
          if (changed.ok && changed.changed)
            released.push(changed as Extract<Release, { ok: true }>);
        }
        if (gone.length > 0) board = await readSnapshot(this.#team);
      }
      return { ok: true, board, released };
    } catch (error) {
      return {
        ok: false,
        state: "unknown",
        error: `cannot read the board in ${this.#team.store.where}: ${errorText(error)}`,
      };
    }
  }

  /** Add a card under the next free id, as `build` makes it for that id. */
  add<Decision extends CardDecision>(
    build: (board: BoardSnapshot, id: string) => Decision,
  ): Promise<Decision | BoardFileRefusal> {
    return this.#guard(() => addCard(this.#team, build));
  }

  /** Change one card under its claim (see `CardChange`). */
  change<Decision extends CardDecision>(
    change: CardChange<Decision>,
  ): Promise<Decision | BoardFileRefusal> {
    return this.#guard(() => changeCard(this.#team, this.#rule, change));
  }

  /** Set or clear the lead, as `decide` says over the lead now and the team, under a lock. */
  async setLead<Decision extends LeadDecision>(
    by: { label: string; id: string },
    decide: (lead: string | undefined, members: BoardMembersView) => Decision,
  ): Promise<Decision | BoardFileRefusal> {
    return this.#guard(async () => {
      const team = this.#team;
      const lock = await waitForLock(team, claimLockKey("cards", "lead"), by.id);
      if (!lock) {
        return {
          ok: false,
          reason: "busy",
          error: "the lead is being changed right now",
          fix: "try again in a moment",
        };
      }
      try {
        const [board, members] = await Promise.all([readSnapshot(team), readMembers(team)]);
        const decision = decide(board.lead, members);
        if (!decision.ok || !decision.changed) return decision;
        if (decision.lead === undefined) await team.store.remove("board", "lead");
        else {
          const record = { v: 1, lead: decision.lead, by: by.label, at: iso(team.clock()) };
          await team.store.put("board", "lead", `${JSON.stringify(record)}\n`);
        }
        return decision;
      } finally {
        await releaseLock(team, lock);
      }
    });
  }

  async #guard<Result>(
    work: () => Promise<Result | BoardFileRefusal>,
  ): Promise<Result | BoardFileRefusal> {
    try {
      return await work();
    } catch (error) {
      return {
        ok: false,
        reason: "unwritable",
        error: `cannot write the board in ${this.#team.store.where}: ${errorText(error)}`,
        fix: "check the team folder is writable (space, permissions), then try again",
      };
    }
  }
}
