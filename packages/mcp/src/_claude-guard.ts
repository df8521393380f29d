// Claude Code's PreToolUse hook, the lease guard run before every edit, and who the hook's member
// is (the Claude Code process above it) with the signal it records: apart from the other events'
// code (mail, joining, the doorbell) so that the CLI's bundle for the guard holds none of it.
import type { Roster } from "@muster/roster";
import { alertAbout, findMyAgent, reportSignal } from "@muster/wiring";
import { type ClaudeReads, claudePreToolUse, claudeReads } from "./_claude-leases.js";
import type { HookAnswer, HookOptions } from "./_hook-answer.js";

export type Me = {
  roster: Roster;
  id: string;
  pid: number;
  start: string;
  options: HookOptions;
};

/** The hook's member: the Claude Code process above it, on its team; undefined for none. */
export async function whoAmI(
  options: HookOptions,
  reads: ClaudeReads = claudeReads(options),
): Promise<Me | undefined> {
  const rows = await reads.rows();
  if (!rows.ok) return undefined;
  const agent = findMyAgent(rows.processes, options.ppid);
  if (!agent.ok || agent.engine !== "claude") return undefined;
  const opened = await reads.team();
  if (!opened.ok) return undefined;
  return {
    roster: opened.roster,
    id: `claude-${agent.pid}-${agent.start}`,
    pid: agent.pid,
    start: agent.start,
    options,
  };
}

/**
 * Record what a hook says of the agent (a row of core's signal table), and tell the person when
 * the change deserves it; a member that left records nothing.
 */
export async function signal(me: Me, what: string) {
  const at = me.options.startedAt ?? performance.timeOrigin;
  const outcome = await reportSignal(me.roster, me.id, { engine: "claude", signal: what, at });
  if (outcome.attention)
    await alertAbout(me.roster, me.id, outcome.attention, {
      env: me.options.env,
      detail: {
        turnMs: outcome.before && outcome.after && outcome.after.at - outcome.before.since,
      },
    });
}

/**
 * PreToolUse: the lease guard's answer to the hook's JSON input (undefined: it was not JSON).
 * Refuses what it cannot decide. The activity signal is recorded beside the verdict, and never
 * changes it; both read the processes above the hook and the team: once, shared.
 */
export async function claudeGuard(input: unknown, options: HookOptions): Promise<HookAnswer> {
  const reads = claudeReads(options);
  const signalled = whoAmI(options, reads)
    .then((me) => me && signal(me, "pre-tool-use"))
    .catch(() => undefined);
  const [answer] = await Promise.all([claudePreToolUse(input, options, reads), signalled]);
  return answer;
}
