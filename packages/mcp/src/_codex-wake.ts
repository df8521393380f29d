// Waking an idle Codex member without keystrokes: `codex queue --thread <id> --message <text>`
// makes its TUI start a turn (or queues the text after a busy one). Every MCP server of the team
// runs this sweep (on a file event in a member's mailbox, and on a timer); a claim per message id
// (the roster's `wakes` space) makes each message wake at most once however many run. The wake
// policy is core's; one line per member per sweep (a batch).
import { spawn } from "node:child_process";
import { type FSWatcher, watch } from "node:fs";
import { DEFAULT_WAKE_POLICY, decideDelivery, type RecentWake, recordWake } from "@muster/core";
import { type Member, type Message, type Roster, WAKE_CLAIM_MS } from "@muster/roster";
import { processRows } from "@muster/wiring";
import { clean } from "./_mail-text.js";

/** Runs `codex <args>`; resolves with its exit status. */
export type CodexRunner = (argv: readonly string[], args: string[]) => Promise<number | null>;

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

export const runCodex: CodexRunner = (argv, args) =>
  new Promise((resolve) => {
    const [command, ...rest] = argv;
    const child = spawn(command ?? "codex", [...rest, ...args], { stdio: "ignore" });
    child.once("error", () => resolve(null));
    child.once("close", (status) => resolve(status));
  });

export function createCodexWaker(options: CodexWakeOptions) {
  const run = options.run ?? runCodex;
  const now = options.now ?? Date.now;
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
          ? { free: true, why: "expired" }
          : { free: false, held: current.holder },
    });
    return claimed.ok;
  }

  async function wakeMember(roster: Roster, member: Member, thread: string): Promise<number> {
    const inbox = await roster.receive(member.id);
    if (!inbox.ok || inbox.messages.length === 0) return 0;
    const batch: Message[] = [];
    for (const message of inbox.messages) {
      const at = now();
      const delivery = decideDelivery(
        message,
        member.watching,
        recent.get(member.id) ?? [],
        at,
        DEFAULT_WAKE_POLICY,
      );
      if (delivery.action !== "deliver" || !delivery.wake) continue;
      if (!(await claimWake(roster, member, message))) continue;
      recent.set(member.id, recordWake(recent.get(member.id) ?? [], { at, messageId: message.id }));
      batch.push(message);
    }
    if (batch.length === 0) return 0;
    const codex = await options.codexFor(member);
    const status = await run(codex, ["queue", "--thread", thread, "--message", wakeLine(batch)]);
    if (status !== 0) return 0;
    // A turn is started (or queued) for these messages: their receipts say so.
    await roster.markWoke(
      member.id,
      batch.map((message) => message.id),
      "codex-queue",
    );
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
      if (!thread || member.state !== "live" || !member.holdsLabel || !member.watching.wake)
        continue;
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
  const watchers = new Map<string, FSWatcher>();
  let running = false;
  let again = false;
  const rewatch = () => {
    const wanted = new Set(waker.mailboxes());
    for (const [folder, watcher] of watchers)
      if (!wanted.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    for (const folder of wanted) {
      if (watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, () => sweep());
        watcher.on("error", () => {
          watcher.close();
          watchers.delete(folder);
        });
        watcher.unref();
        watchers.set(folder, watcher);
      } catch {
        // not there (yet): the timer covers it
      }
    }
  };
  const sweep = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        await waker.sweep();
        rewatch();
      } while (again);
    })().finally(() => {
      running = false;
    });
  };
  const timer = setInterval(sweep, options.intervalMs ?? 500);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
}
