// The CLI's colours: bold, dim and four hues, as ANSI escapes when on, the text as it is when off.
// Its own, not picocolors: that package reads `process.stdout` when it is imported, and making
// the stream loads Node's streams and sockets (a few ms) at every start, also of a command whose
// output is a pipe and never coloured.

export type Colors = Record<
  "bold" | "dim" | "red" | "green" | "yellow" | "cyan",
  (text: string | number) => string
>;

/** `open` text `close`, with each `close` inside the text opening again (nested styles). */
const formatter = (open: string, close: string, reopen = open) => {
  return (input: string | number) => {
    const text = String(input);
    let at = text.indexOf(close, open.length);
    if (at < 0) return open + text + close;
    let result = "";
    let cursor = 0;
    do {
      result += text.substring(cursor, at) + reopen;
      cursor = at + close.length;
      at = text.indexOf(close, cursor);
    } while (at >= 0);
    return open + result + text.substring(cursor) + close;
  };
};

const plain = (input: string | number) => String(input);

export function createColors(on: boolean): Colors {
  if (!on) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    bold: formatter("\x1b[1m", "\x1b[22m", "\x1b[22m\x1b[1m"),
    dim: formatter("\x1b[2m", "\x1b[22m", "\x1b[22m\x1b[2m"),
    red: formatter("\x1b[31m", "\x1b[39m"),
    green: formatter("\x1b[32m", "\x1b[39m"),
    yellow: formatter("\x1b[33m", "\x1b[39m"),
    cyan: formatter("\x1b[36m", "\x1b[39m"),
  };
}
