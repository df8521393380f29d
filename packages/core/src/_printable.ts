// What may reach a terminal or an agent's context as it is. Text other processes wrote (message
// bodies, labels, pane titles, working directories, file names) passes here before it is shown:
// every character that could steer a terminal or hide text is shown visibly instead, as `\x1b`,
// `\u200b` or `\u{e0069}`. It does not decide what is valid (that is the roster's validation); it
// only decides what is safe.

/** England's, Scotland's and Wales's flags: the only tag sequences an emoji font draws. */
const FLAG =
  "\\u{1f3f4}\\u{e0067}\\u{e0062}(?:\\u{e0065}\\u{e006e}\\u{e0067}|\\u{e0073}\\u{e0063}\\u{e0074}|\\u{e0077}\\u{e006c}\\u{e0073})\\u{e007f}";

/**
 * C0 controls but tab and newline, DEL, C1 controls (0x9b is the 8-bit CSI), the line and
 * paragraph separators, surrogates that are not half of a pair, every format character (`Cf`: the
 * bidi controls, zero-width space, joiners, word joiner, invisible operators, soft hyphen, BOM,
 * tag characters — a model reads `U+E0069` as `i`, a terminal shows nothing), the unassigned rest
 * of the tag and invisible-operator blocks, the combining grapheme joiner, the blank Hangul
 * fillers, and the variation selectors (each can carry a byte of hidden text).
 */
const SUSPECT =
  "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029]|\\p{Cf}|\\p{Cs}" +
  "|[\\u{e0000}-\\u{e007f}\\u2065\\u034f\\u115f\\u1160\\u3164\\uffa0\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}]";
/**
 * A pattern made the first time it is asked for. Building a Unicode property class (`\p{L}`,
 * `\p{Cf}`) costs a start about as much as a tenth of Node's own start, and most starts print
 * nothing that needs one: a short-lived command (tmux's status job, a hook) that never shows
 * text of another process's never pays for them. Given as a string, never a literal: V8 builds a
 * literal's classes when it parses the file, even inside a function that never runs.
 */
function pattern(source: string, flags = "u"): () => RegExp {
  let made: RegExp | undefined;
  return () => (made ??= new RegExp(source, flags));
}

const UNSAFE = pattern(`${FLAG}|${SUSPECT}`, "gu");
const UNSAFE_ONE_LINE = pattern(`${FLAG}|[\\t\\n]|${SUSPECT}`, "gu");

const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const EMOJI = pattern(String.raw`^\p{Extended_Pictographic}$`);
const EMOJI_TAIL = pattern(String.raw`^[\u{1f3fb}-\u{1f3ff}\ufe0f]$`);
/** A letter or mark of a script that writes with joiners (Persian, Devanagari…), not Latin. */
const JOINING = pattern(String.raw`^(?![\p{Script=Latin}\p{Script=Common}])[\p{L}\p{M}]$`);
const LETTER = pattern(String.raw`^[\p{L}\p{M}]$`);
const IDEOGRAPH = pattern(String.raw`^\p{Ideographic}$`);
/** What a variation selector may follow: a visible character, not another selector. */
const NO_BASE = pattern(String.raw`^(?:[\p{Cc}\p{Cf}\p{Cs}\p{Z}]|\p{Variation_Selector})$`);

function shown(character: string): string {
  const named = NAMED[character];
  if (named) return named;
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code < 0x10000 ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
}

/** The code point before `offset` (a whole pair), or "". */
function before(text: string, offset: number): string {
  const low = text.charCodeAt(offset - 1);
  const from = low >= 0xdc00 && low <= 0xdfff && offset >= 2 ? offset - 2 : offset - 1;
  return from < 0 ? "" : String.fromCodePoint(text.codePointAt(from) ?? 0);
}

function after(text: string, offset: number): string {
  const code = text.codePointAt(offset);
  return code === undefined ? "" : String.fromCodePoint(code);
}

/**
 * Whether a joiner or a variation selector does the job it exists for where it stands, and hides
 * nothing: a joiner inside an emoji sequence or between letters of a joining script, one selector
 * after a visible character (an ideograph for the supplementary ones).
 */
function kept(character: string, offset: number, text: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  const previous = before(text, offset);
  if (code === 0x200c || code === 0x200d) {
    const next = after(text, offset + 1);
    if (JOINING().test(previous) && LETTER().test(next)) return true;
    if (code === 0x200c) return false;
    const base = EMOJI_TAIL().test(previous) ? before(text, offset - previous.length) : previous;
    return EMOJI().test(base) && EMOJI().test(next);
  }
  if (code >= 0xfe00 && code <= 0xfe0f) return previous !== "" && !NO_BASE().test(previous);
  if (code >= 0xe0100 && code <= 0xe01ef) return IDEOGRAPH().test(previous);
  return false;
}

export type PrintableOptions = {
  /** Keep newlines and tabs (a message body); by default they are shown as `\n` and `\t` too. */
  lines?: boolean | undefined;
};

/**
 * The text with every control character, format character (bidi, zero-width, tag characters),
 * stray variation selector and lone surrogate shown visibly (`\x1b`, `\x9b`, `\u202e`, `\u200b`,
 * `\u{e0069}`, `\ud800`, `\r`), so it cannot move the cursor, set a title, write the clipboard,
 * make a link, reorder what a reader sees, or hide words a model would read. Escape sequences are
 * neutralised by their first byte: `ESC ] 52 ; …` becomes the harmless text `\x1b]52;…`. Emoji
 * sequences, a joining script's joiners and one variation selector after a character pass. Text
 * with nothing unsafe comes back as it is.
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  const unsafe = options.lines ? UNSAFE() : UNSAFE_ONE_LINE();
  unsafe.lastIndex = 0;
  if (!unsafe.test(text)) return text;
  return text.replace(unsafe, (match: string, offset: number) =>
    match.length > 2 || kept(match, offset, text) ? match : shown(match),
  );
}

/**
 * A JSON value with every string in it (keys too) passed through `printable` keeping lines: what
 * an agent is handed as data (a tool's structured content) hides nothing either.
 */
export function printableData<Value>(value: Value): Value {
  if (typeof value === "string") return printable(value, { lines: true }) as Value;
  if (Array.isArray(value)) return value.map((item) => printableData(item)) as Value;
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [printable(key), printableData(item)]),
  ) as Value;
}
