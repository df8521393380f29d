// The team a repository declares: muster.toml's `[[member]]` tables, read from the main checkout
// (as `[nats]` is, so every worktree sees one team) and checked by core's `declaredTeam` before
// anything starts. The file is a clone's: read as hostile (a regular file, 64 KiB at most).
import path from "node:path";
import { type DeclaredMember, declaredTeam } from "@muster/core";
import { findTeamFolder, readRegularFile } from "@muster/node";
import { LAUNCH_ENGINES } from "@muster/reconciler";
import { validateLabel } from "@muster/roster";

const MAX_BYTES = 64 * 1024;

export type TeamFile =
  | {
      ok: true;
      members: DeclaredMember[];
      /** The team's name (the repository's folder name): its tmux window and session. */
      name: string;
      /** The muster.toml read, or undefined when there is none. */
      file: string | undefined;
      /** The main checkout: where a member with no worktree starts. */
      root: string;
    }
  | { ok: false; reason: string; error: string; fix: string };

/** A name tmux takes as it is for a window and a session (no `.` or `:`, which are targets). */
const tmuxName = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 40) || "team";

/** The team muster.toml declares (none declared: no members), or why it cannot be read. */
export async function readTeamFile(options: {
  cwd: string;
  env?: NodeJS.ProcessEnv | undefined;
}): Promise<TeamFile> {
  const folder = await findTeamFolder({ cwd: options.cwd, env: options.env });
  const root =
    folder.source === "git" ? folder.worktrees[0]! : (folder.worktrees[0] ?? options.cwd);
  const file = path.join(root, "muster.toml");
  const name = tmuxName(folder.name);
  let text: string;
  try {
    text = readRegularFile(file);
  } catch {
    return { ok: true, members: [], name, file: undefined, root };
  }
  const refuse = (error: string) => ({
    ok: false as const,
    reason: "bad-team-file",
    error: `${file}: ${error}`,
    fix: "fix muster.toml; nothing was started",
  });
  if (text.length > MAX_BYTES) return refuse(`over ${MAX_BYTES} bytes`);
  // Loaded only here: every command loads the wiring, few read the team file.
  const { parse } = await import("smol-toml");
  let document: Record<string, unknown>;
  try {
    document = parse(text) as Record<string, unknown>;
  } catch (error) {
    const first = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    const line = (error as { line?: unknown }).line;
    const where = typeof line === "number" ? ` (line ${line})` : "";
    return refuse(`does not parse${where}: ${JSON.stringify(first.slice(0, 120)).slice(1, -1)}`);
  }
  const declared = declaredTeam({
    member: document.member,
    tables: Object.keys(document),
    text,
    engines: LAUNCH_ENGINES,
    validLabel: (label) => {
      const valid = validateLabel(label);
      return valid.ok ? { ok: true } : { ok: false, error: valid.error, fix: valid.fix };
    },
  });
  // The line, then the fix apart: every door joins the two once (errorLine).
  if (!declared.ok)
    return {
      ok: false,
      reason: declared.reason,
      error: `${declared.error}${declared.line === undefined ? "" : ` (line ${declared.line})`}`,
      fix: declared.fix,
    };
  return { ok: true, members: declared.members, name, file, root };
}
