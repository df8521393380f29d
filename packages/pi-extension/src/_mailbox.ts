// This session's mailbox inside pi: watch it, hand each new message to pi as the core wake policy
// decides, and acknowledge a message only once pi shows it. Mail held for the next turn stays
// unread until that turn starts, so the footer counts it and /team inbox lists it.
import { watch } from "node:fs";
import { decideDelivery, type RecentWake, recordWake, type Standing } from "@muster/core";
import type { Message, Roster } from "@muster/roster";

/** What the team needs from pi: delivery of a message into the session, and the footer. */
export type Host = {
  deliver(
    message: Message,
    options: { wake: boolean; mode?: "steer" | "follow-up" | undefined },
  ): void;
  status(text: string | undefined): void;
  warn(line: string): void;
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
  private wakes: RecentWake[] = [];
  private readonly hops = new Map<string, number>();
  /** Labels peers wrote to this session by (not `all`), lower-cased. */
  private readonly addressed = new Set<string>();
  /** Delivered for the next turn, not shown yet: unread until pi shows them. */
  private readonly waiting = new Set<string>();
  private sweeping: Promise<void> | undefined;
  private again = false;
  private watcher: ReturnType<typeof watch> | undefined;
  private readonly owner: Owner;
  private readonly host: Host;

  constructor(owner: Owner, host: Host, addressed: Iterable<string> = []) {
    this.owner = owner;
    this.host = host;
    for (const label of addressed) this.addressed.add(label.toLowerCase());
  }

  /** Start the periodic sweep (the fallback for a missed watch event); returns the stop. */
  start(): () => void {
    const timer = setInterval(() => void this.sweep(), 5000);
    timer.unref();
    this.watch();
    return () => {
      clearInterval(timer);
      this.rewatch();
    };
  }

  /** Watch the mailbox folder (once it exists) and sweep now. Idempotent. */
  watch() {
    const roster = this.owner.roster;
    if (!roster) return;
    if (!this.watcher) {
      try {
        this.watcher = watch(roster.inboxFolder(this.owner.options.id) ?? "", () => {
          void this.sweep();
        });
        this.watcher.unref();
      } catch {
        // no mailbox yet (the join failed): the sweep covers it, and a later join watches again
      }
    }
    void this.sweep();
  }

  /** Drop the watcher (its folder was deleted or replaced); the next watch() makes a new one. */
  rewatch() {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Whether peers address this session as `label` (they mailed it by that label). */
  addressedAs(label: string): boolean {
    return this.addressed.has(label.toLowerCase());
  }

  /** The hop count of a reply to `replyTo`: one more than the message it answers. */
  hopsFor(replyTo: string | undefined): number {
    return replyTo === undefined ? 0 : (this.hops.get(replyTo) ?? 0) + 1;
  }

  private note(message: Message) {
    this.hops.set(message.id, message.hops);
    if (message.to.toLowerCase() !== "all") this.addressed.add(message.to.toLowerCase());
  }

  /** pi shows a message (a turn started with it): acknowledge it if it was waiting. */
  async shown(message: Message) {
    this.note(message);
    this.host.delivered.add(message.id);
    if (!this.waiting.delete(message.id)) return;
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
    for (const message of fresh) this.note(message);
    await roster.ack(
      this.owner.options.id,
      inbox.messages.map((message) => message.id),
    );
    await this.owner.refresh();
    return fresh;
  }

  /** Deliver new mail as the wake policy decides. Serialized: one sweep at a time, then again. */
  sweep(): Promise<void> {
    if (this.sweeping) {
      this.again = true;
      return this.sweeping;
    }
    this.sweeping = (async () => {
      do {
        this.again = false;
        await this.deliverNew();
      } while (this.again);
    })().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async deliverNew() {
    const roster = this.owner.roster;
    const standing = this.owner.standing;
    const watching = standing?.ok ? standing.watching : undefined;
    if (!roster || !watching) return;
    const inbox = await roster.receive(this.owner.options.id);
    if (!inbox.ok) return;
    const done: string[] = [];
    for (const message of inbox.messages) {
      if (this.host.delivered.has(message.id)) {
        done.push(message.id);
        continue;
      }
      if (this.waiting.has(message.id)) continue;
      const now = Date.now();
      const delivery = decideDelivery(message, watching, this.wakes, now);
      if (delivery.action === "hold") continue;
      this.note(message);
      this.host.deliver(
        message,
        delivery.wake ? { wake: true, mode: delivery.mode } : { wake: false },
      );
      if (!delivery.wake) {
        // Shown when the next turn starts; acknowledged then (see shown()).
        this.waiting.add(message.id);
        continue;
      }
      this.host.delivered.add(message.id);
      this.wakes = recordWake(this.wakes, { at: now, messageId: message.id });
      done.push(message.id);
    }
    if (done.length > 0) await roster.ack(this.owner.options.id, done);
    await this.owner.refresh();
  }
}
