// Waking an idle Codex member without keystrokes: `codex queue --thread <id> --message <text>`
// makes its TUI start a turn (or queues the text after a busy one). Every MCP server of the team
// runs this sweep (on a file event in a member's mailbox, and on a timer), but only for the members
// it can deliver to (core's canDeliverWake: the member's own Codex home, on its host); a claim per
// message id (the roster's `wakes` space) makes each message wake at most once however many run.
// A queue that fails releases its claims at once, names the failure in the receipt, and counts
// against the wake policy's rate, so the next sweep tries again within it. The wake policy is
// core's; one line per member per sweep (a batch).
import { spawn } from "node:child_process";
import {
  canDeliverWake,
  DEFAULT_WAKE_POLICY,
  decideDelivery,
  mayWake,
  type RecentWake,
  recordWake,
  type WakeDoor,
} from "@muster/core";
import { processPlace } from "@muster/node";
import { type Member, type Message, type Roster, WAKE_CLAIM_MS } from "@muster/roster";
import { engineHome, processRows, watchMailboxes } from "@muster/wiring";
import { clean } from "./_mail-text.js";

/** What one `codex …` run came to: its exit status, and its first line of complaint. */
export type CodexRun = { status: number | null; error?: string | undefined };

/** Runs `codex <args>` under `env`. */
export type CodexRunner = (
  argv: readonly string[],
  args: string[],
  env: NodeJS.ProcessEnv,
) => Promise<CodexRun>;

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
};

const THREAD = /^codex-([A-Za-z0-9][A-Za-z0-9-]{7,63})$/;

/** The one line queued for a batch: who wrote, the first line, and where to read it. */
export function wakeLine(messages: readonly Message[]): string {
  const first = messages[0]!;
  const senders = [...new Set(messages.map((message) => clean(message.from.label)))];
  if (messages.length === 1) {
    const line = clean(first.body.split("\n")[0] ?? "").slice(0, 160);
    return `Team mail from ${senders[0]}: ${line} — read it with team_inbox`;
  }
  return `Team mail: ${messages.length} messages from ${senders.join(", ")} — read them with team_inbox`;
}

/** The member id of a Codex thread; undefined for text that is not a thread id. */
export const codexMemberId = (thread: unknown): string | undefined =>
  typeof thread === "string" && THREAD.test(`codex-${thread}`) ? `codex-${thread}` : undefined;

/** How to run Codex for a member: MUSTER_CODEX_BIN, else the member's own entrypoint, else PATH. */
export function codexFor(env: NodeJS.ProcessEnv) {
  return async (member: { pid: number }): Promise<string[]> => {
    if (env.MUSTER_CODEX_BIN) return [env.MUSTER_CODEX_BIN];
    const rows = await processRows();
    const row = rows.ok
      ? rows.processes.find((candidate) => candidate.pid === member.pid)
      : undefined;
    const script =
      row?.argv.findIndex((arg) => /\/@openai\/codex\/bin\/codex(\.js)?$/.test(arg)) ?? -1;
    if (row && script >= 0 && row.argv[0]) return [row.argv[0], row.argv[script]!];
    if (row?.argv[0] && /(^|\/)codex$/.test(row.argv[0]) && row.argv[0].startsWith("/"))
      return [row.argv[0]];
    return ["codex"];
  };
}

export const runCodex: CodexRunner = (argv, args, env) =>
  new Promise((resolve) => {
    const [command, ...rest] = argv;
    const child = spawn(command ?? "codex", [...rest, ...args], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString();
    });
    const words = () =>
      stderr
        .split("\n")
        .find((line) => line.trim() !== "")
        ?.trim();
    child.once("error", (error) => resolve({ status: null, error: error.message }));
    child.once("close", (status) => resolve({ status, error: words() }));
  });

/** What a failed queue said, or its exit status when it said nothing. */
const failure = (queued: CodexRun) =>
  queued.error ??
  (queued.status === null ? "codex could not be run" : `codex queue exited ${queued.status}`);

export function createCodexWaker(options: CodexWakeOptions) {
  const run = options.run ?? runCodex;
  const now = options.now ?? Date.now;
  const here = {
    engine: "codex",
    engineHome: engineHome("codex", options.env),
    place: processPlace(),
  };
  const canDeliver = options.canDeliver ?? ((member: WakeDoor) => canDeliverWake(member, here));
  const recent = new Map<string, RecentWake[]>();
  let sweeping: Promise<number> | undefined;

  /** Claim this message's wake; false when another process (or this one) already has it. */
  async function claimWake(roster: Roster, member: Member, message: Message): Promise<boolean> {
    const claimed = await roster.claim({
      space: "wakes",
      key: `${member.id}.${message.id}`,
      holder: options.holder,
      judge: async (current, at) =>
        // Past it, the claim is forgotten (and pruned): mail still unread may wake again.
        at - Date.parse(current.at) > WAKE_CLAIM_MS
          ? { free: true, reason: "expired" }
          : { free: false, held: current.holder },
    });
    return claimed.ok;
  }

  async function wakeMember(roster: Roster, member: Member, thread: string): Promise<number> {
    const inbox = await roster.receive(member.id);
    if (!inbox.ok || inbox.messages.length === 0) return 0;
    const batch: Message[] = [];
    const at = now();
    for (const message of inbox.messages) {
      const delivery = decideDelivery(
        message,
        member.watching,
        recent.get(member.id) ?? [],
        at,
        DEFAULT_WAKE_POLICY,
      );
      if (delivery.action !== "deliver" || !delivery.wake) continue;
      if (!(await claimWake(roster, member, message))) continue;
      batch.push(message);
    }
    if (batch.length === 0) return 0;
    const ids = batch.map((message) => message.id);
    const codex = await options.codexFor(member);
    const queued = await run(
      codex,
      ["queue", "--thread", thread, "--message", wakeLine(batch)],
      options.env,
    );
    const failed = queued.status !== 0;
    for (const message of batch)
      recent.set(
        member.id,
        recordWake(recent.get(member.id) ?? [], { at, messageId: message.id, failed }),
      );
    if (failed) {
      // Nobody was woken: the claims go at once (a process that can deliver may try), and the
      // receipt names why, for a sender waiting on it.
      for (const message of batch)
        await roster.releaseClaim("wakes", `${member.id}.${message.id}`, options.holder);
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
      const thread = THREAD.exec(member.id)?.[1];
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
      sweeping ??= sweepOnce()
        .catch(() => 0)
        .finally(() => {
          sweeping = undefined;
        });
      return sweeping;
    },
  };
}

/**
 * Sweep when mail lands in a wakeable Codex member's mailbox (a file event), and every `intervalMs`
 * as well (events can be missed, and members join). A burst of events folds into one more sweep.
 */
export function startCodexWaker(options: CodexWakeOptions & { intervalMs?: number }) {
  const waker = createCodexWaker(options);
  return watchMailboxes({
    folders: waker.mailboxes,
    read: () => waker.sweep(),
    sweepMs: options.intervalMs ?? 500,
  });
}
