// What may reach a terminal or an agent's context as it is. Text other processes wrote (message
// bodies, labels, pane titles, working directories, file names) passes here before it is shown:
// every character that could steer a terminal or hide text is shown visibly instead, as `\x1b`.
// It does not decide what is valid (that is the roster's validation); it only decides what is safe.

/**
 * C0 controls but tab and newline, DEL, C1 controls (0x9b is the 8-bit CSI), the bidi
 * embeddings, overrides, isolates and marks (U+202E reverses the text after it), the line and
 * paragraph separators, and surrogates that are not half of a pair (JavaScript strings may hold
 * them; a terminal or an encoder turns them into something else).
 */
const UNSAFE = new RegExp(
  [
    "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]",
    "[\\ud800-\\udbff](?![\\udc00-\\udfff])",
    "(?<![\\ud800-\\udbff])[\\udc00-\\udfff]",
  ].join("|"),
  "g",
);
const UNSAFE_ONE_LINE = new RegExp(`[\\t\\n]|${UNSAFE.source}`, "g");

const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function shown(character: string): string {
  const named = NAMED[character];
  if (named) return named;
  const code = character.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

export type PrintableOptions = {
  /** Keep newlines and tabs (a message body); by default they are shown as `\n` and `\t` too. */
  lines?: boolean | undefined;
};

/**
 * The text with every control character, bidi control and lone surrogate shown visibly (`\x1b`,
 * `\x9b`, `\u202e`, `\ud800`, `\r`), so it cannot move the cursor, set a title, write the
 * clipboard, make a link or reorder what a reader sees. Escape sequences are neutralised by their
 * first byte: `ESC ] 52 ; …` becomes the harmless text `\x1b]52;…`. Text with nothing unsafe comes
 * back as it is (the same string).
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  const unsafe = options.lines ? UNSAFE : UNSAFE_ONE_LINE;
  unsafe.lastIndex = 0;
  if (!unsafe.test(text)) return text;
  unsafe.lastIndex = 0;
  return text.replace(unsafe, shown);
}
