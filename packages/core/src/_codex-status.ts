// What Codex's app-server control socket says of a thread, as a signal of `_signals.ts`: the
// socket (0.171.0, measured) tells every connected client `thread/status/changed {threadId,
// status}`, and `thread/read` answers a thread's `status` in the same shape. Anything else a
// message carries, and any shape not measured, is no signal. Pure: the listener hands in what it
// received and when.

/** A thread's status as the socket gives it, in the signal it is. */
export function codexStatusSignal(status: unknown): string | undefined {
  if (typeof status !== "object" || status === null) return undefined;
  const { type, activeFlags } = status as Record<string, unknown>;
  if (type === "idle") return "status-idle";
  if (type !== "active") return undefined;
  const flags = Array.isArray(activeFlags) ? activeFlags : [];
  // A wait for the person first: an approval and a question are both the person's to answer.
  if (flags.includes("waitingOnApproval")) return "status-waiting-approval";
  if (flags.includes("waitingOnUserInput")) return "status-waiting-input";
  return "status-active";
}

/** One status change heard on the socket: which thread, which signal, when. */
export type CodexStatusChange = { threadId: string; signal: string; at: number };

/**
 * A control-socket message as a status change; undefined for any other message. Its time is the
 * message's `emittedAtMs`, never later than `receivedAt` (a time from the future would make every
 * later signal look older and be dropped), and `receivedAt` when it has none.
 */
export function codexStatusChange(
  message: unknown,
  receivedAt: number,
): CodexStatusChange | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { method, params, emittedAtMs } = message as Record<string, unknown>;
  if (method !== "thread/status/changed" || typeof params !== "object" || params === null)
    return undefined;
  const { threadId, status } = params as Record<string, unknown>;
  const signal = codexStatusSignal(status);
  if (typeof threadId !== "string" || !signal) return undefined;
  const emitted =
    typeof emittedAtMs === "number" && Number.isFinite(emittedAtMs) && emittedAtMs > 0
      ? emittedAtMs
      : receivedAt;
  return { threadId, signal, at: Math.min(emitted, receivedAt) };
}
