// One pi session on its repository's team: join (through the core rules), heartbeat, watch the
// mailbox and hand each message to pi as the core wake policy decides, leave. Wiring only: every
// decision is a call into @muster/core, every file operation one into @muster/roster.
import {
  chooseLabel,
  decideDelivery,
  heldLabels,
  joinFailureLine,
  joinTeam,
  type RecentWake,
  recordWake,
  replyHops,
  type SessionView,
  type Standing,
  type TeamStatus,
  teamStatus,
  type Watching,
} from "@muster/core";
import { processStart } from "@muster/node";
import type { Message, Roster, TeamRead } from "@muster/roster";
import type { Seat } from "@muster/tmux";
import { errorMessage, findMySeat, type InboxWatch, openTeam, watchInbox } from "@muster/wiring";

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

export type TeamOptions = {
  id: string;
  cwd: string;
  flagLabel?: string | undefined;
  sessionName?: string | undefined;
};

export class TeamSession {
  roster: Roster | undefined;
  standing: Standing | undefined;
  private seat: Seat | undefined;
  private wakes: RecentWake[] = [];
  private readonly hops = new Map<string, number>();
  private readonly stops: (() => void)[] = [];
  private inbox: InboxWatch | undefined;

  readonly options: TeamOptions;
  readonly host: Host;

  constructor(options: TeamOptions, host: Host) {
    this.options = options;
    this.host = host;
  }

  /** Find the team folder and the seat, then join under the chosen label. Never throws. */
  async start(): Promise<void> {
    try {
      const opened = await openTeam({ cwd: this.options.cwd });
      if (!opened.ok) throw new Error(opened.error);
      this.roster = opened.roster;
      const seated = await findMySeat({ pid: process.pid });
      this.seat = seated.ok ? seated.seat : undefined;
      const read = await this.roster.read();
      const choice = chooseLabel({
        flag: this.options.flagLabel,
        env: process.env.MUSTER_LABEL,
        sessionName: this.options.sessionName,
        taken: read.ok ? heldLabels(read.members) : [],
        random: Math.random,
      });
      await this.join(choice.label, undefined, read);
    } catch (error) {
      this.standing = undefined;
      this.host.warn(`muster: not on a team: ${errorMessage(error)}`);
    }
    this.watchMail();
    // MUSTER_HEARTBEAT_MS tunes the interval (tests use a short one); at least 200 ms.
    const interval =
      Number(process.env.MUSTER_HEARTBEAT_MS) || this.roster?.policy.heartbeatIntervalMs || 10_000;
    const beat = setInterval(() => void this.heartbeat(), Math.max(200, interval));
    beat.unref();
    this.stops.push(() => clearInterval(beat));
    await this.refresh();
  }

  /** Ask to join (or rename) through the core rules; remember the answer and report a refusal. */
  async join(label: string, watching?: Watching, known?: TeamRead): Promise<Standing | undefined> {
    const roster = this.roster;
    if (!roster) return undefined;
    const read = known ?? (await roster.read());
    const outcome = await joinTeam(
      this.view(read),
      { join: (input) => roster.join(input) },
      {
        input: {
          agent: "pi",
          pid: process.pid,
          pidStart: processStart(process.pid),
          cwd: this.options.cwd,
          seat: this.seat,
          liveness: "heartbeat" as const,
        },
        watching,
      },
      label,
    );
    this.standing = outcome.standing;
    if (!outcome.standing.ok) this.host.warn(joinFailureLine(outcome.standing));
    else if (this.inbox) this.watchMail();
    await this.refresh();
    return outcome.standing;
  }

  /** Join under the label last asked for, if this session is not on the team; asked once. */
  async ensureJoined(): Promise<Standing | undefined> {
    if (this.standing?.ok) return this.standing;
    return this.join(this.standing?.label ?? chooseLabel({ taken: [], random: Math.random }).label);
  }

  async heartbeat() {
    if (!this.roster || !this.standing?.ok) return;
    const beat = await this.roster.heartbeat(this.options.id);
    // The record is gone (pruned, folder deleted, taken over): join again instead of beating for nobody.
    if (!beat.ok && beat.reason === "lost") {
      const reopened = await openTeam({ dir: this.roster.dir });
      if (reopened.ok) this.roster = reopened.roster;
      this.inbox?.unwatch();
      await this.join(this.standing.label, this.standing.watching);
    }
    await this.refresh();
  }

  async leave() {
    for (const stop of this.stops.splice(0)) stop();
    if (this.roster && this.standing?.ok) await this.roster.leave(this.options.id);
    this.standing = undefined;
  }

