// What an engine prints when it cannot run a turn — no model or key, not signed in, cannot reach
// its model's service — as data: the words each engine uses (measured offline, each in its own
// HOME: pi 1.6.0, Codex 0.171.0, Claude Code 2.1.332), and what to do about each. A spawn looks at
// the new pane's text with `engineTrouble` before it reports success. Pure: the caller reads the
// screen; this only reads text. The words quoted back are another process's text: the caller
// makes them printable before they reach a terminal.

/** Why an engine cannot run a turn. */
export type TroubleKind = "no-model" | "not-signed-in" | "unreachable";

/** One way an engine says it cannot work: its words (a pattern over one screen line) and the fix. */
export type TroubleRow = {
  engine: string;
  kind: TroubleKind;
  /** Matched against each line of the screen; rows are tried in order, and in a row the first line that matches is quoted. */
  words: RegExp;
  fix: string;
};

const PI_MODEL =
  "give pi a model: its provider's key in the environment (e.g. ANTHROPIC_API_KEY) or /login in its pane, or spawn it with -- --provider NAME --model ID";
const CODEX_SIGN_IN =
  "sign Codex in: choose in its pane, or run codex login (an API key: printenv OPENAI_API_KEY | codex login --with-api-key)";
const CODEX_REACH =
  "check the network, or base_url of Codex's model provider in ~/.codex/config.toml; then spawn it again";
const CLAUDE_REACH = "check the network (or ANTHROPIC_BASE_URL); then spawn it again";
const CLAUDE_SIGN_IN =
  "sign Claude Code in: /login in its pane, or set ANTHROPIC_API_KEY where you spawn it";

/**
 * The rows, most telling first. Codex's sign-in screen and Claude Code's connection check are
 * shown before the engine joins; pi's missing key and every connection error come with the first
 * turn (the task, on the engine's command line).
 */
export const ENGINE_TROUBLES: readonly TroubleRow[] = [
  // pi 1.6.0: "Error: No API key found for the selected model." / "… for anthropic." (first turn)
  { engine: "pi", kind: "no-model", words: /No API key found for /, fix: PI_MODEL },
  // pi 1.6.0 at start: "Warning: No models available. Use /login to log into a provider …"
  { engine: "pi", kind: "no-model", words: /No models available\./, fix: PI_MODEL },
  // pi 1.6.0: "Error: Connection error.: getaddrinfo ENOTFOUND api.anthropic.com" (then retries)
  {
    engine: "pi",
    kind: "unreachable",
    words: /Error: Connection error\./,
    fix: "check the network, or the base URL of pi's provider in ~/.pi/agent/models.json; then spawn it again",
  },
  // Codex 0.171.0 with no auth.json: its first-run screen, "1. Sign in with ChatGPT".
  { engine: "codex", kind: "not-signed-in", words: /Sign in with ChatGPT/, fix: CODEX_SIGN_IN },
  // Codex 0.171.0, base_url unreachable: "└ Connection failed: error sending request", after
  // "Reconnecting... waiting for network (13s • esc to interrupt)".
  { engine: "codex", kind: "unreachable", words: /Connection failed: /, fix: CODEX_REACH },
  {
    engine: "codex",
    kind: "unreachable",
    words: /Reconnecting\.\.\. waiting for network/,
    fix: CODEX_REACH,
  },
  // Claude Code 2.1.332, onboarding with no network: "Unable to connect to Anthropic services",
  // "Failed to connect to api.anthropic.com: ENOTFOUND", and it exits (status 1).
  { engine: "claude", kind: "unreachable", words: /Failed to connect to /, fix: CLAUDE_REACH },
  {
    engine: "claude",
    kind: "unreachable",
    words: /Unable to connect to Anthropic services/,
    fix: CLAUDE_REACH,
  },
  // Claude Code 2.1.332 with no key: "⎿  Not logged in · Please run /login" (first turn).
  { engine: "claude", kind: "not-signed-in", words: /Not logged in · /, fix: CLAUDE_SIGN_IN },
  // Claude Code 2.1.332, ANTHROPIC_BASE_URL unreachable: "✻ Connection refused — a firewall or
  // proxy may be blocking it (ECONNREFUSED) · retrying in 7s · attempt 5/10".
  {
    engine: "claude",
    kind: "unreachable",
    words: /· retrying in \d+s · attempt \d+\/\d+/,
    fix: CLAUDE_REACH,
  },
];

/** An engine's own words that it cannot work, and the fix. */
export type EngineTrouble = { engine: string; kind: TroubleKind; words: string; fix: string };

/** The longest quote of an engine's line: a screen line can be a whole terminal wide. */
const QUOTE_LENGTH = 160;

/** A screen line as quoted: without the TUI's marks before the words, spaces squeezed, bounded. */
export function quotedLine(line: string): string {
  const words = line
    .replace(/^[^\p{L}\p{N}]+/u, "")
    .replace(/\s+/g, " ")
    .trim();
  return words.length > QUOTE_LENGTH ? `${words.slice(0, QUOTE_LENGTH - 1)}…` : words;
}

/**
 * Whether `screen` (the pane's text) shows `engine` saying it cannot run a turn: the first row of
 * `rows` for that engine that matches a line, with that line quoted; undefined when none does.
 */
export function engineTrouble(
  engine: string,
  screen: string,
  rows: readonly TroubleRow[] = ENGINE_TROUBLES,
): EngineTrouble | undefined {
  const lines = screen.split("\n");
  for (const row of rows) {
    if (row.engine !== engine) continue;
    const line = lines.find((candidate) => row.words.test(candidate));
    if (line !== undefined)
      return { engine, kind: row.kind, words: quotedLine(line), fix: row.fix };
  }
  return undefined;
}

/** The last lines a screen shows (blank lines dropped), quoted: an engine's last words. */
export function lastWords(screen: string, count = 3): string[] {
  return screen
    .split("\n")
    .map(quotedLine)
    .filter((line) => line !== "")
    .slice(-count);
}
