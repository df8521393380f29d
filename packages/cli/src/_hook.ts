// `muster hook claude <event>`: what Claude Code's hooks run (muster install claude writes them).
// Reads the hook's JSON on stdin, answers on stdout/stderr with the exit status the event means.
// `muster hook codex notify [-- <program>…] <json>`: what Codex's notify runs after every turn.
import { nearestName } from "@muster/core";
import type { Context } from "./_context.js";
import { UsageError } from "./_context.js";
import { guardHook, readInput, TOO_LARGE } from "./_guard-hook.js";

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
  if (event === "pre-tool-use")
    return guardHook(context.io, context.print, async () => {
      const { claudeGuard } = await import("@muster/mcp/hooks");
      return claudeGuard;
    });
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
