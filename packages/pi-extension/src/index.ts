// The muster extension for pi: wires pi's events, the /team command, the team tools and the footer
// to a TeamSession. It holds no rules of its own: those live in @muster/core and @muster/roster.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { printable } from "@muster/core";
import { type Message, validateLabel } from "@muster/roster";
import { Type } from "typebox";
import { createBoard, registerBoardTools } from "./_board.js";
import { runTeamCommand, SUBCOMMANDS, TEAM_USAGE } from "./_commands.js";
import { createLeaseGuard } from "./_leases.js";
import { listMail, mailText, sentText, statusText } from "./_render.js";
import { registerSpawnTool } from "./_spawn.js";
import { TeamSession } from "./_team.js";

const MAIL = "muster-mail";

/** Text for pi (its context and its UI): controls another process wrote are shown, never passed. */
const safe = (text: string) => printable(text, { lines: true });

/** Mail this session already shows (it may have restarted), and the labels it was addressed by. */
function shownMail(ctx: ExtensionContext) {
  const delivered = new Set<string>();
  const addressed: string[] = [];
  for (const entry of ctx.sessionManager.getEntries() as {
    type: string;
    customType?: string;
    details?: { id?: unknown; to?: unknown };
  }[]) {
    if (entry.type !== "custom_message" || entry.customType !== MAIL) continue;
    if (typeof entry.details?.id === "string") delivered.add(entry.details.id);
    if (typeof entry.details?.to === "string" && entry.details.to.toLowerCase() !== "all")
      addressed.push(entry.details.to);
  }
  return { delivered, addressed };
}

