// What `muster install tmux` writes into the user's tmux config, and how it comes out again: one
// block between two marker lines at the end of the file. It appends muster's status line to the
// user's own status-right (`set -ga`, so whatever they set above stays), widens status-right-length
// only when theirs is shorter, and binds prefix+g to `muster go` unless the user binds that key
// already (`userGoKey`: their file, or the running server's keys). The begin marker records what the
// block added around it (a newline the file did not end with, or the file itself), so removing the
// block gives back the user's bytes exactly, whatever they edited outside it since.

const BEGIN = "# >>> muster (muster install tmux; muster install tmux --uninstall removes it)";
const END = "# <<< muster";
const NEWLINE_FLAG = " [added a newline before]";
const FILE_FLAG = " [made this file]";

export type TmuxConfEdit =
  | { ok: true; text: string | undefined; changed: boolean }
  | { ok: false; reason: "muster-block-broken" | "unsafe-command"; error: string };

/** The key muster binds to `muster go`, in tmux's prefix table. */
export const GO_KEY = "g";

/**
 * The block's lines for a muster run as `command` (words safe for sh and tmux quoting); without
 * the key binding where the user's own binding of prefix+g is to be kept.
 */
export function tmuxLines(command: string, bindKey = true): string[] {
  return [
    `set-option -ga status-right ' #(${command} status --line)'`,
    "if-shell -F '#{e|<:#{status-right-length},100}' 'set-option -g status-right-length 100'",
    ...(bindKey ? [`bind-key ${GO_KEY} run-shell '${command} go'`] : []),
  ];
}

/** A tmux command's words, a quoted one kept whole (`-N "Go to a pane"`). */
const words = (command: string) => command.match(/'[^']*'|"(?:[^"\\]|\\.)*"|\S+/g) ?? [];

/** The binding's table and key of a `bind`/`bind-key` command's words, else undefined. */
function boundKey(tokens: readonly string[]): { table: string; key: string } | undefined {
  if (tokens[0] !== "bind" && tokens[0] !== "bind-key") return undefined;
  let table = "prefix";
  for (let at = 1; at < tokens.length; at += 1) {
    const token = tokens[at] as string;
    if (token === "-T" || token === "-N") {
      if (token === "-T") table = (tokens[at + 1] ?? table).replace(/^(['"])(.*)\1$/, "$2");
      at += 1;
    } else if (/^-[nr]+$/.test(token)) {
      if (token.includes("n")) table = "root";
    } else return { table, key: token.replace(/^(['"])(.*)\1$/, "$2") };
  }
  return undefined;
}

/** muster's own `go` binding, from this install or an older one (another path to muster). */
const isMusterGo = (line: string) => /muster(\.js)?\s+go['"]?\s*$/.test(line.trim());

/**
 * Where the user binds prefix+g already, so that muster's install keeps their binding: a line of
 * their config outside muster's block (`bind g …`, `bind-key -r -T prefix g …`), or the running
 * server's binding (`listed`: `tmux list-keys -T prefix g`, which sees sourced files and keys
 * bound at run time) when it is not muster's own. Undefined: the key is free.
 */
export function userGoKey(text: string | undefined, listed?: string): string | undefined {
  const lines = (text ?? "").split("\n");
  const found = findBlock(lines);
  const outside =
    typeof found === "object"
      ? [...lines.slice(0, found.start), ...lines.slice(found.end + 1)]
      : lines;
  for (const line of outside) {
    // A command per `;`-separated part; a comment ends the line.
    // (`\;` inside a binding is part of the bound command, not a new one.)
    for (const part of line.replace(/(^|\s)#.*$/, "").split(/\s;(?:\s|$)/)) {
      const bound = boundKey(words(part));
      if (bound?.table === "prefix" && bound.key === GO_KEY) return line.trim();
    }
  }
  const running = (listed ?? "").split("\n").find((line) => {
    const bound = boundKey(words(line));
    return bound?.table === "prefix" && bound.key === GO_KEY;
  });
  return running && !isMusterGo(running) ? running.trim() : undefined;
}

/** Words that need no quoting in sh, in a tmux single-quoted string, or in a #() format. */
export const safeTmuxCommand = (words: readonly string[]) =>
  words.length > 0 && words.every((word) => /^[A-Za-z0-9_./+@:=-]+$/.test(word));

type Found = { start: number; end: number; flags: string } | "none" | "broken";

function findBlock(lines: readonly string[]): Found {
  const begins = lines.flatMap((line, at) => (line.startsWith(BEGIN) ? [at] : []));
  const ends = lines.flatMap((line, at) => (line === END ? [at] : []));
  if (begins.length === 0 && ends.length === 0) return "none";
  const [start] = begins;
  const [end] = ends;
  if (begins.length !== 1 || ends.length !== 1 || start === undefined || end === undefined)
    return "broken";
  if (end < start) return "broken";
  return { start, end, flags: (lines[start] ?? "").slice(BEGIN.length) };
}

const broken = (): TmuxConfEdit => ({
  ok: false,
  reason: "muster-block-broken",
  error:
    "muster's block in the tmux config is not one begin line and one end line: fix or delete it by hand, then run it again",
});

/** The config with muster's block removed; undefined text: muster made the file, so it goes. */
export function removeTmuxBlock(text: string | undefined): TmuxConfEdit {
  if (text === undefined) return { ok: true, text, changed: false };
  const lines = text.split("\n");
  const found = findBlock(lines);
  if (found === "none") return { ok: true, text, changed: false };
  if (found === "broken") return broken();
  const kept = [...lines.slice(0, found.start), ...lines.slice(found.end + 1)];
  let rest = kept.join("\n");
  // The block was written as "\n"-ended lines; with the flag the newline before it was muster's too.
  if (
    found.flags.includes(NEWLINE_FLAG.trim()) &&
    rest.endsWith("\n") &&
    found.end === lines.length - 2
  )
    rest = rest.slice(0, -1);
  if (found.flags.includes(FILE_FLAG.trim()) && rest === "")
    return { ok: true, text: undefined, changed: true };
  return { ok: true, text: rest, changed: true };
}

/**
 * The config with muster's block for the muster run as `words` at its end (replacing an older
 * one); `bindKey: false` leaves prefix+g to the user's own binding.
 */
export function addTmuxBlock(
  text: string | undefined,
  words: readonly string[],
  bindKey = true,
): TmuxConfEdit {
  const command = words.join(" ");
  if (!safeTmuxCommand(words))
    return {
      ok: false,
      reason: "unsafe-command",
      error: `muster's path (${command}) has characters tmux and sh would need quoted: put muster on a plain path, then run it again`,
    };
  const removed = removeTmuxBlock(text);
  if (!removed.ok) return removed;
  const base = removed.text;
  const newline = base !== undefined && base !== "" && !base.endsWith("\n");
  const flags = `${base === undefined ? FILE_FLAG : ""}${newline ? NEWLINE_FLAG : ""}`;
  const block = [`${BEGIN}${flags}`, ...tmuxLines(command, bindKey), END, ""].join("\n");
  const after = `${base ?? ""}${newline ? "\n" : ""}${block}`;
  return { ok: true, text: after, changed: after !== text };
}
