// How tmux prints a field so that no field's content can move another. Ids and numbers are safe
// as they are; free text (a command anyone can name with `exec -a`, a directory name, a title, a
// socket path) may hold tabs and newlines, so tmux escapes it itself, with its own substitution
// modifiers: `\` → `\\`, tab → `\t`, newline → `\n`. Separators in the output are then always real.

/** A format variable as tmux prints it: as it is (ids, numbers) or escaped (free text). */
export const field = (name: string) => `#{${name}}`;

/** A free-text format variable, escaped by tmux (three chained `s///` modifiers, tmux 3.2+). */
export const freeText = (name: string) => `#{s/\\\\/\\\\\\\\/;s/\t/\\\\t/;s/\n/\\\\n/:${name}}`;

const ESCAPED = /^(?:[^\\\t\n]|\\[\\tn])*$/;
const UNESCAPE: Record<string, string> = { "\\\\": "\\", "\\t": "\t", "\\n": "\n" };

/** A free-text field back as tmux held it; undefined when it is not in the escaped form. */
export function decodeFreeText(text: string): string | undefined {
  if (!ESCAPED.test(text)) return undefined;
  return text.includes("\\") ? text.replace(/\\[\\tn]/g, (pair) => UNESCAPE[pair] ?? pair) : text;
}
