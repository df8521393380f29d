import { describe, expect, it } from "vitest";
import { ENGINE_TROUBLES, engineTrouble, lastWords, quotedLine } from "./_engine-trouble.js";

// Screens as the real engines drew them in a tmux pane (capture-pane -p -J), offline, each in its
// own HOME: pi 1.6.0, Codex 0.171.0, Claude Code 2.1.332.
const PI_NO_KEY = [
  " ▀▀█  v1.6.0",
  " Warning: Failed to download fd: fetch failed: getaddrinfo ENOTFOUND github.com",
  " Warning: No models available. Use /login to log into a provider via OAuth or API key. See:",
  " Error: No API key found for the selected model.",
  " Use /login to log into a provider via OAuth or API key. See:",
].join("\n");
const PI_UNREACHABLE = [
  " hello",
  " Error: Connection error.: getaddrinfo ENOTFOUND api.anthropic.com",
  "── ⠦ Retrying (3/3) in 3s... (escape to cancel) ────",
].join("\n");
const CODEX_SIGN_IN = [
  "  Welcome to Codex, OpenAI's command-line coding agent",
  "  Choose how you want to use Codex.",
  "> 1. Sign in with ChatGPT",
  "     Usage included with Plus, Pro, Business, and Enterprise plans",
].join("\n");
const CODEX_UNREACHABLE = [
  "› hello",
  "◦ Reconnecting... waiting for network (13s • esc to interrupt)",
  "  └ Connection failed: error sending request",
].join("\n");
const CLAUDE_OFFLINE = [
  " Unable to connect to Anthropic services",
  " Failed to connect to api.anthropic.com: ENOTFOUND",
  " Check your internet connection and network settings.",
].join("\n");
const CLAUDE_NO_KEY = ["❯ hello", "  ⎿  Not logged in · Please run /login"].join("\n");
const CLAUDE_REFUSED =
  "✻ Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED) · retrying in 7s · attempt 5/10";

describe("engineTrouble", () => {
  it.each([
    ["pi", PI_NO_KEY, "no-model", "Error: No API key found for the selected model."],
    [
      "pi",
      PI_UNREACHABLE,
      "unreachable",
      "Error: Connection error.: getaddrinfo ENOTFOUND api.anthropic.com",
    ],
    ["codex", CODEX_SIGN_IN, "not-signed-in", "1. Sign in with ChatGPT"],
    ["codex", CODEX_UNREACHABLE, "unreachable", "Connection failed: error sending request"],
    ["claude", CLAUDE_OFFLINE, "unreachable", "Failed to connect to api.anthropic.com: ENOTFOUND"],
    ["claude", CLAUDE_NO_KEY, "not-signed-in", "Not logged in · Please run /login"],
    ["claude", CLAUDE_REFUSED, "unreachable", CLAUDE_REFUSED.slice(2)],
  ])("%s: %s → %s, quoting the engine's own line", (engine, screen, kind, words) => {
    expect(engineTrouble(engine, screen)).toMatchObject({ engine, kind, words });
  });

  it("pi with no key at start only (no task yet): its warning is the words", () => {
    const screen = " Warning: No models available. Use /login to log into a provider via OAuth";
    expect(engineTrouble("pi", screen)).toMatchObject({
      kind: "no-model",
      fix: expect.stringContaining("--provider NAME --model ID"),
    });
  });

  it("a working engine's screen, or another engine's words, is no trouble", () => {
    expect(engineTrouble("pi", " hello\n I reviewed the parser: it is fine.")).toBeUndefined();
    expect(engineTrouble("pi", CODEX_SIGN_IN)).toBeUndefined();
    expect(engineTrouble("gemini", PI_NO_KEY)).toBeUndefined();
  });

  it("every row has a fix that says what to do", () => {
    for (const row of ENGINE_TROUBLES) expect(row.fix.length).toBeGreaterThan(20);
  });

  it("quotes a line bounded, without the TUI's marks; last words drop blank lines", () => {
    expect(quotedLine(`  └ ${"x".repeat(400)}`)).toHaveLength(160);
    expect(lastWords("a\n\n  b  \n\n✻ c\n   \n", 2)).toEqual(["b", "c"]);
  });
});
