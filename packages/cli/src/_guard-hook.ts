// Claude Code's PreToolUse hook, the lease guard before every edit (`muster hook claude
// pre-tool-use`): its input read, the guard's answer written in Claude Code's terms, and a refusal
// when the guard cannot answer (it threw, its input is too large, the deadline passed): a hook
// that cannot run refuses the edit, never lets it through. Run from _hook.ts and from the guard's
// own bundle (_guard-main.ts), which holds this and the guard and nothing of the command line.
import { printable, uncheckedLine } from "@muster/core";
import type { claudeGuard } from "@muster/mcp/hooks";
import { errorMessage } from "@muster/wiring";
import type { Io } from "./_context.js";

/** What the guard reads of the command's input and output. */
type GuardIo = Pick<Io, "env" | "cwd" | "stdin" | "stderr">;
type ClaudeGuard = typeof claudeGuard;

/**
 * The most of a hook's input read. A Write carries the whole file (Claude Code sends over 1 MiB
 * for a large one): all of it is read and parsed, up to this; past it the input is `TOO_LARGE`.
 */
export const INPUT_LIMIT = 64 << 20;
export const TOO_LARGE = Symbol("too large");

/** The hook's JSON; undefined when it is not JSON, TOO_LARGE past INPUT_LIMIT. */
export async function readInput(stream: NodeJS.ReadableStream): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > INPUT_LIMIT) return TOO_LARGE;
    chunks.push(Buffer.from(chunk as Buffer));
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * How long the lease guard may take, from this process's start: the same as
 * `CLAUDE_GUARD_DEADLINE_MS` in @muster/mcp, which is not loaded to know it (its import is one
 * of the things that may be slow). Claude Code lets an edit through when its hook times out.
 */
const GUARD_DEADLINE_MS = 7_000;

/**
 * The guard's answer when its own code could not give one (it threw, or did not answer by the
 * deadline): the edit is refused, with the reason; MUSTER_GUARD=warn lets it through, said.
 */
function fallbackAnswer(io: GuardIo, why: string): GuardAnswer {
  const reason = printable(uncheckedLine("This edit", why));
  const answer =
    io.env.MUSTER_GUARD === "warn"
      ? { systemMessage: `muster guard (warn only): ${reason}` }
      : {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: reason,
          },
        };
  return { stdout: `${JSON.stringify(answer)}\n`, stderr: `${reason}\n` };
}

/** The JSON answer, and the refusal in words for the exit-2 channel should stdout fail. */
type GuardAnswer = { stdout: string; stderr: string };

/**
 * PreToolUse: the guard's answer, or a refusal by the deadline; then this process ends at once.
 * `print` writes the answer (rejecting when it could not be written); `load` gives the guard, from
 * the shared build's @muster/mcp/hooks or the guard's own bundle (_guard-main.ts).
 */
export async function guardHook(
  io: GuardIo,
  print: (text: string) => Promise<void>,
  load: () => Promise<ClaudeGuard>,
) {
  // MUSTER_GUARD_DEADLINE_MS may shorten the deadline (the tests do), never lengthen it.
  const asked = Number(io.env.MUSTER_GUARD_DEADLINE_MS);
  const deadline = asked > 0 ? Math.min(asked, GUARD_DEADLINE_MS) : GUARD_DEADLINE_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<GuardAnswer>((resolve) => {
    // process.uptime, not performance.now: the performance global loads perf_hooks (9 modules).
    const left = Math.max(0, deadline - process.uptime() * 1000);
    timer = setTimeout(
      () => resolve(fallbackAnswer(io, `it was not done in ${deadline / 1000} s`)),
      left,
    );
  });
  const answered = (async () => {
    const input = io.stdin.isTTY ? undefined : await readInput(io.stdin);
    if (input === TOO_LARGE)
      return fallbackAnswer(io, `its hook input is larger than ${INPUT_LIMIT >> 20} MiB`);
    const claudeGuard = await load();
    const answer = await claudeGuard(input, {
      env: io.env,
      cwd: io.cwd,
      ppid: process.ppid,
    });
    return { stdout: answer.stdout, stderr: answer.stderr };
  })().catch((error: unknown) => fallbackAnswer(io, errorMessage(error)));
  const answer = await Promise.race([answered, late]);
  clearTimeout(timer);
  const written = answer.stdout
    ? await print(answer.stdout).then(
        () => true,
        () => false,
      )
    : true;
  // A refusal whose JSON could not be written goes the other way Claude Code blocks a tool call:
  // exit 2, the reason on stderr. And whatever the check left running (a git it still waits on)
  // must not hold the hook open past Claude Code's timeout, which would let the edit through.
  if (!written && answer.stderr) {
    io.stderr.write(answer.stderr);
    process.exit(2);
  }
  process.exit(0);
}
