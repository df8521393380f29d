// This session's mailbox inside pi: watch it, hand each new message to pi as the core wake policy
// decides, and acknowledge a message only once pi shows it. Mail held for the next turn stays
// unread until that turn starts, so the footer counts it and /team inbox lists it. Mail whose wake
// the rate holds stays in the mailbox, marked `wake-held` (until when) for its sender: a turn that
// starts meanwhile shows it (no wake), /team inbox or team_inbox reads it (no wake), else it wakes
// pi once the window frees (a timer at that moment, and every sweep after). The wiring's one wake
// round plans, marks and books; the rate is this door's own count (only this process starts pi's
// turns for this member). The door keeps its effect: pi's deliver, and the acknowledgements.
import {
  type SenderRecord,
  type SenderStanding,
  type Standing,
  senderStanding,
  wakeRateSetting,
} from "@muster/core";
import type { Message, Roster } from "@muster/roster";
import {
  errorMessage,
  type InboxWatch,
  type WakeBatch,
  type WakeDoor,
  wakeRound,
  watchInbox,
} from "@muster/wiring";

/** What the team needs from pi: delivery of a message into the session, and the footer. */
export type Host = {
  deliver(
    message: Message,
    options: {
      wake: boolean;
      mode?: "steer" | "follow-up" | undefined;
      /** The sender as the team knows it (core's senderStanding), for core's mail format. */
      standing: SenderStanding;
    },
  ): void;
  status(text: string | undefined): void;
  warn(line: string): void;
  /** A line worth telling the user that is not a problem (a label taken over, mail forwarded). */
  note?(line: string): void;
  /** Message ids this session already shows (after a restart: from its own entries). */
  delivered: Set<string>;
};

/** The part of the team session the mailbox reads. */
type Owner = {
  roster: Roster | undefined;
  standing: Standing | undefined;
  readonly options: { id: string };
  refresh(): Promise<void>;
};

export class Mailbox {
  /** pi's door in the wake round: its own rate count, quiet mail handed over for the next turn. */
  private readonly door: WakeDoor = {
    how: {
      by: "pi",
      // The wake policy, with the one setting every door reads (MUSTER_WAKE_PER_MINUTE).
      policy: { ...wakeRateSetting(process.env).policy, count: "own", nextTurn: true },
    },
    wake: (batch) => this.handOver(batch),
    handed: (id) => this.host.delivered.has(id) || this.waiting.has(id),
  };
  /** Labels peers wrote to this session by (not `all`), lower-cased. */
  private readonly addressed = new Set<string>();
  /** Delivered for the next turn, not shown yet: unread until pi shows them. */
  private readonly waiting = new Set<string>();
  /** Held by the wake rate, not handed to pi (the round's held mail, for a turn that starts). */
  private held = new Map<string, Message>();
  /** Wakes the held mail once the window frees (unref'd; cleared by the stop). */
  private retry: { at: number; timer: NodeJS.Timeout } | undefined;
  private inbox: InboxWatch | undefined;
  /** The team's members as last read, to judge each sender (undefined: not read). */
  private members: SenderRecord[] | undefined;
  private readonly owner: Owner;
  private readonly host: Host;

  constructor(owner: Owner, host: Host, addressed: Iterable<string> = []) {
    this.owner = owner;
    this.host = host;
    for (const label of addressed) this.addressed.add(label.toLowerCase());
  }

  /** Watch the mailbox, with a periodic sweep as the fallback for a missed event; returns the stop. */
  start(): () => void {
    const id = this.owner.options.id;
    const inbox = watchInbox({
      folder: () => this.owner.roster?.inboxFolder(id),
      signal: (onMail) => this.owner.roster?.watchMail(id, onMail),
      read: () => this.deliverNew(),
      sweepMs: 5000,
      onError: (error) => this.host.warn(`muster: cannot read the mailbox: ${errorMessage(error)}`),
    });
    this.inbox = inbox;
    this.sweep();
    return () => {
      inbox.close();
      if (this.retry) clearTimeout(this.retry.timer);
      this.retry = undefined;
    };
  }

  /**
   * A turn is starting (pi's before_agent_start): mail the rate held joins it, for pi's next-turn
   * queue is read after this, so it is shown (and acknowledged) in this turn and wakes nobody.
   */
  joinTurn() {
    for (const [id, message] of this.held) {
      this.held.delete(id);
      this.note(message);
      this.waiting.add(id);
      this.host.deliver(message, { wake: false, standing: this.standingOf(message) });
    }
  }

