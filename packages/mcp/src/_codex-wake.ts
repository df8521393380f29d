// Waking an idle Codex member without keystrokes: `codex queue --thread <id> --message <text>`
// makes its TUI start a turn (or queues the text after a busy one). Every MCP server of the team
// runs this sweep; a claim per message id (the roster's `wakes` space) makes each message wake at
// most once however many run. The wake policy is core's; one line per member per sweep (a batch).
import { spawn } from "node:child_process";
import { DEFAULT_WAKE_POLICY, decideDelivery, type RecentWake, recordWake } from "@muster/core";
import type { Member, Message, Roster } from "@muster/roster";
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
  now?: () => number;
};

/** A wake claim older than this is forgotten: mail still unread after it may wake again. */
export const WAKE_CLAIM_MS = 10 * 60_000;

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

  async function sweepOnce(): Promise<number> {
    const roster = await options.roster();
    const read = await roster.read();
    if (!read.ok) return 0;
    let woken = 0;
    for (const member of read.members) {
      const thread = THREAD.exec(member.id)?.[1];
      if (!thread || member.state !== "live" || !member.holdsLabel || !member.watching.wake)
        continue;
      woken += await wakeMember(roster, member, thread);
    }
    return woken;
  }

  return {
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

/** Sweep every `intervalMs` until stopped. */
export function startCodexWaker(options: CodexWakeOptions & { intervalMs?: number }) {
  const waker = createCodexWaker(options);
  const timer = setInterval(() => void waker.sweep(), options.intervalMs ?? 500);
  timer.unref();
  return () => clearInterval(timer);
}
