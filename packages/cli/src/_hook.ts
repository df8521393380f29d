// `muster hook claude <event>`: what Claude Code's hooks run (muster install claude writes them).
// Reads the hook's JSON on stdin, answers on stdout/stderr with the exit status the event means.
// `muster hook codex notify [-- <program>…] <json>`: what Codex's notify runs after every turn.
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
] as const;
type HookEvent = (typeof EVENTS)[number];

async function readInput(stream: NodeJS.ReadableStream): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > 1 << 20) break; // a hook's input is small; a flood is not read whole
    chunks.push(Buffer.from(chunk as Buffer));
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return {};
  }
}

/** Codex's notify: the user's chained program, then a wake sweep for the thread's member. */
async function codexHook(context: Context, event: string, rest: string[]) {
  if (event !== "notify") throw new UsageError(`Codex's hook is notify, not "${event}"`);
  if (rest.length === 0) throw new UsageError("notify takes the JSON argument Codex passes");
  const { codexNotify } = await import("@muster/mcp/engines");
  // Codex reads nothing back from notify: the outcome is for tests and callers of the API.
  await codexNotify(rest, { env: context.io.env, cwd: context.io.cwd });
}

export async function hookCommand(
  context: Context,
  engine: string,
  event: string,
  rest: string[] = [],
) {
  if (engine === "codex") return codexHook(context, event, rest);
  if (engine !== "claude")
    throw new UsageError(`hooks exist for claude and codex, not "${engine}"`);
  if (rest.length > 0) throw new UsageError("Claude Code's hooks take their input on stdin");
  if (!(EVENTS as readonly string[]).includes(event))
    throw new UsageError(`unknown hook event "${event}"; one of ${EVENTS.join(", ")}`);
  const input = context.io.stdin.isTTY ? {} : await readInput(context.io.stdin);
  const { claudeHook } = await import("@muster/mcp/engines");
  const answer = await claudeHook(event as HookEvent, input, {
    env: context.io.env,
    cwd: context.io.cwd,
    ppid: process.ppid,
  });
  if (answer.stdout) context.io.stdout.write(answer.stdout);
  if (answer.stderr) context.io.stderr.write(answer.stderr);
  // Exit 2 is how a FileChanged hook wakes the session; pipes are written synchronously on Linux.
  if (answer.status !== 0) process.exit(answer.status);
}
