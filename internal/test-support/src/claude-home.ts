// A throwaway home for a real Claude Code run offline (the field notes' recipe): onboarding done,
// the fake API key approved, the repository trusted, the permission-skip warning off, and an
// environment with no route to any host but the scripted model (a dead proxy for everything else,
// git over ssh refused), telemetry, updates and error reports off. `muster install claude` is the
// caller's to run, against `env`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The Claude Code version the tests and benchmarks pin (pnpm catalog). */
export const CLAUDE_VERSION = "2.1.332";
const API_KEY = "sk-ant-fake";

export type ClaudeHome = {
  /** The throwaway HOME (a real path). */
  home: string;
  /** A git repository inside it, trusted by Claude Code: run Claude Code here. */
  repo: string;
  /** CLAUDE_CONFIG_DIR. */
  config: string;
  /** Claude Code's environment: nothing inherited but what is set here. */
  env: NodeJS.ProcessEnv;
};

export function claudeHome(options: {
  /** The scripted model's `baseUrl`. */
  baseUrl: string;
  /** MUSTER_LABEL for the session. */
  label: string;
  /** MUSTER_TEAM_DIR; by default `team` in the home. */
  teamDir?: string;
}): ClaudeHome {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-claude-")));
  const repo = path.join(home, "repo");
  const config = path.join(home, ".claude");
  for (const folder of [repo, config, path.join(home, "tmp")]) mkdirSync(folder);
  execFileSync("git", ["init", "-q", repo]);
  writeFileSync(
    path.join(config, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: CLAUDE_VERSION,
      theme: "dark",
      customApiKeyResponses: { approved: [API_KEY], rejected: [] },
      projects: { [repo]: { hasTrustDialogAccepted: true, allowedTools: [] } },
    }),
  );
  writeFileSync(
    path.join(config, "settings.json"),
    JSON.stringify({ skipDangerousModePermissionPrompt: true }),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: path.join(home, "tmp"),
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: API_KEY,
    // --dangerously-skip-permissions is refused to root outside a sandbox.
    IS_SANDBOX: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // No network: every host but the scripted model is behind a proxy that is not there, and
    // Claude Code's plugin marketplace clone over ssh (which no proxy setting reaches) fails.
    HTTPS_PROXY: "http://127.0.0.1:9",
    HTTP_PROXY: "http://127.0.0.1:9",
    NO_PROXY: "127.0.0.1,localhost",
    GIT_SSH_COMMAND: "false",
    GIT_TERMINAL_PROMPT: "0",
    MUSTER_TEAM_DIR: options.teamDir ?? path.join(home, "team"),
    MUSTER_LABEL: options.label,
  };
  return { home, repo, config, env };
}
