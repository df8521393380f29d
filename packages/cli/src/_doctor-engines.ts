// `muster doctor`'s checks of the engines' configurations muster installs into: Codex's config.toml
// and Claude Code's MCP and settings files, for the user and for this repository. The checks
// themselves are @muster/mcp/engines' (pure, over the files' text); this file finds and reads them.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { Context } from "./_context.js";
import { hookCheck } from "./_doctor-hook.js";
import { piFiles } from "./_install-pi.js";

type Check = {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  warn?: boolean;
  notSetUp?: boolean;
};

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** The repository's root this shell is in (the nearest worktree), if any. */
async function projectRoot(context: Context): Promise<string | undefined> {
  const team = await context.team().catch(() => undefined);
  const cwd = context.io.cwd;
  return team?.worktrees
    .filter((root) => cwd === root || cwd.startsWith(`${root}/`))
    .sort((left, right) => right.length - left.length)[0];
}

/** The engines muster installs into, each with its checks here. */
export type SetUpEngine = "codex" | "claude" | "pi";

/** The checks of every engine's configuration, or of one (`muster spawn`'s check before a pane). */
export async function engineChecks(
  context: Context,
  only?: SetUpEngine,
  options: { models?: boolean } = {},
): Promise<Check[]> {
  const { checkClaudeConfig, checkCodexConfig, checkPi } = await import("@muster/mcp/engines");
  const env = context.io.env;
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir();
  const exists = (file: string) => existsSync(file);
  const wants = (engine: SetUpEngine) => only === undefined || only === engine;
  const checks: Check[] = [];
  const codex = path.join(env.CODEX_HOME || path.join(home, ".codex"), "config.toml");
  if (wants("codex")) checks.push(...checkCodexConfig(codex, read(codex), exists));
  const claudeDir = env.CLAUDE_CONFIG_DIR || path.join(home, ".claude");
  const claudeMcp = env.CLAUDE_CONFIG_DIR
    ? path.join(env.CLAUDE_CONFIG_DIR, ".claude.json")
    : path.join(home, ".claude.json");
  const settings = path.join(claudeDir, "settings.json");
  if (wants("claude"))
    checks.push(
      ...checkClaudeConfig(
        { file: claudeMcp, text: read(claudeMcp) },
        { file: settings, text: read(settings) },
        exists,
      ),
    );
  if (wants("pi")) checks.push(checkPi(piFiles(env)));
  // Each engine set up for muster: does it have a model (its own offline status; doctor only)?
  if (options.models) {
    const setUp = (["codex", "claude", "pi"] as const).filter((engine) => {
      const own = checks.filter((check) =>
        check.name.startsWith(engine === "pi" ? "pi " : `${engine} `),
      );
      return own.length > 0 && own.every((check) => check.ok && !check.notSetUp);
    });
    const { modelChecks } = await import("./_doctor-models.js");
    checks.push(...(await modelChecks(context, setUp)));
  }
  if (only === undefined) checks.push(await hookCheck(context));
  // The repository's own files, where they exist (and are not the user's: HOME as the project).
  const root = await projectRoot(context);
  if (root) {
    const project = (name: string) => `${name} (project)`;
    const projectCodex = path.join(root, ".codex", "config.toml");
    const codexText = wants("codex") ? read(projectCodex) : undefined;
    if (codexText !== undefined && projectCodex !== codex)
      checks.push(
        ...checkCodexConfig(projectCodex, codexText, exists).map((check) => ({
          ...check,
          name: project(check.name),
        })),
      );
    const mcp = path.join(root, ".mcp.json");
    const projectSettings = path.join(root, ".claude", "settings.json");
    const [mcpText, settingsText] = wants("claude")
      ? [read(mcp), read(projectSettings)]
      : [undefined, undefined];
    if ((mcpText !== undefined || settingsText !== undefined) && projectSettings !== settings)
      checks.push(
        ...checkClaudeConfig(
          { file: mcp, text: mcpText },
          { file: projectSettings, text: settingsText },
          exists,
        ).map((check) => ({ ...check, name: project(check.name) })),
      );
  }
  return checks;
}
