// `/team board`: each subcommand, how it is written, the capability it serves and what runs. The
// table is the help and the dispatch; words it cannot place get the whole usage.
import type { Serves } from "@muster/core";
import type { Board } from "./_board.js";

type BoardCommand = {
  usage: string;
  serves: Serves;
  /** The answer, or undefined when the words do not fit (the whole usage is shown). */
  run: (board: Board, words: string[]) => Promise<string | undefined>;
};

/** `add`'s words: the title, and the card ids after `--after` (commas or spaces between them). */
function addWords(words: readonly string[]): { title: string | undefined; after?: string[] } {
  const at = words.indexOf("--after");
  if (at < 0) return { title: words.length > 0 ? words.join(" ") : undefined, after: [] };
  const named = words[at + 1];
  if (named === undefined) return { title: undefined };
  const rest = [...words.slice(0, at), ...words.slice(at + 2)];
  const after = named.split(",").filter((id) => id !== "");
  return { title: rest.length > 0 ? rest.join(" ") : undefined, after };
}

const BOARD_COMMANDS: Record<string, BoardCommand> = {
  list: { usage: "list", serves: { "board-list": true }, run: (board) => board.cards() },
  add: {
    usage: "add <title…> [--after c1,c2]",
    serves: { "board-add": "add --after" },
    run: async (board, words) => {
      const { title, after } = addWords(words);
      return (
        (after === undefined ? undefined : await board.add(title, { after })) ??
        "usage: /team board add <title…> [--after c1,c2]"
      );
    },
  },
  claim: {
    usage: "claim <card>",
    serves: { "board-claim": true },
    run: async (board, [card]) => (card === undefined ? undefined : board.change("claim", card)),
  },
  done: {
    usage: "done <card> [note…]",
    serves: { "board-done": true },
    run: async (board, [card, ...note]) =>
      card === undefined ? undefined : board.change("done", card, { note: note.join(" ") }),
  },
  drop: {
    usage: "drop <card> <reason…>",
    serves: { "board-drop": true },
    run: async (board, [card, ...reason]) =>
      card === undefined ? undefined : board.change("drop", card, { note: reason.join(" ") }),
  },
  handoff: {
    usage: "handoff <card> <label> [message…]",
    serves: { "board-handoff": true },
    run: async (board, [card, to, ...message]) =>
      card === undefined || to === undefined
        ? undefined
        : board.change("handoff", card, { to, message: message.join(" ") }),
  },
  lead: {
    usage: "lead <label|none>",
    serves: { "board-lead": true },
    run: async (board, [label]) =>
      (label === undefined ? undefined : await board.lead(label)) ??
      "usage: /team board lead <label|none> (from a session on the team)",
  },
};

/** What `/team board` serves, each capability by its subcommand (`add`, `claim`, …). */
export const BOARD_SERVES: Serves = Object.fromEntries(
  Object.entries(BOARD_COMMANDS).flatMap(([name, command]) =>
    Object.keys(command.serves).map((capability) => [capability, name]),
  ),
);

const BOARD_USAGE = `usage: /team board [${Object.values(BOARD_COMMANDS)
  .map((command) => command.usage)
  .join(" | ")}]`;

/** Run `/team board <words>`: `list` when nothing is typed. */
export async function runBoardCommand(board: Board, words: string[]): Promise<string> {
  const [sub = "list", ...rest] = words;
  const command = Object.hasOwn(BOARD_COMMANDS, sub) ? BOARD_COMMANDS[sub] : undefined;
  return (await command?.run(board, rest)) ?? BOARD_USAGE;
}
