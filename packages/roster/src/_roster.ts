// The roster of one team: the one object callers hold. It keeps the team (its store, the clock,
// the process facts) private and hands each call to the step that owns it.

import { type ActivityChange, type ActivityResult, changeActivity } from "./_activity.js";
import { Board, type BoardOptions } from "./_board.js";
import { type ClaimRequest, type ClaimResult, takeClaim } from "./_claim.js";
import { judgeHeldClaim } from "./_claim-held.js";
import { type Claim, readClaim } from "./_claim-read.js";
import { listClaims, releaseClaim } from "./_claim-release.js";
import { forwardUnread } from "./_forward.js";
import { type History, mailHistory } from "./_history.js";
import {
  ackMail,
  type Inbox,
  receivedMail,
  receiveMail,
  unreadCount,
  waitingMail,
} from "./_inbox.js";
import { type JoinInput, type JoinResult, join } from "./_join.js";
import type { ClaimSpace } from "./_layout.js";
import {
  type LeaseEntry,
  type LeaseHolds,
  type LeaseInput,
  type LeasesRead,
  readLeases,
  releaseLeases,
  type TakeLeaseResult,
  takeLease,
} from "./_leases.js";
import type { RosterPolicy } from "./_liveness.js";
import { readTeam, type TeamRead } from "./_members.js";
import {
  type EndingResult,
  type HeartbeatResult,
  heartbeat,
  type LeaveResult,
  leave,
  markEnding,
} from "./_membership.js";
import type { Message } from "./_message.js";
import { type PruneResult, prune } from "./_prune.js";
import {
  type MarkResult,
  type MessageReceipt,
  markPhase,
  markWakeFailed,
  markWakeHeld,
  readReceipt,
} from "./_receipts.js";
import { type Receipt, type SendInput, sendMail } from "./_send.js";
import type { HeldLabel, Team } from "./_team.js";
import { validateId } from "./_validate.js";
import { takeWakeSlot, type WakeSlotResult, type WakeSlots } from "./_wake-rate.js";

/** One team, on its store. Made by `openRoster`, which checks a team folder first. */
export class Roster {
  readonly #team: Team;

  constructor(team: Team) {
    this.#team = team;
  }

  /** The team folder, or where the team's store is when it is not a folder. */
  get dir(): string {
    return this.#team.store.dir ?? this.#team.store.where;
  }

  /** Which store the team is on (`folder`, `nats`, …) and where, for status and doctor. */
  get store(): { kind: string; where: string; address: string | undefined } {
    const { kind, where, address } = this.#team.store;
    return { kind, where, address };
  }

  /** The liveness policy: how often a member beats, when it goes stale, when it expires. */
  get policy(): Readonly<RosterPolicy> {
    return this.#team.policy;
  }

  /**
   * The folder new mail for `id` arrives in, for a file watcher; undefined for an id that is not
   * one, or on a store with no folder (then `watchMail`).
   */
  inboxFolder(id: string): string | undefined {
    return validateId(id).ok ? this.#team.store.mail.folder?.(id) : undefined;
  }

  /**
   * The member's doorbell, where the store has one (the folder store): a folder to watch, and
   * `arm()`, after which each delivery to `id` removes a bell from it. A watcher that is
   * slow to report an added file (Claude Code's) reports a removed one at once.
   */
  doorbell(id: string): { folder: string; arm(): Promise<void> } | undefined {
    return validateId(id).ok ? this.#team.store.mail.doorbell?.(id) : undefined;
  }

  /**
   * Call `onMail` when mail arrives for `id`, on a store that signals it (NATS); undefined where
   * the store has none (the folder store: watch `inboxFolder(id)` instead).
   */
  watchMail(id: string, onMail: () => void): Promise<{ stop(): void }> | undefined {
    const watch = this.#team.store.mail.watch;
    return validateId(id).ok && watch ? watch(id, onMail) : undefined;
  }