  /** The team's members, read now, to judge senders (undefined: the roster cannot be read). */
  async senders(): Promise<SenderRecord[] | undefined> {
    const team = await this.owner.roster?.read();
    return team?.ok ? team.members : undefined;
  }

  /** The sender as the team knows it, from the members last read. */
  private standingOf(message: Message): SenderStanding {
    return senderStanding(message.from, this.members);
  }

  /** Sweep again just after `at` (when a wake slot frees), unless a sweep is due sooner. */
  private retryAt(at: number) {
    if (this.retry && this.retry.at <= at) return;
    if (this.retry) clearTimeout(this.retry.timer);
    const timer = setTimeout(
      () => {
        this.retry = undefined;
        this.sweep();
      },
      Math.max(0, at - Date.now()) + 50,
    );
    timer.unref();
    this.retry = { at, timer };
  }

  /** Watch the mailbox folder if it is not watched yet (it exists once joined), and read it now. */
  watch() {
    this.inbox?.rewatch();
    this.sweep();
  }

  /** Stop watching the folder (it was deleted or replaced); the next watch() watches it again. */
  unwatch() {
    this.inbox?.unwatch();
  }

  private sweep() {
    this.inbox
      ?.sweep()
      .catch((error) => this.host.warn(`muster: cannot read the mailbox: ${errorMessage(error)}`));
  }

  /** Whether peers address this session as `label` (they mailed it by that label). */
  addressedAs(label: string): boolean {
    return this.addressed.has(label.toLowerCase());
  }

  private note(message: Message) {
    if (message.to.toLowerCase() !== "all") this.addressed.add(message.to.toLowerCase());
  }

  /** pi shows a message (a turn started with it): acknowledge it if it was waiting. */
  async shown(message: Message) {
    this.note(message);
    this.host.delivered.add(message.id);
    if (!this.waiting.delete(message.id)) return;
    await this.owner.roster?.markDelivered(this.owner.options.id, [message.id], "pi");
    await this.owner.roster?.ack(this.owner.options.id, [message.id]);
    await this.owner.refresh();
  }

  /** New mail not yet shown in the session, read and acknowledged (for /team inbox, team_inbox). */
  async take(): Promise<Message[]> {
    const roster = this.owner.roster;
    if (!roster) return [];
    const inbox = await roster.receive(this.owner.options.id);
    if (!inbox.ok) return [];
    const fresh = inbox.messages.filter((message) => !this.host.delivered.has(message.id));
    for (const message of fresh) {
      this.note(message);
      this.held.delete(message.id);
    }
    await roster.markDelivered(
      this.owner.options.id,
      fresh.map((message) => message.id),
      "pi",
    );
    await roster.ack(
      this.owner.options.id,
      inbox.messages.map((message) => message.id),
    );
    await this.owner.refresh();
    return fresh;
  }

  /** Deliver new mail as the wake round plans it (watchInbox runs one read at a time). */
  private async deliverNew() {
    const roster = this.owner.roster;
    const standing = this.owner.standing;
    const watching = standing?.ok ? standing.watching : undefined;
    if (!roster || !watching) return;
    const id = this.owner.options.id;
    const round = await wakeRound(roster, { id, watching }, this.door);
    // Mail pi already shows (after a restart, or a turn that began) is read.
    const shown = round.steps.filter(
      (step) => step.step === "skip" && step.reason === "done" && this.host.delivered.has(step.id),
    );
    if (shown.length > 0)
      await roster.ack(
        id,
        shown.map((step) => step.id),
      );
    // Held mail read elsewhere meanwhile (muster inbox) is no longer held.
    this.held = new Map(round.held.map((message) => [message.id, message]));
    if (round.heldUntil !== undefined) this.retryAt(round.heldUntil);
    await this.owner.refresh();
  }

  /** pi's effect: each message handed to pi, waking it or for its next turn. */
  private async handOver(batch: WakeBatch) {
    this.members = batch.members ? [...batch.members] : undefined;
    const woke: string[] = [];
    for (const message of batch.messages) {
      this.held.delete(message.id);
      this.note(message);
      const standing = this.standingOf(message);
      const mode = batch.modes[message.id];
      this.host.deliver(message, mode ? { wake: true, mode, standing } : { wake: false, standing });
      // Shown when the next turn starts; acknowledged then (see shown()).
      if (!mode) this.waiting.add(message.id);
      else {
        this.host.delivered.add(message.id);
        woke.push(message.id);
      }
    }
    // A waking delivery starts a turn with the message in it: shown, woken for, and read.
    return { ok: true as const, delivered: woke, woke, ack: woke };
  }
}
