import { describe, expect, it } from "vitest";
import { printable } from "./index.js";

const ESC = "\u001b";
const BEL = "\u0007";

/** Anything a terminal would act on, or a reader would be misled by, that printable must not pass. */
const RAW =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("printable: the corpus", () => {
  it.each([
    ["OSC 52 (clipboard write)", `${ESC}]52;c;aGVsbG8=${BEL}`, "\\x1b]52;c;aGVsbG8=\\x07"],
    [
      "OSC 8 (hyperlink)",
      `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`,
      "\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\",
    ],
    ["OSC 0 (window title)", `${ESC}]0;pwned${BEL}`, "\\x1b]0;pwned\\x07"],
    ["CSI clear screen", `${ESC}[2J${ESC}[H`, "\\x1b[2J\\x1b[H"],
    ["SGR colour", `${ESC}[31mred${ESC}[0m`, "\\x1b[31mred\\x1b[0m"],
    [
      "DCS (tmux passthrough)",
      `${ESC}Ptmux;${ESC}${ESC}]52;c;eA==${BEL}${ESC}\\`,
      "\\x1bPtmux;\\x1b\\x1b]52;c;eA==\\x07\\x1b\\",
    ],
    ["8-bit CSI", "\u009b2J", "\\x9b2J"],
    ["8-bit OSC and ST", "\u009d0;t\u009c", "\\x9d0;t\\x9c"],
    ["NUL, backspace, DEL", "a\u0000b\bc\u007f", "a\\x00b\\x08c\\x7f"],
    ["carriage return (overwrites a line)", "ok\rEVIL", "ok\\rEVIL"],
    ["vertical tab, form feed", "a\u000bb\u000cc", "a\\x0bb\\x0cc"],
    ["RLO (right-to-left override)", "file\u202Etxt.exe", "file\\u202etxt.exe"],
    [
      "bidi isolates and marks",
      "\u2066a\u2069\u200e\u200f\u061c",
      "\\u2066a\\u2069\\u200e\\u200f\\u061c",
    ],
    ["line and paragraph separators", "a\u2028b\u2029c", "a\\u2028b\\u2029c"],
    ["a lone high surrogate", "x\ud800y", "x\\ud800y"],
    ["a lone low surrogate", "x\udc00y", "x\\udc00y"],
    ["a high surrogate at the end", "x\udbff", "x\\udbff"],
  ])("%s is shown, not acted on", (_, text, expected) => {
    const out = printable(text);
    expect(out).toBe(expected);
    expect(RAW.test(out)).toBe(false);
  });

  it.each([
    ["plain ASCII", "hello, world"],
    ["accents and CJK", "café 日本語"],
    ["a pair of surrogates (emoji)", "ok 👍🏽"],
    ["a zero-width joiner inside an emoji", "👩‍💻"],
    ["a backslash stays one backslash", "C:\\Users\\x"],
    ["right-to-left text itself (no override)", "שלום"],
  ])("%s passes unchanged, as the same string", (_, text) => {
    expect(printable(text)).toBe(text);
  });

  it("one line by default: newlines and tabs are shown, so a field cannot forge a row", () => {
    expect(printable("a\tb\nc")).toBe("a\\tb\\nc");
  });

  it("a body keeps its newlines and tabs, and nothing else", () => {
    const body = `line one\n\tindented\n${ESC}]0;title${BEL}\r\n`;
    expect(printable(body, { lines: true })).toBe("line one\n\tindented\n\\x1b]0;title\\x07\\r\n");
  });

  it("every code unit below 0x100 and every listed control comes out safe", () => {
    let all = "";
    for (let code = 0; code < 0x100; code += 1) all += String.fromCharCode(code);
    all += "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069";
    expect(RAW.test(printable(all))).toBe(false);
    expect(printable(all, { lines: true }).replace(/[\t\n]/g, "")).not.toMatch(RAW);
    // Calling it again changes nothing: output is already printable.
    expect(printable(printable(all))).toBe(printable(all));
  });
});
