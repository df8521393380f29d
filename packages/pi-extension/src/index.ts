// The muster extension for pi: wires pi's events, the /team command, the team tools (one loop
// over their table) and the footer to a TeamSession. It holds no rules of its own: those live in
// @muster/core and @muster/roster.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { printable } from "@muster/core";
import type { Message } from "@muster/roster";
import { createBoard } from "./_board.js";
import { runTeamCommand, TEAM_USAGE, teamCompletions } from "./_commands.js";
import { hostedSession, MAIL, safe } from "./_host.js";
import { createLeaseGuard } from "./_leases.js";
import type { TeamSession } from "./_team.js";
import type { ToolContext } from "./_tool.js";
import { registerTools } from "./_tools.js";

/** The muster extension factory. */
export default function muster(pi: ExtensionAPI) {
  let team: TeamSession | undefined;
  let ui: ExtensionContext["ui"] | undefined;

  const leases = createLeaseGuard(
    () =>
      team
        ? {
            roster: team.roster,
            id: team.options.id,
            cwd: team.options.cwd,
            label: () => (team?.standing?.ok ? team.standing.label : undefined),
          }
        : undefined,
    (line) => ui?.notify(safe(line), "warning"),
  );
  pi.on("tool_call", (event) => leases.onToolCall(event));
  // pi's own events are this session's activity (core's signal table, engine pi).
  const report = (signal: string) => () => team?.signal(signal);
  pi.on("agent_start", report("agent-start"));
  pi.on("turn_start", report("turn-start"));
  pi.on("tool_execution_start", report("tool-start"));
  pi.on("ui_prompt_start", report("ui-prompt-start"));
  pi.on("ui_prompt_end", report("ui-prompt-end"));
  pi.on("agent_settled", report("agent-settled"));
  const board = createBoard(() => team);
  /** The footer's lines of what this session holds: `▣ c4 +1`, `✎ src/auth/** +1`, or none. */
  const show = (key: string, mark: string, held: Promise<string | undefined>) =>
    void held.then(
      (line) => ui?.setStatus(key, line === undefined ? undefined : printable(`${mark} ${line}`)),
      () => undefined,
    );
  const context: ToolContext = {
    team: () => team,
    board,
    leases,
    footer: {
      card: () => show("muster-card", "▣", board.mine()),
      leases: () => show("muster-lease", "✎", leases.mine()),
    },
  };
  registerTools(pi, context);

  pi.registerFlag("muster-label", {
    description: "join the muster team under this label",
    type: "string",
  });

  pi.on("session_start", async (_event, ctx) => {
    ui = ctx.ui;
    team = hostedSession(pi, ctx);
    await team.start();
  });

  // A turn starting shows the mail whose wake the rate holds (pi reads its next-turn queue after).
  pi.on("before_agent_start", () => {
    team?.mailbox.joinTurn();
  });

  // Mail held for the next turn is acknowledged when pi shows it.
  pi.on("message_start", async (event) => {
    const message = event.message as { role?: string; customType?: string; details?: unknown };
    if (message.role === "custom" && message.customType === MAIL && message.details)
      await team?.mailbox.shown(message.details as Message);
  });

  pi.on("session_shutdown", async () => {
    await team?.shutdown();
    team = undefined;
  });

  pi.registerCommand("team", {
    description: TEAM_USAGE,
    getArgumentCompletions: (prefix: string) => teamCompletions(team, prefix),
    handler: async (args, { ui: piUi }) => {
      const notify = (text: string, type: "info" | "warning") => piUi.notify(safe(text), type);
      if (!team) return notify("muster: the team is not started yet", "warning");
      await runTeamCommand(team, args, notify);
    },
  });
}
