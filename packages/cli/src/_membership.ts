// `muster join`, `muster leave`, `muster heartbeat`: membership from a shell, for agents that
// cannot run a timer. The member is the agent this shell belongs to (see _identity.ts), kept live
// by its process; the join goes through the core join rules.
import {
  joinFailureLine,
  joinKeeper,
  joinTeam,
  mailMode,
  mailSetting,
  oneSentence,
  printable,
  tookOverLine,
  type Watching,
} from "@muster/core";
import { engineHome, findMySeat, keepBeating } from "@muster/wiring";
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
  const { outcome, standing, seat, agent, previous } = await joinAsCaller(context, caller, options);
  // A rename names both labels: the one this member was on the team under, and the new one.
  const renamedFrom =
    outcome.asked && previous && previous.toLowerCase() !== standing.label.toLowerCase()
      ? previous
      : null;
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
    renamedFrom,
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
  const label = context.color.bold(printable(standing.label));
  const said = renamedFrom
    ? `Renamed ${printable(renamedFrom)} to ${label}`
    : `${outcome.asked ? "Joined" : "Already on the team"} as ${label}`;
  context.out(
    `${said} (${printable(agent)}, pid ${caller.pid}${where}); mail: ${mailMode(standing.watching)}.`,
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
  const read = await roster.read({ all: true });
  const label = read.ok ? read.members.find((member) => member.id === caller.id)?.label : undefined;
  const left = await roster.leave(caller.id);
  if (!left.ok) throw new Refusal(left.reason, left);
  if (!left.left) throw notMember(caller);
  if (context.json)
    return context.emit({ ok: true, id: caller.id, left: true, label: label ?? null });
  const as = label ? ` as ${printable(label)}` : "";
  context.out(`Left the team${as}; unread mail stays readable until pruned.`);
}

export async function heartbeatCommand(context: Context, options: { id?: string | undefined }) {
  const [caller, roster] = await Promise.all([
    resolveCaller(context, options.id),
    context.roster(),
  ]);
  const beat = await roster.heartbeat(caller.id);
  if (!beat.ok && beat.reason === "lost" && !(await onTeam(context, caller.id)))
    throw notMember(caller);
  if (!beat.ok) throw new Refusal(beat.reason, beat);
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
  const read = await roster.read();
  const own = read.ok
    ? read.members.find((member) => member.id === caller.id && member.state === "live")
    : undefined;
  // Which process keeps the member live is core's rule (a session another door joined: its own).
  const keeper = joinKeeper(own, caller);
  const seated = await findMySeat({
    pid: keeper.pid,
    processes: await context.processes(),
    env: context.io.env,
    target: context.target,
    defaultServer: true,
    run: context.run,
  });
  const seat = seated.ok ? seated.seat : undefined;
  const previous = own?.label;
  const agent = options.agent ?? caller.agent;
  // --no-listen / --wake, else the one mail setting every door reads (MUSTER_MAIL).
  const setting = mailSetting(context.io.env);
  if (!setting.ok) throw new Refusal(setting.reason, setting);
  const outcome = await joinTeam(
    {
      id: caller.id,
      pid: keeper.pid,
      pidStart: keeper.start,
      standing: undefined,
      now: Date.now,
      roster: read.ok ? read.members : "unknown",
    },
    { join: (input) => roster.join(input) },
    {
      input: {
        agent,
        pid: keeper.pid,
        pidStart: keeper.start,
        cwd: context.io.cwd,
        seat,
        liveness: "process" as const,
        engineHome: engineHome(agent, context.io.env),
      },
      watching: options.watching ?? setting.watching,
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
  // On NATS another host sees this member by its heartbeat only: this host's beater keeps it.
  await keepBeating(roster, { cwd: context.io.cwd, env: context.io.env });
  return { outcome, standing, seat, agent, previous };
}

/** Is there a record for `id` on the team, in any state? A roster that cannot be read refuses. */
export async function onTeam(context: Context, id: string): Promise<boolean> {
  const read = await (await context.roster()).read({ all: true });
  if (!read.ok) throw unreadable("roster-unknown", read);
  return read.members.some((member) => member.id === id);
}

/**
 * The caller of a command that may join it: its process (a join needs it), found even with `--id`;
 * where no agent is found above the command, an `--id` alone still names a member to act as, and
 * in Codex's sandbox the thread's live member (which it never joins: before its MCP server joined
 * the thread, the sandbox's own refusal says how).
 */
export async function actingCaller(context: Context, explicitId?: string): Promise<Caller> {
  try {
    return await resolveProcess(context, explicitId);
  } catch (error) {
    if (explicitId !== undefined) return resolveCaller(context, explicitId);
    if (!(error instanceof Refusal) || error.reason !== "sandboxed") throw error;
    const caller = await resolveCaller(context);
    const read = await (await context.roster()).read();
    if (!read.ok) throw unreadable("roster-unknown", read);
    if (!read.members.some((member) => member.id === caller.id && member.state === "live"))
      throw error;
    return caller;
  }
}