  /** Every member with its state; expired ones only with `all`. `unknown` when unreadable. */
  read(options: { all?: boolean } = {}): Promise<TeamRead> {
    return readTeam(this.#team, options);
  }
  /** Join under a label, or rename, or refresh: the claim is exclusive and case-insensitive. */
  join(input: JoinInput): Promise<JoinResult> {
    return join(this.#team, input);
  }
  /** Refresh a member's record; `lost` when its record or its label is gone. */
  heartbeat(id: string): Promise<HeartbeatResult> {
    return heartbeat(this.#team, id);
  }
  /**
   * Change what the member's record says of its agent's activity (and the last alert about it),
   * under the member's lock: `change` gets the current fields and returns the new ones, or
   * undefined to write nothing. The result has both, so one receiver sees each change once.
   */
  activity(id: string, change: ActivityChange): Promise<ActivityResult> {
    return changeActivity(this.#team, id, change);
  }
  /** Release the label and the record. Unread mail stays readable by this id until pruned. */
  leave(id: string): Promise<LeaveResult> {
    return leave(this.#team, id);
  }

  /**
   * Mark a member as ended on purpose by `muster stop` or `muster down`, before its process is
   * ended: a member whose process died without this mark crashed.
   */
  markEnding(id: string, by: "stop" | "down"): Promise<EndingResult> {
    return markEnding(this.#team, id, by);
  }
  /** Forget expired members and clear leftovers; nothing is removed when the team cannot be read. */
  prune(): Promise<PruneResult> {
    return prune(this.#team);
  }
  /** The labels kept for declared members that are down: nobody else joins under them. */
  held(): Promise<readonly HeldLabel[]> {
    return this.#team.held().catch(() => []);
  }
  /**
   * Bring the unread mail that waited in `from`'s mailbox (a member that was down) to `to`, the
   * id it came back as, each marked forwarded; how many came and how many could not be moved.
   */
  forwardMail(
    from: { id: string; label: string },
    to: string,
  ): Promise<{ forwarded: number; left: number }> {
    if (!validateId(from.id).ok || !validateId(to).ok || from.id === to)
      return Promise.resolve({ forwarded: 0, left: 0 });
    return forwardUnread(this.#team, from, to);
  }
  /** Send to a label or `all`; refused with nothing written when any check fails. */
  send(input: SendInput): Promise<Receipt> {
    return sendMail(this.#team, input);
  }
  /** New mail for session `id`, oldest first; it stays new until acknowledged. */
  receive(id: string): Promise<Inbox> {
    return receiveMail(this.#team, id);
  }
  /** Every message in session `id`'s mailbox, read or not, oldest first; nothing is moved. */
  history(id: string): Promise<History> {
    return mailHistory(this.#team, id);
  }
  /** A message `id` received, read or not, by its id (a reply counts its hops from it). */
  received(id: string, messageId: string): Promise<Message | undefined> {
    return receivedMail(this.#team, id, messageId);
  }
  ack(id: string, messageIds: readonly string[]) {
    return ackMail(this.#team, id, messageIds);
  }
  unread(id: string): Promise<number> {
    return unreadCount(this.#team, id);
  }
  /** Mail waiting unread for `id`: how many, and when the oldest was written. */
  waiting(id: string): Promise<{ count: number; oldestAt?: string }> {
    return waitingMail(this.#team, id);
  }

  /**
   * Receipts. Member `id` was shown these messages (`how`: the door, e.g. `pi`, `inbox`, `hook`,
   * `mcp`). The first mark of a phase stands; `marked` lists the messages newly marked.
   */
  markDelivered(id: string, messageIds: readonly string[], how: string): Promise<MarkResult> {
    return markPhase(this.#team, "delivered", id, messageIds, how);
  }
  /** A turn was started for these messages at member `id` (`how`: `pi`, `codex-queue`, …). */
  markWoke(id: string, messageIds: readonly string[], how: string): Promise<MarkResult> {
    return markPhase(this.#team, "woke", id, messageIds, how);
  }
  /** A wake for these messages at member `id` failed (`how`: the door; `error`: the engine's words). */
  markWakeFailed(
    id: string,
    messageIds: readonly string[],
    how: string,
    error: string,
  ): Promise<MarkResult> {
    return markWakeFailed(this.#team, id, messageIds, how, error);
  }
  /** A wake for these messages at member `id` was held by the rate (`hold`: core's heldWake). */
  markWakeHeld(
    id: string,
    messageIds: readonly string[],
    how: string,
    hold: { words: string; retryAfter: number },
  ): Promise<MarkResult> {
    return markWakeHeld(this.#team, id, messageIds, how, hold);
  }
  /**
   * Take one of member `id`'s wake slots (core's wakeRate: how many, when one frees), shared by
   * every process of the team: `rate-limited`, with when each was taken, when none is free.
   */
  takeWakeSlot(id: string, holder: string, rate: WakeSlots): Promise<WakeSlotResult> {
    return takeWakeSlot(this.#team, id, holder, rate);
  }
  /** Every recipient's phases on one message (written by send, acknowledged by ack). */
  receipt(messageId: string): Promise<MessageReceipt> {
    return readReceipt(this.#team, messageId);
  }
  /** The folder a message's receipt marks arrive in, for a file watcher; undefined for a bad id. */
  receiptFolder(messageId: string): string | undefined {
    return validateId(messageId, "message id").ok
      ? this.#team.store.receipts.folder?.(messageId)
      : undefined;
  }

  /** Call `onMark` when a mark is made on the message, where the store signals it (see watchMail). */
  watchReceipt(messageId: string, onMark: () => void): Promise<{ stop(): void }> | undefined {
    const watch = this.#team.store.receipts.watch;
    return validateId(messageId, "message id").ok && watch ? watch(messageId, onMark) : undefined;
  }

  /** The general exclusive claim (see the README): take `key` in `space` for a holder. */
  claim<Held>(request: ClaimRequest<Held>): Promise<ClaimResult<Held>> {
    return takeClaim(this.#team, request);
  }
  /** The claim on `key`: undefined when free, `unreadable` when the file there is not a claim. */
  readClaim(space: ClaimSpace, key: string): Promise<Claim | "unreadable" | undefined> {
    return readClaim(this.#team, space, key);
  }
  /** Release `holder`'s claim on `key`; false when another holds it (nothing is touched). */
  releaseClaim(space: ClaimSpace, key: string, holder: string): Promise<boolean> {
    return releaseClaim(this.#team, space, key, holder);
  }
  /**
   * Whether a claim taken with `heldBy` still holds: its process not proven dead and, with
   * `maxAgeMs`, the claim no further than that from now (the rule `claim` judges it by).
   */
  async claimHolds(
    claim: Claim,
    options: { maxAgeMs?: number | undefined } = {},
  ): Promise<boolean> {
    const verdict = await judgeHeldClaim(this.#team, claim, this.#team.clock(), options.maxAgeMs);
    return !verdict.free;
  }
  /** Every claim in `space` that reads as one (what does not is skipped). */
  async listClaims(space: ClaimSpace): Promise<Claim[]> {
    return (await listClaims(this.#team, space)).claims;
  }

  /** The task board: its cards and lead, changed by the rules the caller passes in. */
  board(options: BoardOptions): Board {
    return new Board(this.#team, options);
  }
  /** Every path lease with its holder's state: `leases` hold, `lapsed` do not. A read: changes nothing. */
  leases(holds: LeaseHolds): Promise<LeasesRead> {
    return readLeases(this.#team, holds);
  }
  /** Take or renew a lease when `check` allows it beside the ones that hold: one fenced step. */
  takeLease<Refusal>(
    input: LeaseInput,
    holds: LeaseHolds,
    check: (holding: readonly LeaseEntry[]) => { ok: true } | { ok: false; refusal: Refusal },
  ): Promise<TakeLeaseResult<Refusal>> {
    return takeLease(this.#team, input, holds, check);
  }
  /** Release a holder's leases on these patterns, or all of them. */
  releaseLeases(holderId: string, patterns: readonly string[] | "all") {
    return releaseLeases(this.#team, holderId, patterns);
  }
}
