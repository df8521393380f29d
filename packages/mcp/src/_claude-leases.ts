// Claude Code's PreToolUse hook for path leases: an edit of a path another live member leased
// exclusively is denied, naming the holder. Kept apart from the MCP tools so a hook loads no SDK.
import path from "node:path";
import { blockedPathLine, printable } from "@muster/core";
import { holdingLeases, pathsBlocked, repoFacts } from "@muster/node";
import type { Roster } from "@muster/roster";

const clock = (at: number) => new Date(at).toISOString().slice(11, 16);
const ask = (holder: string) => `team_send to "${holder}"`;

/** Claude Code's file-changing tools, and the input field naming the file. */
const CLAUDE_EDITS: Record<string, string> = {
  Edit: "file_path",
  MultiEdit: "file_path",
  Write: "file_path",
  NotebookEdit: "notebook_path",
};

/** The PreToolUse matcher muster installs: only the tools above run the hook. */
export const CLAUDE_EDIT_MATCHER = Object.keys(CLAUDE_EDITS).join("|");

/**
 * PreToolUse: deny an edit of a path another live member leased exclusively, telling the model
 * who holds it and whom to ask. Undefined lets the call go on (no lease, or no word from the roster).
 */
export async function claudeLeaseDenial(
  roster: Roster,
  memberId: string,
  fields: Record<string, unknown>,
  cwd: string,
): Promise<Record<string, unknown> | undefined> {
  const field = typeof fields.tool_name === "string" ? CLAUDE_EDITS[fields.tool_name] : undefined;
  const input = fields.tool_input as Record<string, unknown> | undefined;
  const file = field && input ? input[field] : undefined;
  if (typeof file !== "string") return undefined;
  const facts = await repoFacts(cwd);
  // Outside git the team is this folder's, and so are the lease patterns.
  const root = facts.root ?? cwd;
  const relative = path.relative(root, path.resolve(cwd, file));
  if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  const read = await holdingLeases(roster);
  if (!read.ok) return undefined;
  const [blocked] = pathsBlocked(
    [relative.split(path.sep).join("/")],
    read.leases,
    memberId,
    facts.ignoreCase,
  );
  if (!blocked) return undefined;
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: printable(blockedPathLine(blocked, clock, ask)),
    },
  };
}
