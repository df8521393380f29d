// The command rows for team mail: send and inbox. What a row runs is imported when it runs (see
// _commands.ts).
import { parseWaitGoal } from "@muster/core";
import { type Command, stringOption } from "./_command.js";
import { UsageError } from "./_context.js";

export const MAIL_COMMANDS = {
  send: {
    summary: "send mail to members by label (a,b for several), or to all",
    usage:
      "muster send <label[,label…]|all> [message…] [--reply-to ID] [--from LABEL | --id ID] [--urgent] [--wait[=ack] [--timeout 30s]] [--json]",
    options: {
      from: { type: "string" },
      id: { type: "string" },
      urgent: { type: "boolean" },
      "reply-to": { type: "string" },
      wait: { type: "string" },
      timeout: { type: "string" },
    },
    bare: { wait: "delivered" },
    help: [
      "message…          the words of the message; '-' or none reads it from stdin",
      "--reply-to ID     answer the message with this id (inbox --all shows the thread)",
      "--from LABEL      send as this member (default: the agent this shell belongs to)",
      "--id ID           send as the member with this id",
      "--urgent          may interrupt the recipient's current turn (if it lets mail wake it)",
      "--wait[=ack]      then wait until every recipient was shown it (=ack: until each read it),",
      "                  and say which phase each reached: written, woke, delivered, read",
      "--timeout D       how long --wait waits: 30s (default), 2m, 500ms; exit 1 if not all got there",
      "Reports per recipient when they will see it: now (it wakes them), at their next turn, or",
      "only when they read their inbox (a person at a shell: with muster inbox, or at once in a",
      "running muster inbox --follow). A label nobody live holds sends nothing at all,",
      "  unless muster.toml declares it and it is down: then it waits for its muster up.",
      "Examples: muster send alice,bob 'tests pass on main'   echo done | muster send all",
      "          muster send reviewer 'PR #12 is ready' --wait --timeout 1m",
      "          muster send all 'freeze main' --wait=ack --json",
    ],
    positionals: [1, Number.POSITIVE_INFINITY],
    serves: { send: true },
    run: async (context, values, [to, ...words]) => {
      if (values.from && values.id) throw new UsageError("pass --from or --id, not both");
      if (values.timeout !== undefined && values.wait === undefined)
        throw new UsageError("--timeout is for --wait; add --wait");
      const goal =
        values.wait === undefined ? undefined : parseWaitGoal(stringOption(values.wait) ?? "");
      if (goal && !goal.ok) throw new UsageError(goal.error);
      const [{ sendCommand }, { parseTimeout }] = await Promise.all([
        import("./_send.js"),
        import("./_wait.js"),
      ]);
      return sendCommand(context, {
        wait: goal?.ok
          ? { goal: goal.goal, timeoutMs: parseTimeout(stringOption(values.timeout) ?? "30s") }
          : undefined,
        to: to!,
        words,
        from: stringOption(values.from),
        id: stringOption(values.id),
        urgent: values.urgent === true,
        replyTo: stringOption(values["reply-to"]),
      });
    },
  },
  inbox: {
    summary: "read new mail, oldest first, and mark it read (--all: read mail too, as threads)",
    usage: "muster inbox [--id ID | --label L] [--all] [--peek] [--follow] [--json]",
    options: {
      id: { type: "string" },
      label: { type: "string" },
      peek: { type: "boolean" },
      follow: { type: "boolean", short: "f" },
      all: { type: "boolean", short: "a" },
    },
    help: [
      "--id ID, --label L   whose inbox (default: the agent this shell belongs to)",
      "-a, --all            read mail too, newest thread last, each reply under what it answers",
      "--peek               do not mark the mail read",
      "-f, --follow         keep waiting for mail until Ctrl-C (with --json: one JSON line per message)",
      "Examples: muster inbox   muster inbox --all --peek   muster inbox --follow --json",
    ],
    positionals: [0, 0],
    serves: { inbox: true },
    run: async (context, values) => {
      if (values.id && values.label) throw new UsageError("pass --id or --label, not both");
      if (values.all && values.follow) throw new UsageError("pass --all or --follow, not both");
      const { inboxCommand } = await import("./_mail.js");
      return inboxCommand(context, {
        id: stringOption(values.id),
        label: stringOption(values.label),
        peek: values.peek === true,
        follow: values.follow === true,
        all: values.all === true,
      });
    },
  },
} satisfies Record<string, Command>;
