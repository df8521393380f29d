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

/** What the extension's handlers share: this session's team once started, and pi's UI. */
type Host = { team: TeamSession | undefined; ui: ExtensionContext["ui"] | undefined };

/** The muster extension factory. */
export default function muster(pi: ExtensionAPI) {
  const host: Host = { team: undefined, ui: undefined };
  const leases = createLeaseGuard(
    () => {
      const team = host.team;
      return team
        ? {
            roster: team.roster,
            id: team.options.id,
            cwd: team.options.cwd,
            label: () => (host.team?.standing?.ok ? host.team.standing.label : undefined),
          }
        : undefined;
    },
    (line) => host.ui?.notify(safe(line), "warning"),
  );
  pi.on("tool_call", (event) => leases.onToolCall(event));
  reportActivity(pi, host);
  const board = createBoard(() => host.team);
  /** The footer's lines of what this session holds: `▣ c4 +1`, `✎ src/auth/** +1`, or none. */
  const show = (key: string, mark: string, held: Promise<string | undefined>) =>
    void held.then(
      (line) =>
        host.ui?.setStatus(key, line === undefined ? undefined : printable(`${mark} ${line}`)),
      () => undefined,
    );
  const context: ToolContext = {
    team: () => host.team,
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
  followSession(pi, host);
  registerTeamCommand(pi, host);
}

/** pi's own events are this session's activity (core's signal table, engine pi). */
function reportActivity(pi: ExtensionAPI, host: Host) {
  const report = (signal: string) => () => host.team?.signal(signal);
  pi.on("agent_start", report("agent-start"));
  pi.on("turn_start", report("turn-start"));
  pi.on("tool_execution_start", report("tool-start"));
  pi.on("ui_prompt_start", report("ui-prompt-start"));
  pi.on("ui_prompt_end", report("ui-prompt-end"));
  pi.on("agent_settled", report("agent-settled"));
}

/** The team follows pi's session: started with it, its mail shown in its turns, shut down with it. */
function followSession(pi: ExtensionAPI, host: Host) {
  pi.on("session_start", async (_event, ctx) => {
    host.ui = ctx.ui;
    host.team = hostedSession(pi, ctx);
    await host.team.start();
  });

  // A turn starting shows the mail whose wake the rate holds (pi reads its next-turn queue after).
  pi.on("before_agent_start", () => {
    host.team?.mailbox.joinTurn();
  });

  // Mail held for the next turn is acknowledged when pi shows it.
  pi.on("message_start", async (event) => {
    const message = event.message as { role?: string; customType?: string; details?: unknown };
    if (message.role === "custom" && message.customType === MAIL && message.details)
      await host.team?.mailbox.shown(message.details as Message);
  });

  pi.on("session_shutdown", async () => {
    await host.team?.shutdown();
    host.team = undefined;
  });
}

/** The /team command. */
function registerTeamCommand(pi: ExtensionAPI, host: Host) {
  pi.registerCommand("team", {
    description: TEAM_USAGE,
    getArgumentCompletions: (prefix: string) => teamCompletions(host.team, prefix),
    handler: async (args, { ui: piUi }) => {
      const notify = (text: string, type: "info" | "warning") => piUi.notify(safe(text), type);
      if (!host.team) return notify("muster: the team is not started yet", "warning");
      await runTeamCommand(host.team, args, notify);
    },
  });
}
