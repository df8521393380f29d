// Waking an idle Codex member without keystrokes: `codex queue --thread <id> --message <text>`
// makes its TUI start a turn (or queues the text after a busy one). Every MCP server of the team
// runs this sweep (on a file event in a member's mailbox, and on a timer), but only for the members
// it can deliver to (core's canDeliverWake: the member's own Codex home, on its host); a claim per
// message id (the roster's `wakes` space) makes each message wake at most once however many run,
// and the member's wake slots (the roster's takeWakeSlot, core's wakeRate) keep the rate per
// member across all of them: a batch the rate holds back is marked held in its receipts (when it
// wakes again) and is woken by the first sweep after. A queue that fails releases its claims at
// once, names the failure in the receipt, and keeps its slot, so the next sweep tries again
// within the rate. The wake policy is core's; one line per member per sweep (a batch).
import { randomBytes } from "node:crypto";
import {
  canDeliverWake,
  codexThreadOf,
  decideDelivery,
  heldWake,
  mailWakeLine,
  mayWake,
  type SenderRecord,
  type WakeDoor,
  type WakeHold,
  type WakePolicy,
  wakeRate,
  wakeRateSetting,
} from "@muster/core";
import { processPlace, processStart } from "@muster/node";
import { type Member, type Message, type Roster, WAKE_CLAIM_MS } from "@muster/roster";
import { engineHome, watchMailboxes } from "@muster/wiring";
import { type CodexRun, type CodexRunner, runCodex } from "./_codex-run.js";
import { withStanding } from "./_mail-text.js";

/** This process, as the wake claims it takes name their holder. */
const SELF = { pid: process.pid, start: processStart(process.pid) };

export { type CodexRun, type CodexRunner, codexFor, runCodex } from "./_codex-run.js";

export type CodexWakeOptions = {
  roster: () => Promise<Roster>;
  env: NodeJS.ProcessEnv;
  /** The command line that runs Codex for a member (its own entrypoint, else `codex`). */
  codexFor: (member: Member) => Promise<readonly string[]>;
  run?: CodexRunner;
  /** A name for this process in its claims. */
  holder: string;
  /** Only these members (default: every Codex member of the team). */
  only?: (member: Member) => boolean;
  /**
   * Which members this process can start a turn for (default: core's canDeliverWake, for this
   * process's Codex home and host). Codex's notify runs for the very thread it names: its own.
   */
  canDeliver?: (member: WakeDoor) => boolean;
  now?: () => number;
  /** The wake policy (default: core's, with the env's MUSTER_WAKE_PER_MINUTE). */
  policy?: WakePolicy;
};

/** A message claimed for a wake, and the holder that took it (for a release). */
type Claimed = { message: Message; holder: string };

/** A stopping waker waits this long at most for the sweep in flight. */
const STOP_WAIT_MS = 5_000;

/** The one line queued for a batch (core's mailWakeLine): who wrote, how the team knows them, where to read it. */
export const wakeLine = (
  messages: readonly Message[],
  members: readonly SenderRecord[] | undefined,
): string => mailWakeLine(withStanding(messages, members));

/** What a failed queue said, or its exit status when it said nothing. */
const failure = (queued: CodexRun) =>
  queued.error ??
  (queued.status === null ? "codex could not be run" : `codex queue exited ${queued.status}`);

