// pi's tools for the team and its mail: team_roster, team_send, team_inbox.
import { Type } from "typebox";
import { listMail, sentText, statusText } from "./_render.js";
import { tool } from "./_tool.js";

export const MAIL_TOOLS = [
  tool({
    name: "team_roster",
    label: "Team roster",
    description:
      "List the other coding-agent sessions working on this repository (the muster team): each member's label, agent, state (live, gone, expired) and tmux pane. Use it before team_send to find the right label.",
    parameters: Type.Object({}),
    serves: { roster: true },
    async run(_params, { team }) {
      const session = team();
      return {
        text: session
          ? statusText(await session.overview())
          : "muster is not started in this session.",
      };
    },
  }),
  tool({
    name: "team_send",
    label: "Send team mail",
    description:
      "Send a message to another agent session on this repository's team, by its label (see team_roster), or to all. Use it to hand off work, ask a question, or report something a peer is waiting for. Keep it short and self-contained; do not reply just to acknowledge.",
    parameters: Type.Object({
      to: Type.String({
        description:
          'The recipient\'s label, e.g. "reviewer"; several as "reviewer,writer" (all or none are sent); or "all" for every live member but you',
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
    serves: { send: true },
    async run(params, { team }) {
      const session = team();
      const sent = session
        ? await session.send(params.to, params.message, params.urgent === true, params.reply_to)
        : { receipt: undefined, error: "muster is not started in this session" };
      return {
        text: sentText(sent, "tool"),
        details: { receipt: sent.receipt, reach: sent.reach },
      };
    },
  }),
  tool({
    name: "team_inbox",
    label: "Read team mail",
    description:
      "Read and acknowledge new team mail that has not been shown to you yet (mail usually arrives by itself; use this if you turned listening off or were told mail is waiting).",
    parameters: Type.Object({}),
    serves: { inbox: true },
    async run(_params, { team }) {
      const session = team();
      const messages = (await session?.mailbox.take()) ?? [];
      const senders = messages.length > 0 ? await session?.mailbox.senders() : undefined;
      return { text: listMail(messages, senders), details: { messages } };
    },
  }),
];
