// `muster hook claude <event>`: what Claude Code's hooks run (muster install claude writes them).
// Reads the hook's JSON on stdin, answers on stdout/stderr with the exit status the event means.
// `muster hook codex notify [-- <program>…] <json>`: what Codex's notify runs after every turn.
import { nearestName, printable, uncheckedLine } from "@muster/core";
import { errorMessage } from "@muster/wiring";
import type { Context } from "./_context.js";
import { UsageError } from "./_context.js";

const EVENTS = [
  "session-start",
  "user-prompt-submit",
  "stop",
  "session-end",
  "file-changed",
  "notification",
  "pre-tool-use",
  "permission-request",
] as const;
type HookEvent = (typeof EVENTS)[number];

/**
 * The most of a hook's input read. A Write carries the whole file (Claude Code sends over 1 MiB
 * for a large one): all of it is read and parsed, up to this; past it the input is `TOO_LARGE`.
 */
const INPUT_LIMIT = 64 << 20;
const TOO_LARGE = Symbol("too large");

/** The hook's JSON; undefined when it is not JSON, TOO_LARGE past INPUT_LIMIT. */
async function readInput(stream: NodeJS.ReadableStream): Promise<unknown> {
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
function fallbackAnswer(context: Context, why: string): GuardAnswer {
  const reason = printable(uncheckedLine("This edit", why));
  const answer =
    context.io.env.MUSTER_GUARD === "warn"
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

/** PreToolUse: the guard's answer, or a refusal by the deadline; then this process ends at once. */
async function guardHook(context: Context) {
  // MUSTER_GUARD_DEADLINE_MS may shorten the deadline (the tests do), never lengthen it.
  const asked = Number(context.io.env.MUSTER_GUARD_DEADLINE_MS);
  const deadline = asked > 0 ? Math.min(asked, GUARD_DEADLINE_MS) : GUARD_DEADLINE_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<GuardAnswer>((resolve) => {
    // process.uptime, not performance.now: the performance global loads perf_hooks (9 modules).
    const left = Math.max(0, deadline - process.uptime() * 1000);
    timer = setTimeout(
      () => resolve(fallbackAnswer(context, `it was not done in ${deadline / 1000} s`)),
      left,
    );
  });
  const answered = (async () => {
    const input = context.io.stdin.isTTY ? undefined : await readInput(context.io.stdin);
    if (input === TOO_LARGE)
      return fallbackAnswer(context, `its hook input is larger than ${INPUT_LIMIT >> 20} MiB`);
    const { claudeHook } = await import("@muster/mcp/hooks");
    const answer = await claudeHook("pre-tool-use", input, {
      env: context.io.env,
      cwd: context.io.cwd,
      ppid: process.ppid,
    });
    return { stdout: answer.stdout, stderr: answer.stderr };
  })().catch((error: unknown) => fallbackAnswer(context, errorMessage(error)));
  const answer = await Promise.race([answered, late]);
  clearTimeout(timer);
  const written = answer.stdout
    ? await context.print(answer.stdout).then(
        () => true,
        () => false,
      )
    : true;
  // A refusal whose JSON could not be written goes the other way Claude Code blocks a tool call:
  // exit 2, the reason on stderr. And whatever the check left running (a git it still waits on)
  // must not hold the hook open past Claude Code's timeout, which would let the edit through.
  if (!written && answer.stderr) {
    context.io.stderr.write(answer.stderr);
    process.exit(2);
  }
  process.exit(0);
}

/** Codex's notify: the user's chained program, then a wake sweep for the thread's member. */
async function codexHook(context: Context, event: string, rest: string[]) {
  if (event !== "notify")
    throw new UsageError(`Codex's hook is notify, not "${event}"`, {
      suggestion: nearestName(event, ["notify"]),
    });
  if (rest.length === 0) throw new UsageError("notify takes the JSON argument Codex passes");
  try {
    const { codexNotify } = await import("@muster/mcp/hooks");
    // Codex reads nothing back from notify: the outcome is for tests, callers of the API and --json.
    const outcome = await codexNotify(rest, { env: context.io.env, cwd: context.io.cwd });
    if (context.json)
      await printed(
        context,
        `${JSON.stringify({ ok: true, engine: "codex", event, chained: outcome.chained ?? null, member: outcome.member ?? null, woken: outcome.woken }, null, 2)}\n`,
      );
  } finally {
    await endHook(context);
  }
}

/**
 * The hook is done (its answer written): the process ends, the wiring's one rule. It opened its
 * team itself, and a NATS connection left open would keep it running; `settle` (mail
 * acknowledged) is given the end's bound, not a server's every timeout.
 */
async function endHook(context: Context, settle?: () => Promise<void>) {
  const { endProcess } = await import("./_effects.js");
  await endProcess({ env: context.io.env, before: settle ? [settle] : [] });
}

export async function hookCommand(
  context: Context,
  engine: string,
  event: string,
  rest: string[] = [],
) {
  if (engine === "codex") return codexHook(context, event, rest);
  if (engine !== "claude")
    throw new UsageError(`hooks exist for claude and codex, not "${engine}"`, {
      suggestion: nearestName(engine, ["claude", "codex"]),
    });
  if (rest.length > 0) throw new UsageError("Claude Code's hooks take their input on stdin");
  if (!(EVENTS as readonly string[]).includes(event))
    throw new UsageError(`unknown hook event "${event}"; one of ${EVENTS.join(", ")}`, {
      suggestion: nearestName(event, EVENTS),
    });
  if (event === "pre-tool-use") return guardHook(context);
  const read = context.io.stdin.isTTY ? {} : await readInput(context.io.stdin);
  // Outside the guard, input that is not JSON is no input: the hook does nothing with it.
  const input = read === undefined || read === TOO_LARGE ? {} : read;
  let settle: (() => Promise<void>) | undefined;
  let status = 0;
  try {
    const { claudeHook } = await import("@muster/mcp/hooks");
    const answer = await claudeHook(event as HookEvent, input, {
      env: context.io.env,
      cwd: context.io.cwd,
      ppid: process.ppid,
    });
    // With --json (a person or a test looking) the answer is one document, its parts in it.
    const written = context.json
      ? await printed(
          context,
          `${JSON.stringify({ ok: true, engine: "claude", event, status: answer.status, stdout: answer.stdout, stderr: answer.stderr }, null, 2)}\n`,
        )
      : (await printed(context, answer.stdout)) && (await warned(context, answer.stderr));
    // Mail in the answer is acknowledged only now that it reached Claude Code; else it stays unread.
    settle = answer.settle && (() => answer.settle!(written));
    status = answer.status;
  } finally {
    await endHook(context, settle);
  }
  // Exit 2 is how a FileChanged hook wakes the session (its answer is written: see warned).
  if (status !== 0 && !context.json) process.exit(status);
}

/** Write the answer's stdout; whether it was written. */
const printed = (context: Context, text: string) =>
  text
    ? context.print(text).then(
        () => true,
        () => false,
      )
    : Promise.resolve(true);

/** Write the answer's stderr (a rewake's mail goes there); whether it was written. */
function warned(context: Context, text: string): Promise<boolean> {
  if (!text) return Promise.resolve(true);
  const stderr = context.io.stderr as NodeJS.WritableStream;
  return new Promise((resolve) => {
    // A failed write also raises 'error' on the stream: heard here, not left to crash the hook.
    stderr.once?.("error", () => resolve(false));
    try {
      stderr.write(text, (error) => resolve(!error));
    } catch {
      resolve(false);
    }
  });
}
