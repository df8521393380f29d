// The muster extension for pi: wires pi's events, the /team command, three tools and the footer
// to a TeamSession. It holds no rules of its own: those live in @muster/core and @muster/roster.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { mailMode, printable } from "@muster/core";
import { type Message, validateLabel } from "@muster/roster";
import { Type } from "typebox";
import { createBoard, registerBoardTools } from "./_board.js";
import { createLeaseGuard } from "./_leases.js";
import { TeamSession } from "./_team.js";

const MAIL = "muster-mail";

function mailText(message: Message): string {
  const from = message.from.guest
    ? `${message.from.label}, who is not on the team`
    : `"${message.from.label}"`;
  const reply = message.from.guest
    ? "It cannot be answered by label."
    : `Reply with team_send to "${message.from.label}" (reply_to: "${message.id}").`;
  return `Team mail from ${from}${message.urgent ? " (urgent)" : ""}, to ${message.to === "all" ? "everyone" : "you"}:\n\n${message.body}\n\n${reply}`;
}

const listMail = (messages: Message[]) =>
  messages.length === 0
    ? "No new mail."
    : messages
        .map((message) => `— ${message.from.label} (${message.id}):\n${message.body}`)
        .join("\n\n");

/** Text for pi (its context and its UI): controls another process wrote are shown, never passed. */
const safe = (text: string) => printable(text, { lines: true });

/** Stands in for the team before session_start: every call says muster is not started. */
const missing = {
  send: async () => ({ receipt: undefined, joinLine: "muster is not started in this session" }),
};

type Notify = (text: string, type: "info" | "warning") => void;

/** A /team subcommand: how it is written, and what runs. The table is the help and the dispatch. */
type TeamCommand = {
  usage: string;
  run: (team: TeamSession, words: string[], notify: Notify) => Promise<void>;
};