export function createCodexWaker(options: CodexWakeOptions) {
  const run = options.run ?? runCodex;
  const now = options.now ?? Date.now;
  const policy = options.policy ?? wakeRateSetting(options.env).policy;
  const here = {
    engine: "codex",
    engineHome: engineHome("codex", options.env),
    place: processPlace(),
  };
  const canDeliver = options.canDeliver ?? ((member: WakeDoor) => canDeliverWake(member, here));
  /** Each member's last hold: no slot frees before its retryAfter, so none is asked for. */
  const holds = new Map<string, WakeHold>();
  /** `member.message` → the retryAfter its held mark names, so a hold is marked once. */
  const heldMarks = new Map<string, number>();
  let sweeping: Promise<number> | undefined;
  let stopped = false;

  /**
   * Claim this message's wake; the holder that took it, or undefined when it is taken. A holder of
   * its own per take: a claim this process took earlier is judged like anyone's (fresh until
   * WAKE_CLAIM_MS), never refreshed as ours and woken again.
   */
  async function claimWake(roster: Roster, member: Member, message: Message) {
    const holder = `${options.holder}-${randomBytes(4).toString("hex")}`;
    const claimed = await roster.claim({
      space: "wakes",
      key: `${member.id}.${message.id}`,
      holder,
      // Past its age (or once this process is proven dead) the claim is free: mail still
      // unread may wake again. The roster judges it.
      heldBy: SELF,
      maxAgeMs: WAKE_CLAIM_MS,
    });
    return claimed.ok ? holder : undefined;
  }

  /** Give back the claims of a batch that did not wake (anyone may try again). */
  const release = (roster: Roster, member: Member, batch: readonly Claimed[]) =>
    Promise.all(
      batch.map(({ message, holder }) =>
        roster.releaseClaim("wakes", `${member.id}.${message.id}`, holder),
      ),
    );

  /** The rate holds this batch back: the receipts say so once per hold, for a waiting sender. */
  async function markHeld(roster: Roster, member: Member, batch: readonly Claimed[]) {
    const hold = holds.get(member.id)!;
    const fresh = batch
      .map(({ message }) => `${member.id}.${message.id}`)
      .filter((key) => heldMarks.get(key) !== hold.retryAfter);
    if (fresh.length === 0) return;
    // Marks of holds long over (mail read elsewhere meanwhile) are forgotten.
    for (const [key, until] of heldMarks)
      if (until < hold.retryAfter - WAKE_CLAIM_MS) heldMarks.delete(key);
    const ids = fresh.map((key) => key.slice(member.id.length + 1));
    await roster.markWakeHeld(member.id, ids, "codex-queue", hold);
    for (const key of fresh) heldMarks.set(key, hold.retryAfter);
  }

  async function wakeMember(roster: Roster, member: Member, thread: string): Promise<number> {
    const inbox = await roster.receive(member.id);
    if (!inbox.ok || inbox.messages.length === 0) return 0;
    const at = now();
    // The rate and "once per message" are the roster's here (slots, claims), shared by every
    // process that can wake this member: the policy is asked only about hops and listening.
    const batch: Claimed[] = [];
    for (const message of inbox.messages) {
      const delivery = decideDelivery(message, member.watching, [], at, policy);
      if (delivery.action !== "deliver" || !delivery.wake) continue;
      const holder = await claimWake(roster, member, message);
      if (holder) batch.push({ message, holder });
    }
    if (batch.length === 0) return 0;
    try {
      return await wakeBatch(roster, member, thread, batch, at);
    } catch (error) {
      // A store or a runner that threw: the claims go at once, as for a failed queue.
      await release(roster, member, batch).catch(() => undefined);
      throw error;
    }
  }

  async function wakeBatch(
    roster: Roster,
    member: Member,
    thread: string,
    batch: readonly Claimed[],
    at: number,
  ): Promise<number> {
    const known = holds.get(member.id);
    const slot =
      known && at < known.retryAfter
        ? undefined
        : await roster.takeWakeSlot(member.id, options.holder, wakeRate(policy));
    if (!slot?.ok) {
      if (slot?.reason === "rate-limited") holds.set(member.id, heldWake(slot.takenAt, at, policy));
      if (holds.has(member.id)) await markHeld(roster, member, batch);
      await release(roster, member, batch);
      return 0;
    }
    holds.delete(member.id);
    const ids = batch.map(({ message }) => message.id);
    for (const id of ids) heldMarks.delete(`${member.id}.${id}`);
    const codex = await options.codexFor(member);
    const team = await roster.read();
    const line = wakeLine(
      batch.map(({ message }) => message),
      team.ok ? team.members : undefined,
    );
    const queued = await run(codex, ["queue", "--thread", thread, "--message", line], options.env);
    if (queued.status !== 0) {
      // Nobody was woken: the claims go at once (a process that can deliver may try), the slot
      // stays taken (a failing door is not hammered), and the receipt names why.
      await release(roster, member, batch);
      await roster.markWakeFailed(member.id, ids, "codex-queue", failure(queued));
      return 0;
    }
    // A turn is started (or queued) for these messages: their receipts say so.
    await roster.markWoke(member.id, ids, "codex-queue");
    return 1;
  }

  /** The mailboxes of the members the last sweep looked at, for a watcher. */
  let mailboxes: string[] = [];

  async function sweepOnce(): Promise<number> {
    const roster = await options.roster();
    const read = await roster.read();
    if (!read.ok) return 0;
    let woken = 0;
    const seen: string[] = [];
    for (const member of read.members) {
      const thread = codexThreadOf(member.id);
      if (!thread || !mayWake(member) || !canDeliver(member)) continue;
      if (options.only && !options.only(member)) continue;
      const folder = roster.inboxFolder(member.id);
      if (folder) seen.push(folder);
      woken += await wakeMember(roster, member, thread);
    }
    mailboxes = seen;
    return woken;
  }

  return {
    /** The new-mail folders of the Codex members that mail may wake, as the last sweep found them. */
    mailboxes: () => mailboxes,
    /** One sweep over the team's Codex members; how many were woken. Serialized. */
    sweep(): Promise<number> {
      if (stopped) return Promise.resolve(0);
      sweeping ??= sweepOnce()
        .catch(() => 0)
        .finally(() => {
          sweeping = undefined;
        });
      return sweeping;
    },
    /**
     * No sweep starts from now on; the one in flight is awaited (its woke marks written), for at
     * most `withinMs`.
     */
    async stop(withinMs = STOP_WAIT_MS): Promise<void> {
      stopped = true;
      const inFlight = sweeping;
      if (!inFlight) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, withinMs);
      });
      await Promise.race([inFlight.then(() => undefined), late]);
      clearTimeout(timer);
    },
  };
}

/**
 * Sweep when mail lands in a wakeable Codex member's mailbox (a file event), and every `intervalMs`
 * as well (events can be missed, and members join). A burst of events folds into one more sweep.
 */
export function startCodexWaker(options: CodexWakeOptions & { intervalMs?: number }) {
  const waker = createCodexWaker(options);
  const unwatch = watchMailboxes({
    folders: waker.mailboxes,
    read: () => waker.sweep(),
    sweepMs: options.intervalMs ?? 500,
  });
  /** Stop watching, then await the sweep in flight (bounded): no woke mark is lost mid-sweep. */
  return async (): Promise<void> => {
    unwatch();
    await waker.stop();
  };
}
