import { describe, expect, it } from "vitest";
import { modelCheck } from "./index.js";

const said = (status: number | null, stdout: string, stderr = "") =>
  ({ found: true, status, stdout, stderr }) as const;

// The answers as the real engines printed them, offline in a throwaway HOME (pi 1.6.0, Codex
// 0.171.0, Claude Code 2.1.332).
describe("modelCheck", () => {
  it.each([
    [
      "pi",
      said(
        0,
        "",
        "No models available. Use /login to log into a provider via OAuth or API key. See:\n  …/providers.md\n",
      ),
      true,
      'pi has no model: pi --offline --list-models says "No models available.',
    ],
    [
      "pi",
      said(
        0,
        "provider   model   context\nanthropic  claude-haiku-4-5  200K\nanthropic  claude-sonnet-4-5  200K\n",
      ),
      undefined,
      "2 model(s) with a key (pi --offline --list-models); not verified: doctor calls no model",
    ],
    [
      "codex",
      said(1, "", "WARNING: proceeding, even though …\nNot logged in\n"),
      true,
      'Codex is not signed in: it says "Not logged in"',
    ],
    [
      "codex",
      said(0, "API key configured - ***\nAuthentication is checked when you send a request.\n"),
      undefined,
      'Codex says "API key configured - ***"; not verified: doctor calls no model',
    ],
    [
      "claude",
      said(1, '{"loggedIn": false, "authMethod": "none"}'),
      true,
      "Claude Code is not logged in (claude auth status)",
    ],
    [
      "claude",
      said(0, '{"loggedIn": true, "authMethod": "api_key", "apiKeySource": "ANTHROPIC_API_KEY"}'),
      undefined,
      "Claude Code is logged in (api_key, ANTHROPIC_API_KEY); not verified: doctor calls no model",
    ],
    [
      "claude",
      said(null, ""),
      true,
      "claude auth status did not answer in time: not verified: doctor calls no model",
    ],
  ] as const)("%s: %j", (engine, answer, warn, detail) => {
    const check = modelCheck(engine, answer);
    expect(check.warn).toBe(warn);
    expect(check.detail.startsWith(detail)).toBe(true);
    if (warn && answer.status !== null) expect(check.fix).toBeDefined();
  });

  it("an engine not on PATH: a warning that spawn cannot start it", () => {
    expect(modelCheck("codex", { found: false })).toMatchObject({
      warn: true,
      detail: "codex is not on PATH, so muster spawn codex cannot start it",
    });
  });
});
