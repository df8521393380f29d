// One pi session on its repository's team: every door in (start, a typed /team join, a send, the
// heartbeat) goes through the core join rules with the roster's word on this session; leave holds
// until the user joins again. Wiring only: every decision is a call into @muster/core, every file
// operation one into @muster/roster. Mail delivery lives in `_mailbox.ts`, sending in
// `_team-send.ts`, what pi's events and deaths say in `_team-signals.ts`.
import {
  chooseLabel,
  errorLine,
  heldLabels,
  joinFailureLine,
  joinTeam,
  mailSetting,
  refusalPasses,
  type SessionView,
  type Standing,
  teamStatus,
  tookOverLine,
  type Watching,
} from "@muster/core";
import { processStart } from "@muster/node";
import type { JoinInput, Roster, TeamRead } from "@muster/roster";
import type { Seat } from "@muster/tmux";
import {
  errorMessage,
  findMySeat,
  type OpenTeamOptions,
  openTeam,
  teamBoard,
} from "@muster/wiring";
import { type Host, Mailbox } from "./_mailbox.js";
import { footerText, type Overview, type Sent } from "./_render.js";
import { sendAs } from "./_team-send.js";
import { reportPiSignal, watchDeaths } from "./_team-signals.js";

export type { Host } from "./_mailbox.js";

export type TeamOptions = {
  id: string;
  cwd: string;
  flagLabel?: string | undefined;
  sessionName?: string | undefined;
  /** Labels peers have addressed this session by, from the mail it already shows. */
  addressed?: Iterable<string> | undefined;
};

/** How a join came about: typed by the user (asked even when the roster gives no word), or not. */
export type JoinHow = {
  watching?: Watching | undefined;
  typed?: boolean | undefined;
  read?: TeamRead | undefined;
  /** Say nothing on a refusal: the caller reports it (a send does, in its result). */
  quiet?: boolean | undefined;
};

export class TeamSession {
  roster: Roster | undefined;
  standing: Standing | undefined;
  /** The label last asked for: a re-join uses it, and a leave does not forget it. */
  asked: string | undefined;
  /** The user left with /team leave: nothing joins again until /team join. */
  left = false;
  readonly mailbox: Mailbox;
  readonly options: TeamOptions;
  readonly host: Host;
  private seat: Seat | undefined;
  private readonly pidStart = processStart(process.pid);
  private readonly stops: (() => void)[] = [];
  /** Joins, heartbeats and leaves run one at a time: a leave is never undone by a late beat. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The board's lead when a join was last refused: peers address a lead by its label too. */
  private lead: string | undefined;
  /** pi's events, recorded in the order pi emitted them. */
  private signals: Promise<unknown> = Promise.resolve();

  constructor(options: TeamOptions, host: Host) {
    this.options = options;
    this.host = host;
    this.mailbox = new Mailbox(this, host, options.addressed);
  }

  /** Find the team folder and the seat, then join under the chosen label. Never throws. */
  async start(): Promise<void> {
    try {
      await this.open({ cwd: this.options.cwd });
      const seated = await findMySeat({ pid: process.pid });
      this.seat = seated.ok ? seated.seat : undefined;
    } catch (error) {
      this.host.warn(`muster: not on a team: ${errorMessage(error)}`);
    }
    const read = await this.roster?.read();
    // The one mail setting every door reads (MUSTER_MAIL); a re-join later keeps the record's.
    const setting = mailSetting(process.env);
    if (!setting.ok) this.host.warn(`muster: ${errorLine(setting)}; mail stays as it was`);
    const watching = setting.ok ? setting.watching : undefined;
    await this.join(this.chosenLabel(read), { read, quiet: !this.roster, watching });
    this.signal("session-start");
    // MUSTER_HEARTBEAT_MS tunes the interval (tests use a short one); at least 200 ms.
    const interval =
      Number(process.env.MUSTER_HEARTBEAT_MS) || this.roster?.policy.heartbeatIntervalMs || 10_000;
    const beat = setInterval(() => void this.heartbeat(), Math.max(200, interval));
    beat.unref();
    this.stops.push(() => clearInterval(beat), this.mailbox.start());
  }

  /** Open the roster (or re-open it at its folder, after the folder was deleted). */
  private async open(where: OpenTeamOptions) {
    const opened = await openTeam(where);
    if (!opened.ok) throw new Error(errorLine(opened));
    this.roster = opened.roster;
  }

  /** Open the team folder again (deleted under this session); a team on NATS stays open. */
  private async reopen() {
    if (this.roster?.store.kind !== "folder") return;
    await this.open({ dir: this.roster.dir }).catch(() => undefined);
  }

  /** The label a join asks for when none is typed: flag, environment, session name, generated. */
  chosenLabel(read?: TeamRead): string {
    if (this.asked) return this.asked;
    return chooseLabel({
      flag: this.options.flagLabel,
      env: process.env.MUSTER_LABEL,
      sessionName: this.options.sessionName,
      taken: read?.ok ? heldLabels(read.members) : [],
      random: Math.random,
    }).label;
  }

  /** What this process knows of itself, with the roster's word on it. */
  view(read: TeamRead | undefined): SessionView {
    return {
      id: this.options.id,
      pid: process.pid,
      pidStart: this.pidStart,
      standing: this.standing,
      now: Date.now,
      roster: read?.ok ? read.members : "unknown",
    };
  }

