// `muster nudge` (what `muster join --nudge` starts): for an engine with no native wake, type one
// fixed line into the member's pane when mail that may wake it arrives — only into an empty input
// line of an idle agent (the tmux leaf's rules, wiring's effects). One nudger per member (a claim),
// each message nudges at most once (the `wakes` claim the Codex waker uses too). The message's
// text is never typed. It ends when the member is no longer live.
import { spawn } from "node:child_process";
import {
  decideDelivery,
  heldWake,
  printable,
  type RecentWake,
  recordWake,
  wakeRateSetting,
} from "@muster/core";
import { processAlive, processStart } from "@muster/node";
import type { Member, Message, Roster } from "@muster/roster";
import { type NudgeOutcome, nudgePane, watchInbox } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { notMember, resolveCaller } from "./_identity.js";

const me = `nudger-${process.pid}-${processStart(process.pid) ?? "0"}`;

/** This nudger's process: its claims are free once it is proven dead (the roster judges). */
const SELF = { pid: process.pid, start: processStart(process.pid) };

/** Claim each message's wake; the ones this process won. */
async function claimWakes(roster: Roster, member: Member, messages: readonly Message[]) {
  const won: Message[] = [];
  for (const message of messages) {
    const claimed = await roster.claim({
      space: "wakes",
      key: `${member.id}.${message.id}`,
      holder: me,
      heldBy: SELF,
    });
    if (claimed.ok) won.push(message);
  }
  return won;
}

export async function nudgeCommand(context: Context, options: { id?: string | undefined }) {
  const roster = await context.roster();
  const caller = await resolveCaller(context, options.id);
  const id = caller.id;
  // A member who is not on the team has no pane to nudge: said, not a silent exit 0.
  const start = await roster.read();
  if (start.ok && start.members.find((entry) => entry.id === id)?.state !== "live")
    throw notMember(caller);
  const mine = await roster.claim({
    space: "wakes",
    key: `nudger.${id}`,
    holder: me,
    heldBy: SELF,
  });
  if (!mine.ok) {
    if (mine.reason === "held")
      throw new Refusal("nudging", `another muster process already nudges ${id}'s pane`);
    throw new Refusal(mine.reason, `cannot start nudging ${id}: ${mine.reason}`);
  }
  let recent: RecentWake[] = [];
  const policy = wakeRateSetting(context.io.env).policy;
  /** Messages this nudger claimed, or found claimed: never looked at again. */
  const handled = new Set<string>();
  /** Messages the rate held, marked so once each (they nudge at a sweep past the window). */
  const heldMarked = new Set<string>();
  /** The only nudger of this member counts its wakes itself (decideDelivery's own count). */
  const markHeld = async (messages: readonly Message[], now: number) => {
    const fresh = messages.filter((message) => !heldMarked.has(message.id));
    if (fresh.length === 0) return;
    const inWindow = recent.filter((wake) => now - wake.at < policy.windowMs);
    const hold = heldWake(
      inWindow.map((wake) => wake.at),
      now,
      policy,
    );
    const ids = fresh.map((message) => message.id);
    await roster.markWakeHeld(id, ids, "nudge", hold);
    for (const messageId of ids) heldMarked.add(messageId);
  };
  let nudged = 0;
  const report = (member: Member, outcome: NudgeOutcome, messages: readonly Message[]) => {
    const line = {
      ok: outcome.ok,
      id,
      label: member.label,
      pane: member.seat?.pane ?? null,
      messages: messages.map((message) => message.id),
      // `why` is kept for the scripts that read it; `error` is every refusal's field.
      ...(outcome.ok ? {} : { reason: outcome.reason, error: outcome.error, why: outcome.error }),
    };
    if (outcome.ok) nudged += 1;
    if (context.json) return context.emitLine(line);
    context.out(
      printable(
        outcome.ok
          ? `nudged ${member.label} in ${line.pane} for ${line.messages.join(", ")}`
          : `not nudged (${outcome.error})`,
      ),
    );
  };
  if (context.json) context.emitLine({ id, nudging: true });
  await new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      inbox.close();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void roster.releaseClaim("wakes", `nudger.${id}`, me).finally(() => {
        if (error === undefined) resolve();
        else reject(error);
      });
    };
    const stop = () => finish();
    const tick = async () => {
      const read = await roster.read();
      if (!read.ok) return;
      const member = read.members.find((entry) => entry.id === id);
      if (member?.state !== "live") return finish();
      if (!member.seat) return;
      const mail = await roster.receive(id);
      if (!mail.ok) return;
      const now = Date.now();
      const held: Message[] = [];
      const waking = mail.messages.filter((message) => {
        if (handled.has(message.id)) return false;
        const delivery = decideDelivery(message, member.watching, recent, now, policy);
        if (delivery.action === "deliver" && !delivery.wake && delivery.reason === "rate-limited")
          held.push(message);
        return delivery.action === "deliver" && delivery.wake;
      });
      await markHeld(held, now);
      if (waking.length === 0) return;
      let won: Message[] = [];
      const outcome = await nudgePane({
        run: context.run,
        target: { socket: member.seat.server },
        pane: member.seat.pane,
        // Claimed only once the pane is ready, so mail that waits for an idle moment still nudges.
        beforeTyping: async () => {
          won = await claimWakes(roster, member, waking);
          for (const message of waking) handled.add(message.id);
          return won.length > 0;
        },
      });
      if (outcome.ok) {
        const ids = won.map((message) => message.id);
        await roster.markWoke(id, ids, "nudge");
        for (const messageId of ids) recent = recordWake(recent, { at: now, messageId }, policy);
      }
      // Waiting for an idle moment is not news; a nudge, or one that went wrong, is.
      if (outcome.ok || outcome.reason === "raced" || outcome.reason === "not-submitted")
        report(member, outcome, won);
    };
    const inbox = watchInbox({
      folder: () => roster.inboxFolder(id),
      signal: (onMail) => roster.watchMail(id, onMail),
      read: tick,
      sweepMs: 2000,
      keepAlive: true,
      onError: (error) => finish(error),
    });
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    inbox.sweep().catch((error) => finish(error));
  });
  if (context.json) context.emitLine({ id, nudging: false, nudged });
}

/** The pid of the nudger already running for `id`, if one is. */
async function runningNudger(roster: Roster, id: string): Promise<number | undefined> {
  const claim = await roster.readClaim("wakes", `nudger.${id}`);
  if (claim === undefined || claim === "unreadable") return undefined;
  const [, pid, start] = /^nudger-(\d+)-(\d+)$/.exec(claim.holder) ?? [];
  return pid !== undefined && processAlive(Number(pid), start) === "alive"
    ? Number(pid)
    : undefined;
}

/** Start `muster nudge --id <id>` detached on the same team folder, unless one runs; its pid. */
export async function startNudger(context: Context, id: string): Promise<number | undefined> {
  const roster = await context.roster();
  const running = await runningNudger(roster, id);
  if (running !== undefined) return running;
  const teamDir = roster.dir;
  const entry = process.argv[1];
  if (!entry) return undefined;
  const child = spawn(process.execPath, [entry, "nudge", "--id", id], {
    detached: true,
    stdio: "ignore",
    // A team on NATS is found again from the repository (the same cwd); a folder team is named.
    env:
      roster.store.kind === "folder"
        ? { ...context.io.env, MUSTER_TEAM_DIR: teamDir }
        : context.io.env,
  });
  child.unref();
  return child.pid;
}
