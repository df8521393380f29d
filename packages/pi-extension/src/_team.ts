// One pi session on its repository's team: join (through the core rules), heartbeat, watch the
// mailbox and hand each message to pi as the core wake policy decides, leave. Wiring only: every
// decision is a call into @muster/core, every file operation one into @muster/roster.
import { watch } from "node:fs";
import {
  chooseLabel,
  decideDelivery,
  joinFailureLine,
  joinTeam,
  type RecentWake,
  recordWake,
  type Standing,
  type Watching,
} from "@muster/core";
import {
  createTmuxRunner,
  findTeamFolder,
  nodeFs,
  processFacts,
  processStart,
  readProcessTable,
} from "@muster/node";
import { type Message, openRoster, type Roster, type TeamRead } from "@muster/roster";
import { findProcessSeat, parseTmuxEnv, type Seat } from "@muster/tmux";

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
  label: string | undefined;
  private seat: Seat | undefined;
  private wakes: RecentWake[] = [];
  private readonly hops = new Map<string, number>();
  private readonly stops: (() => void)[] = [];
  private sweeping: Promise<void> | undefined;
  private again = false;
  private watcher: ReturnType<typeof watch> | undefined;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;

  readonly options: TeamOptions;
  readonly host: Host;

  constructor(options: TeamOptions, host: Host) {
    this.options = options;
    this.host = host;
  }

  /** Find the team folder and the seat, then join under the chosen label. Never throws. */
  async start(): Promise<void> {
    try {
      const folder = await findTeamFolder({ cwd: this.options.cwd });
      const opened = await openRoster({
        dir: folder.dir,
        fs: nodeFs,
        clock: Date.now,
        processes: processFacts,
      });
      if (!opened.ok) throw new Error(opened.error);
      this.roster = opened.roster;
      const table = await readProcessTable();
      const here = parseTmuxEnv(process.env);
      const seated =
        table.ok && here
          ? await findProcessSeat(createTmuxRunner(), table.processes, process.pid, {
              target: { socket: here.server.socket },
              claimedPane: here.pane,
            }).catch(() => undefined)
          : undefined;
      this.seat = seated?.ok ? seated.seat : undefined;
      const read = await this.roster.read();
      const choice = chooseLabel({
        flag: this.options.flagLabel,
        env: process.env.MUSTER_LABEL,
        sessionName: this.options.sessionName,
        taken: read.ok
          ? read.members.filter((member) => member.holdsLabel).map((member) => member.label)
          : [],
        random: Math.random,
      });
      await this.join(choice.label, undefined, read);
    } catch (error) {
      this.standing = undefined;
      this.host.warn(`muster: not on a team: ${(error as Error).message}`);
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
      {
        id: this.options.id,
        pid: process.pid,
        pidStart: processStart(process.pid),
        standing: this.standing,
        now: Date.now,
        roster: read.ok ? read.members : "unknown",
      },
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
    this.label = outcome.standing.ok ? outcome.standing.label : undefined;
    if (!outcome.standing.ok) this.host.warn(joinFailureLine(outcome.standing));
    else if (this.sweepTimer) this.watchMail();
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
      const reopened = await openRoster({
        dir: this.roster.dir,
        fs: nodeFs,
        clock: Date.now,
        processes: processFacts,
      });
      if (reopened.ok) this.roster = reopened.roster;
      this.watcher?.close();
      this.watcher = undefined;
      await this.join(this.standing.label, this.standing.watching);
    }
    await this.refresh();
  }

  async leave() {
    for (const stop of this.stops.splice(0)) stop();
    if (this.roster && this.standing?.ok) await this.roster.leave(this.options.id);
    this.standing = undefined;
    this.label = undefined;
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
      hops: replyTo === undefined ? 0 : (this.hops.get(replyTo) ?? 0) + 1,
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
    if (!this.roster) return;
    if (!this.sweepTimer) {
      this.sweepTimer = setInterval(() => void this.sweep(), 5000);
      this.sweepTimer.unref();
      this.stops.push(() => clearInterval(this.sweepTimer));
    }
    if (!this.watcher) {
      try {
        this.watcher = watch(
          this.roster.inboxFolder(this.options.id) ?? "",
          () => void this.sweep(),
        );
        this.watcher.unref();
        this.stops.push(() => this.watcher?.close());
      } catch {
        // no mailbox yet (the join failed): the sweep covers it, and a later join watches again
      }
    }
    void this.sweep();
  }

  /** Deliver new mail as the wake policy decides; acknowledge only what was delivered. Serialized. */
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

  /** The footer: label, members live, unread mail; a refusal as a short warning. */
  async refresh() {
    if (!this.roster) return this.host.status("muster: no team");
    if (!this.standing?.ok)
      return this.host.status(`muster: not joined (${this.standing?.reason ?? "starting"})`);
    const [read, unread] = await Promise.all([
      this.roster.read(),
      this.roster.unread(this.options.id),
    ]);
    const live = read.ok ? read.members.filter((member) => member.state === "live").length : "?";
    this.host.status(
      `⚑ ${this.standing.label} · ${live} live${unread > 0 ? ` · ${unread} unread` : ""}`,
    );
  }

  stop() {
    for (const stop of this.stops.splice(0)) stop();
  }
}
