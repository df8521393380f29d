// The shell command each of muster's Claude Code hooks runs (`muster install claude` writes it), and
// how muster knows its own command again, whichever muster wrote it.
import type { ServerCommand } from "./_install-codex.js";

export const quote = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/** The shell command a hook runs: muster's own command line, then `hook claude <event>`. */
export const hookCommand = (server: ServerCommand, word: string) =>
  [server.command, ...server.args.filter((arg) => arg !== "mcp"), "hook", "claude", word]
    .map(quote)
    .join(" ");

/**
 * What the lease check's command does when muster cannot run at all (moved or removed: the shell
 * exits 127, Node 1): Claude Code lets any exit but 2 through, so it exits 2, with what to do.
 * An exit 2 of muster's own keeps muster's reason.
 */
export const GUARD_FALLBACK =
  " || { [ $? -eq 2 ] || echo \"muster's lease check could not run (muster moved or removed?), so the edit is refused: install muster and run muster install claude again, or remove muster's PreToolUse hook from Claude Code's settings\" >&2; exit 2; }";

/** The `muster hook claude` word a hook command runs, if it is muster's. */
export function musterHookWord(command: unknown): string | undefined {
  if (typeof command !== "string") return undefined;
  const bare = command.endsWith(GUARD_FALLBACK)
    ? command.slice(0, -GUARD_FALLBACK.length)
    : command;
  return / hook claude ([a-z-]+)$/.exec(bare)?.[1];
}