  /** Mail the model sends: joined first (its label is the way back), else sent as a guest. */
  async send(to: string, body: string, urgent: boolean, replyTo?: string) {
    const standing = await this.ensureJoined();
    if (!this.roster) return { receipt: undefined, joinLine: "muster has no team folder here" };
    const receipt = await this.roster.send({
      from: this.options.id,
      to,
      body,
      urgent,
      replyTo,
      hops: replyHops(replyTo, (messageId) => this.hops.get(messageId)),
      guest: standing?.ok ? undefined : `${standing?.label ?? "pi"} (not on the team)`,
    });
    return { receipt, joinLine: standing && !standing.ok ? joinFailureLine(standing) : undefined };
  }

  /** New mail, read and acknowledged (for /team inbox and team_inbox). */
  async takeInbox(): Promise<Message[]> {
    if (!this.roster) return [];
    const inbox = await this.roster.receive(this.options.id);
    if (!inbox.ok) return [];
    const fresh = inbox.messages.filter((message) => !this.host.delivered.has(message.id));
    for (const message of fresh) this.hops.set(message.id, message.hops);
    await this.roster.ack(
      this.options.id,
      inbox.messages.map((message) => message.id),
    );
    await this.refresh();
    return fresh;
  }

  /** Watch the mailbox (once it exists), with a periodic sweep as the fallback. Idempotent. */
  private watchMail() {
    const roster = this.roster;
    if (!roster) return;
    if (!this.inbox) {
      const inbox = watchInbox({
        folder: () => this.roster?.inboxFolder(this.options.id),
        read: () => this.deliverNew(),
        sweepMs: 5000,
        onError: (error) =>
          this.host.warn(`muster: cannot read the mailbox: ${errorMessage(error)}`),
      });
      this.inbox = inbox;
      this.stops.push(() => inbox.close());
    } else {
      this.inbox.rewatch();
    }
    this.sweep().catch((error) =>
      this.host.warn(`muster: cannot read the mailbox: ${errorMessage(error)}`),
    );
  }

  /** Deliver new mail as the wake policy decides; acknowledge only what was delivered. Serialized. */
  sweep(): Promise<void> {
    return this.inbox?.sweep() ?? Promise.resolve();
  }

  private async deliverNew() {
    const roster = this.roster;
    const watching = this.standing?.ok ? this.standing.watching : undefined;
    if (!roster || !watching) return;
    const inbox = await roster.receive(this.options.id);
    if (!inbox.ok) return;
    const done: string[] = [];
    for (const message of inbox.messages) {
      if (this.host.delivered.has(message.id)) {
        done.push(message.id);
        continue;
      }
      const now = Date.now();
      const delivery = decideDelivery(message, watching, this.wakes, now);
      if (delivery.action === "hold") continue;
      this.hops.set(message.id, message.hops);
      this.host.deliver(
        message,
        delivery.wake ? { wake: true, mode: delivery.mode } : { wake: false },
      );
      this.host.delivered.add(message.id);
      if (delivery.wake) this.wakes = recordWake(this.wakes, { at: now, messageId: message.id });
      done.push(message.id);
    }
    if (done.length > 0) await roster.ack(this.options.id, done);
    await this.refresh();
  }

  /** This session as the core rules see it, against one read of the roster. */
  private view(read: TeamRead): SessionView {
    return {
      id: this.options.id,
      pid: process.pid,
      pidStart: processStart(process.pid),
      standing: this.standing,
      now: Date.now,
      roster: read.ok ? read.members : "unknown",
    };
  }

  /**
   * This session's place on the team, read now: the roster record is the truth (core's
   * teamStatus); the remembered standing speaks only while the roster cannot be read.
   */
  async place(): Promise<{ status: TeamStatus; read: TeamRead; unread: number } | undefined> {
    if (!this.roster) return undefined;
    const [read, unread] = await Promise.all([
      this.roster.read(),
      this.roster.unread(this.options.id),
    ]);
    const status = teamStatus(this.view(read));
    return { status, read, unread };
  }

  /** The footer: label, members live, unread mail; a refusal as a short warning. */
  async refresh() {
    const place = await this.place();
    if (!place) return this.host.status("muster: no team");
    const { status, read, unread } = place;
    if (status.kind !== "member") {
      const why =
        this.standing?.ok === false
          ? this.standing.reason
          : this.standing
            ? "not on the roster"
            : "starting";
      return this.host.status(`muster: not joined (${why})`);
    }
    const live = read.ok ? read.members.filter((member) => member.state === "live").length : "?";
    this.host.status(`⚑ ${status.label} · ${live} live${unread > 0 ? ` · ${unread} unread` : ""}`);
  }
}
