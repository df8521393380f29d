// `muster join`, `muster leave`, `muster heartbeat`: membership from a shell, for agents that
// cannot run a timer. The member is the agent this shell belongs to (see _identity.ts), kept live
// by its process; the join goes through the core join rules.
import {
  errorLine,
  joinFailureLine,
  joinTeam,
  mailMode,
  oneSentence,
  printable,
  tookOverLine,
  type Watching,
} from "@muster/core";
import { findMySeat } from "@muster/wiring";
import { type Context, Refusal, unreadable } from "./_context.js";
import {
  type IdentifiedCaller as Caller,
  notMember,
  resolveCaller,
  resolveProcess,
} from "./_identity.js";
import { startNudger } from "./_nudge.js";

export type JoinOptions = {
  label: string;
  id?: string | undefined;
  agent?: string | undefined;
  watching?: Watching | undefined;
  /** Start a nudger for this member's pane (`muster nudge`). */
  nudge?: boolean | undefined;
};

export async function joinCommand(context: Context, options: JoinOptions) {
  const caller = await resolveProcess(context, options.id);
  const { outcome, standing, seat, agent } = await joinAsCaller(context, caller, options);
  if (options.nudge && !seat)
    throw new Refusal(
      "no-seat",
      `joined as ${standing.label}, but its pane was not found, so nothing can be typed into it; run muster join --nudge from the agent's pane`,
    );
  const nudger = options.nudge ? await startNudger(context, caller.id) : undefined;
  const result = {
    ok: true,
    id: caller.id,
    label: standing.label,
    agent,
    pid: caller.pid,
    seat: seat ?? null,
    watching: standing.watching,
    asked: outcome.asked,
    took: outcome.took
      ? {
          from: outcome.took.from ?? null,
          why: outcome.took.reason, // `muster join --json` keeps `why`
          forwarded: outcome.took.forwarded,
        }
      : null,
    nudge: nudger === undefined ? null : { pid: nudger },
  };
  if (context.json) return context.emit(result);
  const where = seat ? `, pane ${printable(seat.pane)} in ${printable(seat.sessionName)}` : "";
  const verb = outcome.asked ? "Joined" : "Already on the team";
  context.out(
    `${verb} as ${context.color.bold(printable(standing.label))} (${printable(agent)}, pid ${caller.pid}${where}); mail: ${mailMode(standing.watching)}.`,
  );
  if (outcome.took)
    context.out(printable(oneSentence([tookOverLine(standing.label, outcome.took)])));
  if (nudger !== undefined && seat)
    context.out(
      `Mail nudges pane ${printable(seat.pane)}: one fixed line, typed only when the agent is idle at an empty prompt (muster nudge, pid ${nudger}).`,
    );
}

export async function leaveCommand(context: Context, options: { id?: string | undefined }) {
  const [caller, roster] = await Promise.all([
    resolveCaller(context, options.id),
    context.roster(),
  ]);
  const left = await roster.leave(caller.id);
  if (!left.ok) throw new Refusal(left.reason, errorLine(left));
  if (!left.left) throw notMember(caller);
  if (context.json) return context.emit({ ok: true, id: caller.id, left: true });
  context.out("Left the team; unread mail stays readable until pruned.");
}

export async function heartbeatCommand(context: Context, options: { id?: string | undefined }) {
  const [caller, roster] = await Promise.all([
    resolveCaller(context, options.id),
    context.roster(),
  ]);
  const beat = await roster.heartbeat(caller.id);
  if (!beat.ok && beat.reason === "lost" && !(await onTeam(context, caller.id)))
    throw notMember(caller);
  if (!beat.ok) throw new Refusal(beat.reason, errorLine(beat));
  if (context.json) return context.emit({ ok: true, id: caller.id, label: beat.label });
  context.out(`Heartbeat recorded for ${printable(beat.label)}.`);
}

/**
 * Join `caller` under `options.label` through the core join rules: asked only while not seated.
 * A refusal throws the join's own failure line and fix (`addressed` for a lead).
 */
export async function joinAsCaller(
  context: Context,
  caller: Caller,
  options: Omit<JoinOptions, "id"> & { addressed?: boolean | undefined },
) {
  const roster = await context.roster();
  const seated = await findMySeat({
    pid: caller.pid,
    processes: await context.processes(),
    env: context.io.env,
    target: context.target,
    defaultServer: true,
    run: context.run,
  });
  const seat = seated.ok ? seated.seat : undefined;
  const read = await roster.read();
  const agent = options.agent ?? caller.agent;
  const outcome = await joinTeam(
    {
      id: caller.id,
      pid: caller.pid,
      pidStart: caller.start,
      standing: undefined,
      now: Date.now,
      roster: read.ok ? read.members : "unknown",
    },
    { join: (input) => roster.join(input) },
    {
      input: {
        agent,
        pid: caller.pid,
        pidStart: caller.start,
        cwd: context.io.cwd,
        seat,
        liveness: "process" as const,
      },
      watching: options.watching,
    },
    options.label,
  );
  const standing = outcome.standing;
  if (!standing.ok) {
    throw new Refusal(
      standing.reason,
      joinFailureLine(standing, { addressed: options.addressed }),
      {
        label: options.label,
        holder: standing.holderLabel ?? null,
      },
    );
  }
  return { outcome, standing, seat, agent };
}

/** Is there a record for `id` on the team, in any state? A roster that cannot be read refuses. */
export async function onTeam(context: Context, id: string): Promise<boolean> {
  const read = await (await context.roster()).read({ all: true });
  if (!read.ok) throw unreadable("roster-unknown", read);
  return read.members.some((member) => member.id === id);
}