/** The muster extension factory. */
export default function muster(pi: ExtensionAPI) {
  let team: TeamSession | undefined;
  let ui: ExtensionContext["ui"] | undefined;

  const leases = createLeaseGuard(() =>
    team
      ? {
          roster: team.roster,
          id: team.options.id,
          cwd: team.options.cwd,
          label: () => (team?.standing?.ok ? team.standing.label : undefined),
        }
      : undefined,
  );
  pi.on("tool_call", (event) => leases.onToolCall(event));
  /** The footer's lease line: the paths this session holds (`✎ src/auth/** +1`), or none. */
  const showLeases = () =>
    void leases.mine().then(
      (mine) =>
        ui?.setStatus("muster-lease", mine === undefined ? undefined : printable(`✎ ${mine}`)),
      () => undefined,
    );
  registerBoardTools(
    pi,
    createBoard(() => team),
    safe,
    (card) => ui?.setStatus("muster-card", card === undefined ? undefined : printable(`▣ ${card}`)),
  );

  registerSpawnTool(pi, () => team);

  pi.registerFlag("muster-label", {
    description: "join the muster team under this label",
    type: "string",
  });

  pi.on("session_start", async (_event, ctx) => {
    ui = ctx.ui;
    const { delivered, addressed } = shownMail(ctx);
    const flag = pi.getFlag("muster-label");
    team = new TeamSession(
      {
        id: ctx.sessionManager.getSessionId(),
        cwd: ctx.cwd,
        flagLabel: typeof flag === "string" ? flag : undefined,
        sessionName: pi.getSessionName(),
        addressed,
      },
      {
        delivered,
        deliver(message, { wake, mode }) {
          pi.sendMessage(
            { customType: MAIL, content: safe(mailText(message)), display: true, details: message },
            wake
              ? { triggerTurn: true, deliverAs: mode === "steer" ? "steer" : "followUp" }
              : { deliverAs: "nextTurn" },
          );
        },
        status: (text) => ui?.setStatus("muster", text === undefined ? text : printable(text)),
        warn: (line) => ui?.notify(safe(line), "warning"),
        note: (line) => ui?.notify(safe(line), "info"),
      },
    );
    await team.start();
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
    getArgumentCompletions: async (prefix: string) => {
      const words = prefix.split(/\s+/);
      if (words.length <= 1) {
        const items = SUBCOMMANDS.filter((name) => name.startsWith(words[0] ?? "")).map((name) => ({
          value: name,
          label: name,
        }));
        return items.length > 0 ? items : null;
      }
      if (words[0] !== "send" || words.length > 2 || !team?.roster) return null;
      const read = await team.roster.read();
      const labels = [
        "all",
        ...(read.ok
          ? read.members
              .filter((member) => member.state === "live" && validateLabel(member.label).ok)
              .map((member) => member.label)
          : []),
      ];
      const items = labels
        .filter((label) => label.startsWith(words[1] ?? ""))
        .map((label) => ({ value: `send ${label}`, label }));
      return items.length > 0 ? items : null;
    },
    handler: async (args, { ui: piUi }) => {
      const notify = (text: string, type: "info" | "warning") => piUi.notify(safe(text), type);
      if (!team) return notify("muster: the team is not started yet", "warning");
      await runTeamCommand(team, args, notify);
    },
  });

  pi.registerTool({
    name: "team_roster",
    label: "Team roster",
    description:
      "List the other coding-agent sessions working on this repository (the muster team): each member's label, agent, state (live, gone, expired) and tmux pane. Use it before team_send to find the right label.",
    parameters: Type.Object({}),
    async execute() {
      const text = team
        ? statusText(await team.overview())
        : "muster is not started in this session.";
      return { content: [{ type: "text", text: safe(text) }], details: {} };
    },
  });

  pi.registerTool({
    name: "team_send",
    label: "Send team mail",
    description:
      "Send a message to another agent session on this repository's team, by its label (see team_roster), or to all. Use it to hand off work, ask a question, or report something a peer is waiting for. Keep it short and self-contained; do not reply just to acknowledge.",
    parameters: Type.Object({
      to: Type.String({
        description:
          'The recipient\'s label, e.g. "reviewer", or "all" for every live member but you',
      }),
      message: Type.String({
        description:
          "The message: what you need or what you did, with paths and ids the reader needs",
      }),
      urgent: Type.Optional(
        Type.Boolean({
          description: "true only if the recipient should stop what it is doing now",
        }),
      ),
      reply_to: Type.Optional(
        Type.String({ description: "The id of the message you are answering, if any" }),
      ),
    }),
    async execute(_toolCallId, params) {
      const sent = team
        ? await team.send(params.to, params.message, params.urgent === true, params.reply_to)
        : { receipt: undefined, error: "muster is not started in this session" };
      const text = safe(sentText(sent, "tool"));
      return {
        content: [{ type: "text", text }],
        details: { receipt: sent.receipt, reach: sent.reach },
      };
    },
  });

  pi.registerTool({
    name: "team_inbox",
    label: "Read team mail",
    description:
      "Read and acknowledge new team mail that has not been shown to you yet (mail usually arrives by itself; use this if you turned listening off or were told mail is waiting).",
    parameters: Type.Object({}),
    async execute() {
      const messages = team ? await team.mailbox.take() : [];
      return {
        content: [{ type: "text", text: safe(listMail(messages)) }],
        details: { messages },
      };
    },
  });

  pi.registerTool({
    name: "team_lease",
    label: "Lease paths",
    description:
      "Tell the team which files you are about to change, so no teammate overwrites them: leases paths or globs (relative to the repository root, git's glob rules: src/auth/**, docs/*.md). Exclusive by default: another member's edits of those paths are blocked until you release them or the lease ends. Refused, with the holder's label, when a teammate already holds an overlapping lease: then ask them with team_send instead of working around it. Release with team_release when done.",
    parameters: Type.Object({
      paths: Type.Array(Type.String(), { description: 'Paths or globs, e.g. ["src/parser/**"]' }),
      reason: Type.Optional(Type.String({ description: "What you are doing, shown to others" })),
      shared: Type.Optional(
        Type.Boolean({ description: "true if others may lease it shared too (e.g. reading)" }),
      ),
      minutes: Type.Optional(
        Type.Number({ description: "How long it lasts unless renewed (default 30)" }),
      ),
    }),
    async execute(_toolCallId, params) {
      const text = await leases.lease(params.paths, {
        shared: params.shared === true,
        reason: params.reason,
        minutes: params.minutes,
      });
      showLeases();
      return { content: [{ type: "text", text: safe(text) }], details: {} };
    },
  });

  pi.registerTool({
    name: "team_release",
    label: "Release leased paths",
    description:
      "Give back path leases you took with team_lease, as soon as you are done with those files, so teammates can change them.",
    parameters: Type.Object({
      paths: Type.Optional(
        Type.Array(Type.String(), { description: "The patterns as leased; omit to release all" }),
      ),
    }),
    async execute(_toolCallId, params) {
      const text = await leases.release(params.paths ?? "all");
      showLeases();
      return { content: [{ type: "text", text: safe(text) }], details: {} };
    },
  });
}