const TEAM_COMMANDS: Record<string, TeamCommand> = {
  status: {
    usage: "status",
    run: async (team, _words, notify) => notify(await statusText(team), "info"),
  },
  join: {
    usage: "join <label> [--no-listen] [--wake]",
    run: async (team, words, notify) => {
      const label = words.find((word) => !word.startsWith("--"));
      if (!label) return notify("usage: /team join <label> [--no-listen] [--wake]", "warning");
      const watching = words.includes("--no-listen")
        ? { armed: false, wake: false }
        : words.includes("--wake")
          ? { armed: true, wake: true }
          : undefined;
      const standing = await team.join(label, watching);
      if (standing?.ok)
        notify(`On the team as ${standing.label}; mail: ${mailMode(standing.watching)}.`, "info");
    },
  },
  leave: {
    usage: "leave",
    run: async (team, _words, notify) => {
      await team.leave();
      notify("Left the team; /team join <label> to come back.", "info");
    },
  },
  send: {
    usage: "send <label|all> <message>",
    run: async (team, [to, ...words], notify) => {
      if (!to || words.length === 0)
        return notify("usage: /team send <label|all> <message>", "warning");
      const { receipt, joinLine } = await team.send(to, words.join(" "), false);
      if (!receipt?.ok) return notify(`muster: not sent: ${receipt?.error ?? joinLine}`, "warning");
      notify(
        `Sent to ${receipt.to.map((recipient) => recipient.label).join(", ")}.${joinLine ? ` ${joinLine}` : ""}`,
        "info",
      );
    },
  },
  inbox: {
    usage: "inbox",
    run: async (team, _words, notify) => notify(listMail(await team.takeInbox()), "info"),
  },
  board: {
    usage: "board [add|claim|done|drop|handoff|lead …]",
    run: async (team, words, notify) =>
      notify(await createBoard(() => team).command(words), "info"),
  },
};
const SUBCOMMANDS = Object.keys(TEAM_COMMANDS);

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
  registerBoardTools(
    pi,
    createBoard(() => team),
    safe,
    (card) => ui?.setStatus("muster-card", card === undefined ? undefined : printable(`▣ ${card}`)),
  );

  pi.registerFlag("muster-label", {
    description: "join the muster team under this label",
    type: "string",
  });

  pi.on("session_start", async (_event, ctx) => {
    ui = ctx.ui;
    // Mail this session already shows (it may have restarted) is never delivered twice.
    const delivered = new Set<string>();
    for (const entry of ctx.sessionManager.getEntries() as {
      type: string;
      customType?: string;
      details?: { id?: string };
    }[]) {
      if (entry.type === "custom_message" && entry.customType === MAIL && entry.details?.id)
        delivered.add(entry.details.id);
    }
    const flag = pi.getFlag("muster-label");
    team = new TeamSession(
      {
        id: ctx.sessionManager.getSessionId(),
        cwd: ctx.cwd,
        flagLabel: typeof flag === "string" ? flag : undefined,
        sessionName: pi.getSessionName(),
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
      },
    );
    await team.start();
  });

  pi.on("session_shutdown", async () => {
    await team?.leave();
    team = undefined;
  });

  pi.registerCommand("team", {
    description: `muster team: ${Object.values(TEAM_COMMANDS)
      .map((command) => command.usage)
      .join(", ")}`,
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
      const ctx = {
        ui: { notify: (text: string, type: "info" | "warning") => piUi.notify(safe(text), type) },
      };
      const [sub = "status", ...rest] = args.trim().split(/\s+/).filter(Boolean);
      if (!team) return ctx.ui.notify("muster: the team is not started yet", "warning");
      const command = Object.hasOwn(TEAM_COMMANDS, sub) ? TEAM_COMMANDS[sub] : undefined;
      if (!command)
        return ctx.ui.notify(
          `muster: unknown /team subcommand "${sub}"; try ${SUBCOMMANDS.join(", ")}`,
          "warning",
        );
      await command.run(team, rest, ctx.ui.notify);
    },
  });

  pi.registerTool({
    name: "team_roster",
    label: "Team roster",
    description:
      "List the other coding-agent sessions working on this repository (the muster team): each member's label, agent, state (live, gone, expired) and tmux pane. Use it before team_send to find the right label.",
    parameters: Type.Object({}),
    async execute() {
      const text = team ? await statusText(team) : "muster is not started in this session.";
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
      const { receipt, joinLine } = await (team ?? missing).send(
        params.to,
        params.message,
        params.urgent === true,
        params.reply_to,
      );
      const text = receipt?.ok
        ? `Sent (id ${receipt.id}) to ${receipt.to.map((recipient) => recipient.label).join(", ")}.${joinLine ? ` Note: ${joinLine}` : ""}`
        : `Not sent: ${receipt?.error ?? joinLine}`;
      return { content: [{ type: "text", text: safe(text) }], details: { receipt } };
    },
  });

  pi.registerTool({
    name: "team_inbox",
    label: "Read team mail",
    description:
      "Read and acknowledge new team mail that has not been shown to you yet (mail usually arrives by itself; use this if you turned listening off or were told mail is waiting).",
    parameters: Type.Object({}),
    async execute() {
      const messages = team ? await team.takeInbox() : [];
      return { content: [{ type: "text", text: safe(listMail(messages)) }], details: { messages } };
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
      return { content: [{ type: "text", text: safe(text) }], details: {} };
    },
  });
}

async function statusText(team: TeamSession): Promise<string> {
  const place = await team.place();
  const status = place?.status;
  const me =
    status?.kind === "member"
      ? `You are "${status.label}" (mail: ${mailMode(status.watching)}).`
      : status?.kind === "refused"
        ? `You are not on the team: ${status.line}`
        : "You are not on the team.";
  if (!place) return me;
  const { read, unread } = place;
  if (!read.ok) return `${me}\nThe roster cannot be read: ${read.error}`;
  // A record join would refuse was planted: counted, not shown.
  const members = read.members.filter((member) => validateLabel(member.label).ok);
  const planted = read.members.length - members.length;
  const rows = members.map(
    (member) =>
      `- ${member.label}: ${member.agent}, ${member.state}${member.state === "live" ? "" : ` (${member.why})`}${member.seat ? `, pane ${member.seat.pane}` : ""}${member.id === team.options.id ? " (you)" : ""}`,
  );
  const note =
    planted > 0 ? [`(${planted} record(s) with a label join would refuse: not shown)`] : [];
  return [me, `Unread: ${unread}.`, `Members (${members.length}):`, ...rows, ...note].join("\n");
}
