// `muster nudge` (what `muster join --nudge` starts): for an engine with no native wake, type one
// fixed line into the member's pane when mail that may wake it arrives — only into an empty input
// line of an idle agent (the tmux leaf's rules, wiring's effects). One nudger per member (a claim),
// each message nudges at most once (the `wakes` claim the Codex waker uses too), in the wiring's
// one wake round. The message's text is never typed. It ends when the member is no longer live.
import { spawn } from "node:child_process";
import { printable, wakeRateSetting } from "@muster/core";
import { processAlive, processStart } from "@muster/node";
import type { Member, Message, Roster } from "@muster/roster";
import { type NudgeOutcome, nudgePane, type WakeDoor, wakeRound, watchInbox } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { notMember, resolveCaller } from "./_identity.js";

const me = `nudger-${process.pid}-${processStart(process.pid) ?? "0"}`;

/** This nudger's process: its claims are free once it is proven dead (the roster judges). */
const SELF = { pid: process.pid, start: processStart(process.pid) };

/** Take the member's nudger claim: one nudger per member. */
async function claimNudger(roster: Roster, caller: { id: string }) {
  const mine = await roster.claim({
    space: "wakes",
    key: `nudger.${caller.id}`,
    holder: me,
    heldBy: SELF,
  });
  if (mine.ok) return;
  if (mine.reason === "held")
    throw new Refusal("nudging", `another muster process already nudges ${caller.id}'s pane`);
  throw new Refusal(mine.reason, `cannot start nudging ${caller.id}: ${mine.reason}`);
}

/** What the nudger says of one nudge (a line, or one JSON line). */
type Report = (member: Member, outcome: NudgeOutcome, messages: readonly Message[]) => void;

function reporter(context: Context, id: string, counted: () => void): Report {
  return (member, outcome, messages) => {
    const line = {
      ok: outcome.ok,
      id,
      label: member.label,
      pane: member.seat?.pane ?? null,
      messages: messages.map((message) => message.id),
      // `why` is kept for the scripts that read it; `error` is every refusal's field.
      ...(outcome.ok ? {} : { reason: outcome.reason, error: outcome.error, why: outcome.error }),
    };
    if (outcome.ok) counted();
    if (context.json) return context.emitLine(line);
    context.out(
      printable(
        outcome.ok
          ? `nudged ${member.label} in ${line.pane} for ${line.messages.join(", ")}`
          : `not nudged (${outcome.error})`,
      ),
    );
  };
}

/**
 * The nudger's door: the fixed line typed into the member's pane. It is its member's only waker,
 * so it counts the rate itself; each message is claimed once the pane is ready (so mail that
 * waits for an idle moment still nudges) and never looked at again.
 */
function nudgeDoor(context: Context, member: () => Member, report: Report): WakeDoor {
  return {
    how: {
      by: "nudge",
      policy: { ...wakeRateSetting(context.io.env).policy, count: "own", nextTurn: false },
      claims: { holder: me, heldBy: SELF, keep: true },
      once: true,
    },
    async wake(batch) {
      const seated = member();
      if (!seated.seat) return { ok: false };
      let won: readonly Message[] = [];
      const outcome = await nudgePane({
        run: context.run,
        target: { socket: seated.seat.server },
        pane: seated.seat.pane,
        beforeTyping: async () => {
          won = await batch.take();
          return won.length > 0;
        },
      });
      // Waiting for an idle moment is not news; a nudge, or one that went wrong, is.
      if (outcome.ok || outcome.reason === "raced" || outcome.reason === "not-submitted")
        report(seated, outcome, won);
      return outcome.ok ? { ok: true, woke: won.map((message) => message.id) } : { ok: false };
    },
  };
}

export async function nudgeCommand(context: Context, options: { id?: string | undefined }) {
  const roster = await context.roster();
  const caller = await resolveCaller(context, options.id);
  const id = caller.id;
  // A member who is not on the team has no pane to nudge: said, not a silent exit 0.
  const start = await roster.read();
  if (start.ok && start.members.find((entry) => entry.id === id)?.state !== "live")
    throw notMember(caller);
  await claimNudger(roster, caller);
  let nudged = 0;
  let member: Member | undefined;
  const door = nudgeDoor(
    context,
    () => member!,
    reporter(context, id, () => {
      nudged += 1;
    }),
  );
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
      member = read.members.find((entry) => entry.id === id);
      if (member?.state !== "live") return finish();
      if (member.seat) await wakeRound(roster, member, door);
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