  /** A refusal in one line, with the fix (and the cost of renaming where peers use the label). */
  refusalLine(standing: Standing): string {
    const lead = this.lead?.toLowerCase() === standing.label.toLowerCase();
    const addressed = this.mailbox.addressedAs(standing.label) || lead;
    return joinFailureLine(standing, { addressed });
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ask to join (or rename) through the core rules; remember the answer and report a refusal. */
  join(label: string, how: JoinHow = {}): Promise<Standing> {
    return this.serialized(() => this.ask(label, how));
  }

  private async ask(label: string, how: JoinHow): Promise<Standing> {
    this.asked = label;
    if (how.typed) this.left = false;
    const roster = this.roster;
    const read = how.read ?? (await roster?.read());
    const outcome = await joinTeam(
      this.view(read),
      roster ? { join: (input: JoinInput) => roster.join(input) } : undefined,
      {
        input: {
          agent: "pi",
          pid: process.pid,
          pidStart: this.pidStart,
          cwd: this.options.cwd,
          seat: this.seat,
          liveness: "heartbeat" as const,
        },
        watching: how.watching,
        typed: how.typed,
      },
      label,
    );
    this.standing = outcome.standing;
    if (!outcome.standing.ok && this.roster)
      this.lead = await teamBoard(this.roster)
        .board.lead()
        .catch(() => undefined);
    if (!outcome.standing.ok && !how.quiet) this.host.warn(this.refusalLine(outcome.standing));
    // Said even on a quiet join: mail meant for the label's previous holder is now this session's.
    if (outcome.standing.ok && outcome.took)
      this.host.note?.(`muster: ${tookOverLine(outcome.standing.label, outcome.took)}`);
    if (outcome.standing.ok) this.mailbox.watch();
    await this.refresh();
    return outcome.standing;
  }

  /** The roster read; a folder deleted under this session is made again first. */
  private async readRoster(): Promise<TeamRead | undefined> {
    const read = await this.roster?.read();
    if (!this.roster || read?.ok) return read;
    await this.reopen();
    return this.roster.read();
  }

  /**
   * What one of pi's own events says of this session (a row of core's signal table, engine
   * `pi`): recorded in the member's record, and the person told when the change deserves it.
   */
  signal(name: string): void {
    const at = Date.now();
    this.signals = this.signals
      .then(async () => {
        const roster = this.roster;
        if (!roster || !this.standing?.ok || this.left) return;
        await reportPiSignal(roster, this.options.id, name, at);
      })
      .catch(() => undefined);
  }

  heartbeat(): Promise<void> {
    return this.serialized(async () => {
      const standing = this.standing;
      if (!this.roster || !standing || this.left) return;
      // A refusal whose cause passes (the folder deleted while the last re-join ran) is asked
      // again, quietly; one that the user must answer (a held label) is not.
      if (!standing.ok && !refusalPasses(standing.reason)) return;
      const beat = standing.ok ? await this.roster.heartbeat(this.options.id) : undefined;
      // The record or its label is gone (pruned, folder deleted, taken over): ask again by the
      // rules, repeating the listening choice the record holds (with no record, the standing's).
      if (!beat || (!beat.ok && beat.reason === "lost")) {
        await this.reopen();
        this.mailbox.unwatch();
        await this.ask(standing.label, { read: await this.roster.read(), quiet: !standing.ok });
      }
      const read = await this.roster.read();
      await watchDeaths(this.roster, read).catch(() => undefined);
      await this.refresh(read);
    });
  }

  /** /team leave: off the team until /team join; a send goes as a guest meanwhile. */
  leave(): Promise<void> {
    return this.serialized(async () => {
      await this.roster?.leave(this.options.id);
      this.standing = undefined;
      this.left = true;
      await this.refresh();
    });
  }

  /** pi is shutting down: stop every timer and watcher, and leave. */
  async shutdown() {
    for (const stop of this.stops.splice(0)) stop();
    await this.leave();
  }

  /**
   * Before an action that names this session (a send, a claim): join by the rules, under the label
   * last asked for, reading membership from the roster record. Nothing joins after /team leave.
   */
  ensureJoined(): Promise<Standing | undefined> {
    return this.serialized(async () => {
      if (this.left) return undefined;
      const read = await this.readRoster();
      return this.ask(this.chosenLabel(read), { read, quiet: true });
    });
  }

  /** Mail the model or the user sends, to one label, `a,b` or all (`_team-send.ts`). */
  send(to: string, body: string, urgent: boolean, replyTo?: string): Promise<Sent> {
    return sendAs(this, { to, body, urgent, replyTo });
  }

  /** This session's place (the roster record first), members and unread mail. */
  async overview(read?: TeamRead): Promise<Overview> {
    const roster = this.roster;
    const current = read ?? (await roster?.read());
    const label = this.standing?.label ?? "";
    return {
      status: teamStatus(this.view(current), { addressed: this.mailbox.addressedAs(label) }),
      left: this.left,
      members: current === undefined ? undefined : current.ok ? current.members : current,
      unread: roster ? await roster.unread(this.options.id) : 0,
      id: this.options.id,
    };
  }

  async refresh(read?: TeamRead) {
    this.host.status(footerText(await this.overview(read)));
  }
}
