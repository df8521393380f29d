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
import {
  canDeliverWake,
  codexThreadOf,
  mailWakeLine,
  mayWake,
  type SenderRecord,
  type WakeDoor as WakePlace,
  type WakePolicy,
  wakeRateSetting,
} from "@muster/core";
import { processPlace, processStart } from "@muster/node";
import { type Member, type Message, type Roster, WAKE_CLAIM_MS } from "@muster/roster";
import { engineHome, type WakeDoor, type WakeHow, wakeRound, watchMailboxes } from "@muster/wiring";
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
  canDeliver?: (member: WakePlace) => boolean;
  now?: () => number;
  /** The wake policy (default: core's, with the env's MUSTER_WAKE_PER_MINUTE). */
  policy?: WakePolicy;
};

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

/** The door Codex's queue is, for one member: the wake round's batch as one `codex queue` line. */
function codexDoor(
  options: Pick<CodexWakeOptions, "run" | "codexFor" | "env">,
  how: WakeHow,
  member: Member,
  thread: string,
): WakeDoor {
  const run = options.run ?? runCodex;
  return {
    how,
    async wake(batch) {
      const won = await batch.take();
      if (won.length === 0) return { ok: false };
      const codex = await options.codexFor(member);
      const line = wakeLine(won, batch.members);
      const queued = await run(
        codex,
        ["queue", "--thread", thread, "--message", line],
        options.env,
      );
      // Nobody was woken: the claims go at once (a process that can deliver may try), the slot
      // stays taken (a failing door is not hammered), and the receipt names why.
      if (queued.status !== 0) return { ok: false, error: failure(queued) };
      // A turn is started (or queued) for these messages: their receipts say so.
      return { ok: true, woke: won.map((message) => message.id) };
    },
  };
}

/**
 * How Codex's queue wakes: the rate and "once per message" are the roster's (slots, claims),
 * shared by every process that can wake a member. A claim is past its age (or free once this
 * process is proven dead): mail still unread may wake again.
 */
const codexHow = (holder: string, policy: WakePolicy): WakeHow => ({
  by: "codex-queue",
  policy: { ...policy, count: "shared", nextTurn: false },
  claims: { holder, heldBy: SELF, maxAgeMs: WAKE_CLAIM_MS, keep: true },
});

/**
 * One round for one Codex member, by a process that is its own door (Codex's notify, run for the
 * very thread it names): 1 when a turn was started. Never throws.
 */
export async function wakeCodexMember(
  roster: Roster,
  memberId: string,
  options: Omit<CodexWakeOptions, "roster" | "only" | "canDeliver">,
): Promise<number> {
  try {
    const read = await roster.read();
    const member = read.ok ? read.members.find((entry) => entry.id === memberId) : undefined;
    const thread = codexThreadOf(memberId);
    if (!member || !thread || !mayWake(member)) return 0;
    const how = codexHow(options.holder, options.policy ?? wakeRateSetting(options.env).policy);
    const door = codexDoor(options, how, member, thread);
    const round = await wakeRound(roster, member, door, (options.now ?? Date.now)());
    return round.woke ? 1 : 0;
  } catch {
    return 0;
  }
}

export function createCodexWaker(options: CodexWakeOptions) {
  const now = options.now ?? Date.now;
  const policy = options.policy ?? wakeRateSetting(options.env).policy;
  const here = {
    engine: "codex",
    engineHome: engineHome("codex", options.env),
    place: processPlace(),
  };
  const canDeliver = options.canDeliver ?? ((member: WakePlace) => canDeliverWake(member, here));
  const how = codexHow(options.holder, policy);
  /** Each member's door, keeping its book (the slots' last hold, the held marks) between sweeps. */
  const doors = new Map<string, WakeDoor>();
  let sweeping: Promise<number> | undefined;
  let stopped = false;

  async function wakeMember(roster: Roster, member: Member, thread: string): Promise<number> {
    const door = doors.get(member.id) ?? codexDoor(options, how, member, thread);
    doors.set(member.id, door);
    return (await wakeRound(roster, member, door, now())).woke ? 1 : 0;
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
