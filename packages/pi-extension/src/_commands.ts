// The /team command: each subcommand, how it is written and what runs. The table is the help and
// the dispatch; a word that is not one of its own names is refused with the list.
import { createBoard } from "./_board.js";
import { joinedText, listMail, sentText, statusText } from "./_render.js";
import { parseSpawnWords, SPAWN_USAGE, spawnBeside } from "./_spawn.js";
import type { TeamSession } from "./_team.js";

export type Notify = (text: string, type: "info" | "warning") => void;

type TeamCommand = {
  usage: string;
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

const TEAM_COMMANDS: Record<string, TeamCommand> = {
  status: {
    usage: "status",
    run: async (team, _words, notify) => {
      const overview = await team.overview();
      await team.refresh();
      notify(statusText(overview), "info");
    },
  },
  join: { usage: "join [label] [--no-listen] [--wake]", run: typedJoin },
  leave: {
    usage: "leave",
    run: async (team, _words, notify) => {
      await team.leave();
      notify("Left the team; /team join [label] to come back.", "info");
    },
  },
  send: {
    usage: "send <label|all> <message>",
    run: async (team, [to, ...words], notify) => {
      if (!to || words.length === 0)
        return notify("usage: /team send <label|all> <message>", "warning");
      const sent = await team.send(to, words.join(" "), false);
      notify(sentText(sent, "command"), sent.receipt?.ok ? "info" : "warning");
    },
  },
  inbox: {
    usage: "inbox",
    run: async (team, _words, notify) => notify(listMail(await team.mailbox.take()), "info"),
  },
  spawn: {
    usage: SPAWN_USAGE,
    run: async (team, words, notify) => {
      const ask = parseSpawnWords(words);
      if (!ask) return notify(`usage: /team ${SPAWN_USAGE}`, "warning");
      const answer = await spawnBeside(team, ask);
      notify(answer.text, answer.ok ? "info" : "warning");
    },
  },
  board: {
    usage: "board [add|claim|done|drop|handoff|lead …]",
    run: async (team, words, notify) =>
      notify(await createBoard(() => team).command(words), "info"),
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
