// `muster agents`: the coding agents in the panes of a tmux server, wherever they work, from one
// scan (one list-panes -a while this process reads /proc), with a member's label where one is
// its agent. Apart from _status.ts so that agents' own bundle (_agents-main.ts) holds only this.
import { printable } from "@muster/core";
import { createTmuxRunnerAlongside } from "@muster/node";
import type { Context } from "./_context.js";
import { shortPath, table } from "./_render.js";
import {
  type AgentView,
  agentViews,
  type MemberView,
  readMembers,
  scanTmux,
} from "./_status-read.js";

/** The agents as a table: pane, session, engine, pid, state, label, folder. */
export function renderAgents(context: Context, agents: readonly AgentView[]): string[] {
  const { color } = context;
  return table(
    ["PANE", "SESSION", "ENGINE", "PID", "STATE", "LABEL", "CWD"],
    agents.map((agent) => [
      printable(agent.pane),
      printable(agent.sessionName),
      printable(agent.engine),
      String(agent.pid),
      agent.state === "live" ? color.green("live") : color.yellow("dormant"),
      agent.label ? color.bold(printable(agent.label)) : "-",
      printable(shortPath(agent.cwd, context.io.env.HOME)),
    ]),
  );
}

export async function agentsCommand(context: Context) {
  // tmux lists the panes while this process reads /proc (scanTmux asks tmux first), its output
  // to files: the two overlap, and no pipe is made into a stream (_exec.ts).
  const scanned = scanTmux({
    ...context,
    run: createTmuxRunnerAlongside(context.tmuxOptions()),
  });
  // The members' labels only (no mailbox is read), their files read while tmux answers.
  const read = readMembers(context, false, () => false).then(
    (found) => found.members,
    // agents are listed wherever they work; a team folder that cannot be read only loses labels
    (): MemberView[] => [],
  );
  const [scan, members] = await Promise.all([scanned, read]);
  const agents = agentViews(scan.result.ok ? scan.result.agents : [], members, undefined);
  if (context.json) {
    return context.emit({
      tmux: { server: scan.server, available: scan.available, note: scan.note ?? null },
      agents,
      // `route` is the --json name of the seat key (agents.schema.json): kept for callers.
      ambiguous: scan.result.ok
        ? scan.result.ambiguous.map(({ seatKey, ...rest }) => ({ route: seatKey, ...rest }))
        : [],
      warnings: [...scan.warnings, ...(scan.result.ok ? [] : [scan.result.error])],
    });
  }
  for (const warning of scan.warnings) context.warn(warning);
  if (!scan.available) return context.out(printable(scan.note ?? ""));
  if (!scan.result.ok) return context.warn(scan.result.error);
  context.out(
    agents.length > 0 ? renderAgents(context, agents).join("\n") : "no coding agent in any pane",
  );
}
