// The /team command: each subcommand, how it is written, the capabilities it serves and what runs.
// The table is the help and the dispatch; a word that is not one of its own names is refused with
// the list.
import type { Serves } from "@muster/core";
import { plantedRecord } from "@muster/roster";
import { createBoard } from "./_board.js";
import { BOARD_SERVES, runBoardCommand } from "./_board-commands.js";
import { joinedText, listMail, sentText, statusText } from "./_render.js";
import { parseSpawnWords, SPAWN_USAGE, spawnBeside } from "./_spawn.js";
import type { TeamSession } from "./_team.js";

export type Notify = (text: string, type: "info" | "warning") => void;

type TeamCommand = {
  usage: string;
  serves?: Serves;
  run: (team: TeamSession, words: string[], notify: Notify) => Promise<void>;
};

/** `/team join [label] [--no-listen] [--wake]`, typed: asked even when the roster gives no word. */
async function typedJoin(team: TeamSession, words: string[], notify: Notify) {
  const label = words.find((word) => !word.startsWith("--")) ?? team.chosenLabel();
  const watching = words.includes("--no-listen")
    ? { armed: false, wake: false }
    : words.includes("--wake")
      ? { armed: true, wake: true }
      : undefined;
  const standing = await team.join(label, { watching, typed: true });
  if (standing.ok) notify(joinedText(standing.label, standing.watching), "info");
}

export const TEAM_COMMANDS: Record<string, TeamCommand> = {
  status: {
    usage: "status",
    serves: { roster: true },
    run: async (team, _words, notify) => {
      const overview = await team.overview();
      await team.refresh();
      notify(statusText(overview), "info");
    },
  },
  join: { usage: "join [label] [--no-listen] [--wake]", serves: { join: true }, run: typedJoin },
  leave: {
    usage: "leave",
    serves: { join: true },
    run: async (team, _words, notify) => {
      await team.leave();
      notify("Left the team; /team join [label] to come back.", "info");
    },
  },
  send: {
    usage: "send <label|all> <message>",
    serves: { send: true },
    run: async (team, [to, ...words], notify) => {
      if (!to || words.length === 0)
        return notify("usage: /team send <label|all> <message>", "warning");
      const sent = await team.send(to, words.join(" "), false);
      notify(sentText(sent, "command"), sent.receipt?.ok ? "info" : "warning");
    },
  },
  inbox: {
    usage: "inbox",
    serves: { inbox: true },
    run: async (team, _words, notify) => {
      const messages = await team.mailbox.take();
      notify(listMail(messages, await team.mailbox.senders()), "info");
    },
  },
  spawn: {
    usage: SPAWN_USAGE,
    serves: { spawn: true },
    run: async (team, words, notify) => {
      const ask = parseSpawnWords(words);
      if (!ask) return notify(`usage: /team ${SPAWN_USAGE}`, "warning");
      const answer = await spawnBeside(team, ask);
      notify(answer.text, answer.ok ? "info" : "warning");
    },
  },
  board: {
    usage: "board [add|claim|done|drop|handoff|lead …]",
    serves: BOARD_SERVES,
    run: async (team, words, notify) =>
      notify(
        await runBoardCommand(
          createBoard(() => team),
          words,
        ),
        "info",
      ),
  },
};

export const SUBCOMMANDS = Object.keys(TEAM_COMMANDS);

/** The command's description in pi's list: every subcommand as it is written. */
export const TEAM_USAGE = `muster team: ${Object.values(TEAM_COMMANDS)
  .map((command) => command.usage)
  .join(", ")}`;

/** Run `/team <args>`: `status` when nothing is typed. */
export async function runTeamCommand(team: TeamSession, args: string, notify: Notify) {
  const [sub = "status", ...rest] = args.trim().split(/\s+/).filter(Boolean);
  const command = Object.hasOwn(TEAM_COMMANDS, sub) ? TEAM_COMMANDS[sub] : undefined;
  if (!command)
    return notify(
      `muster: unknown /team subcommand "${sub}"; try ${SUBCOMMANDS.join(", ")}`,
      "warning",
    );
  await command.run(team, rest, notify);
}

/** Completions for `/team …`: the subcommands, then a live member's label after `send`. */
export async function teamCompletions(team: TeamSession | undefined, prefix: string) {
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
          .filter((member) => member.state === "live" && !plantedRecord(member))
          .map((member) => member.label)
      : []),
  ];
  const items = labels
    .filter((label) => label.startsWith(words[1] ?? ""))
    .map((label) => ({ value: `send ${label}`, label }));
  return items.length > 0 ? items : null;
}
