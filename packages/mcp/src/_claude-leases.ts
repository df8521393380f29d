// Claude Code's PreToolUse hook for path leases: an edit of a path another live member leased
// exclusively is denied, naming the holder. A guard that cannot decide refuses, with the reason:
// input that is not the hook's JSON, a team folder or leases that cannot be read, a path that
// cannot be resolved, an error. Kept apart from the MCP tools so a hook loads no SDK.
import { blockedPathLine, printable, uncheckedLine } from "@muster/core";
import { checkEdit } from "@muster/node";
import { errorMessage, findMyAgent, openTeam, processRows } from "@muster/wiring";
import type { HookAnswer, HookOptions } from "./_hook-answer.js";

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
 * How long the guard may take, from the hook process's start: `muster install claude` gives the
 * hook 10 s, and a hook Claude Code kills at its timeout lets the edit through, so the guard
 * answers (refusing) well before.
 */
export const CLAUDE_GUARD_DEADLINE_MS = 7_000;

/**
 * The hook's answer that stops the tool call, with the reason the model reads. The reason is also
 * on `stderr`, for the CLI to fall back on (exit 2) should the JSON fail to be written.
 */
const claudeDenial = (reason: string): HookAnswer => ({
  stdout: `${JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: printable(reason),
    },
  })}\n`,
  stderr: `${printable(reason)}\n`,
  status: 0,
});

/** MUSTER_GUARD=warn: the edit goes on, and the person is told what was not stopped. */
const warned = (reason: string): HookAnswer => ({
  stdout: `${JSON.stringify({ systemMessage: printable(`muster guard (warn only): ${reason}`) })}\n`,
  stderr: "",
  status: 0,
});

const allowed: HookAnswer = { stdout: "", stderr: "", status: 0 };

/**
 * What a Claude hook reads of the machine, each read once however often it is asked for: the
 * processes above the hook (its Claude Code) and the team. PreToolUse's verdict and its activity
 * signal both need each, and read twice they walked /proc and opened the team twice per edit.
 */
export function claudeReads(options: HookOptions) {
  let rows: ReturnType<typeof processRows> | undefined;
  let team: ReturnType<typeof openTeam> | undefined;
  return {
    rows: () => {
      rows ??= processRows({ above: options.ppid });
      return rows;
    },
    team: () => {
      team ??= openTeam({ cwd: options.cwd, env: options.env });
      return team;
    },
  };
}
export type ClaudeReads = ReturnType<typeof claudeReads>;

/** The member the hook runs under (its Claude Code process), or undefined when it cannot tell. */
async function memberId(options: HookOptions, reads: ClaudeReads): Promise<string | undefined> {
  const rows = await reads.rows();
  if (!rows.ok) return undefined;
  const agent = findMyAgent(rows.processes, options.ppid);
  return agent.ok && agent.engine === "claude" ? `claude-${agent.pid}-${agent.start}` : undefined;
}

/** The verdict on one tool call: undefined to let it go on, else why it is stopped. */
async function verdict(
  input: unknown,
  options: HookOptions,
  reads: ClaudeReads,
): Promise<string | undefined> {
  if (typeof input !== "object" || input === null)
    return uncheckedLine("This edit", "the hook's input was not the JSON Claude Code sends");
  const fields = input as Record<string, unknown>;
  const tool = typeof fields.tool_name === "string" ? fields.tool_name : undefined;
  const field = tool === undefined ? undefined : CLAUDE_EDITS[tool];
  // Only the edit tools run this hook (the matcher): any other tool is not the guard's to judge.
  if (tool !== undefined && field === undefined) return undefined;
  const toolInput = fields.tool_input as Record<string, unknown> | undefined;
  const file = field && toolInput ? toolInput[field] : undefined;
  if (typeof file !== "string")
    return uncheckedLine("This edit", "the hook's input names no file to change");
  const [id, opened] = await Promise.all([memberId(options, reads), reads.team()]);
  if (!opened.ok) return uncheckedLine(file, opened.error);
  const check = await checkEdit(opened.roster, {
    file,
    cwd: options.cwd,
    memberId: id,
    spelling: "plain",
  });
  if (check.ok) return undefined;
  return check.reason === "lease-held"
    ? blockedPathLine(check.blocked, clock, ask)
    : uncheckedLine(file, check.error);
}

/**
 * PreToolUse: deny an edit of a path another live member leased exclusively, telling the model
 * who holds it and whom to ask; deny, with the reason, whatever it cannot decide. Never throws.
 */
export async function claudePreToolUse(
  input: unknown,
  options: HookOptions,
  reads: ClaudeReads = claudeReads(options),
): Promise<HookAnswer> {
  let reason: string | undefined;
  try {
    reason = await verdict(input, options, reads);
  } catch (error) {
    reason = uncheckedLine("This edit", errorMessage(error));
  }
  if (reason === undefined) return allowed;
  return options.env.MUSTER_GUARD === "warn" ? warned(reason) : claudeDenial(reason);
}
