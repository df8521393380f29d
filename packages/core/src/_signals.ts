// The engines' own signals of what their agent is doing, as data: one row per engine and signal,
// the state it reports, where muster receives it, and how long the state it sets is believed
// without another word. Like the discovery table, an engine or a signal is one row here and one
// row in the tests. Nothing here reads a screen: every row is an event the engine itself emits.

/** What a signal says: a state, back to the state a wait for the person interrupted, or nothing. */
export type SignalEffect = "working" | "idle" | "needs-you" | "resume" | "leaves";

export type SignalRow = {
  /** The engine's name as discovery and the record give it: `claude`, `codex`, `pi`, … */
  engine: string;
  /** The signal's name within the engine, as `recordSignal` is given it. */
  signal: string;
  effect: SignalEffect;
  /** Where it comes from, for the reader of `status` and of this table. */
  source: string;
  /**
   * How long a `working` it sets is believed with no other word (ms); absent: the default,
   * WORKING_BELIEVED_MS. `Infinity` where the receiver lives in the engine's process and its
   * member's heartbeat already says it runs.
   */
  believedMs?: number | undefined;
  /** False: the engine emits it, but muster does not receive it yet (its member is `unknown`). */
  wired?: false | undefined;
};

/**
 * How long a `working` mark is believed without a word from the engine. A turn the user
 * interrupts ends with no Stop hook and, measured with Claude Code 2.1.332, no `idle_prompt`
 * either; past this the mark is stale, shown `unknown`, and mail wakes the session again (a wake
 * of a session that is in fact busy only queues its next turn).
 */
export const WORKING_BELIEVED_MS = 15 * 60_000;

const IN_PROCESS = Number.POSITIVE_INFINITY;

/** The signals muster knows, engine by engine. */
export const ENGINE_SIGNALS: readonly SignalRow[] = [
  // Claude Code: muster's hooks (muster install claude), and its own session registry.
  { engine: "claude", signal: "session-start", effect: "idle", source: "hook SessionStart" },
  {
    engine: "claude",
    signal: "user-prompt-submit",
    effect: "working",
    source: "hook UserPromptSubmit",
  },
  { engine: "claude", signal: "pre-tool-use", effect: "working", source: "hook PreToolUse" },
  {
    engine: "claude",
    signal: "permission-request",
    effect: "needs-you",
    source: "hook PermissionRequest (just before the dialog is drawn)",
  },
  {
    engine: "claude",
    signal: "permission-prompt",
    effect: "needs-you",
    source: "hook Notification permission_prompt (~6 s after the dialog)",
  },
  { engine: "claude", signal: "stop", effect: "idle", source: "hook Stop" },
  {
    engine: "claude",
    signal: "turn-continued",
    effect: "working",
    source: "hook Stop, answered with mail that continues the turn",
  },
  {
    engine: "claude",
    signal: "rewake",
    effect: "working",
    source: "hook FileChanged/Notification, exit 2 (a turn started for mail)",
  },
  {
    engine: "claude",
    signal: "idle-prompt",
    effect: "idle",
    source: "hook Notification idle_prompt (~60 s after a turn)",
  },
  { engine: "claude", signal: "session-end", effect: "leaves", source: "hook SessionEnd" },
  {
    engine: "claude",
    signal: "registry-busy",
    effect: "working",
    source: "Claude Code's session registry, sessions/<pid>.json status busy",
  },
  {
    engine: "claude",
    signal: "registry-waiting",
    effect: "needs-you",
    source: "Claude Code's session registry, status waiting",
  },
  {
    // A permission rejected with Esc fires no hook at all: the registry says idle.
    engine: "claude",
    signal: "registry-idle",
    effect: "idle",
    source: "Claude Code's session registry, status idle",
  },
  // Codex: notify, the app-server control socket, and muster's own MCP tool calls.
  {
    engine: "codex",
    signal: "turn-complete",
    effect: "idle",
    source: "notify agent-turn-complete",
  },
  {
    engine: "codex",
    signal: "status-active",
    effect: "working",
    source: "control socket thread/status/changed active",
  },
  {
    engine: "codex",
    signal: "status-waiting-approval",
    effect: "needs-you",
    source: "control socket thread/status/changed active [waitingOnApproval]",
  },
  {
    engine: "codex",
    signal: "status-waiting-input",
    effect: "needs-you",
    source: "control socket thread/status/changed active [waitingOnUserInput]",
  },
  {
    engine: "codex",
    signal: "status-idle",
    effect: "idle",
    source: "control socket thread/status/changed idle",
  },
  {
    engine: "codex",
    signal: "tool-call",
    effect: "working",
    source: "a muster MCP tool call's x-codex-turn-metadata",
  },
  // pi: the muster extension's own events, in pi's process.
  { engine: "pi", signal: "session-start", effect: "idle", source: "extension session_start" },
  {
    engine: "pi",
    signal: "agent-start",
    effect: "working",
    source: "extension agent_start",
    believedMs: IN_PROCESS,
  },
  {
    engine: "pi",
    signal: "turn-start",
    effect: "working",
    source: "extension turn_start",
    believedMs: IN_PROCESS,
  },
  {
    engine: "pi",
    signal: "tool-start",
    effect: "working",
    source: "extension tool_execution_start",
    believedMs: IN_PROCESS,
  },
  {
    engine: "pi",
    signal: "ui-prompt-start",
    effect: "needs-you",
    source: "extension ui_prompt_start (a confirm, input, select or editor waits)",
  },
  {
    engine: "pi",
    signal: "ui-prompt-end",
    effect: "resume",
    source: "extension ui_prompt_end",
    believedMs: IN_PROCESS,
  },
  { engine: "pi", signal: "agent-settled", effect: "idle", source: "extension agent_settled" },
  // Gemini CLI and OpenCode emit these (their docs and source), but muster installs no hook or
  // plugin for them yet: their members are `unknown`, never guessed.
  {
    engine: "gemini",
    signal: "before-agent",
    effect: "working",
    source: "hook BeforeAgent",
    wired: false,
  },
  {
    engine: "gemini",
    signal: "notification",
    effect: "needs-you",
    source: "hook Notification (ToolPermission)",
    wired: false,
  },
  {
    engine: "gemini",
    signal: "after-agent",
    effect: "idle",
    source: "hook AfterAgent",
    wired: false,
  },
  {
    engine: "opencode",
    signal: "session-busy",
    effect: "working",
    source: "plugin event session.status busy",
    wired: false,
  },
  {
    engine: "opencode",
    signal: "permission-asked",
    effect: "needs-you",
    source: "plugin event permission.asked",
    wired: false,
  },
  {
    engine: "opencode",
    signal: "session-idle",
    effect: "idle",
    source: "plugin event session.status idle",
    wired: false,
  },
];

/** The row for an engine's signal; undefined for one no row names. */
export function signalRow(
  engine: string,
  signal: string,
  table: readonly SignalRow[] = ENGINE_SIGNALS,
): SignalRow | undefined {
  return table.find((row) => row.engine === engine && row.signal === signal);
}

/** Does muster receive any signal of this engine? Its members are `starting` until the first. */
export const reportsActivity = (
  engine: string,
  table: readonly SignalRow[] = ENGINE_SIGNALS,
): boolean => table.some((row) => row.engine === engine && row.wired !== false);

/** The name a signal is recorded under: `claude/permission-request`. */
export const signalName = (row: Pick<SignalRow, "engine" | "signal">) =>
  `${row.engine}/${row.signal}`;

/** The row of a recorded signal name, or undefined for a name no row has (planted, or older). */
export function rowOfName(
  name: string,
  table: readonly SignalRow[] = ENGINE_SIGNALS,
): SignalRow | undefined {
  const slash = name.indexOf("/");
  return slash < 0 ? undefined : signalRow(name.slice(0, slash), name.slice(slash + 1), table);
}

const REGISTRY_SIGNALS: Record<string, string> = {
  busy: "registry-busy",
  idle: "registry-idle",
  waiting: "registry-waiting",
};

/**
 * What an entry of Claude Code's own session registry (`sessions/<pid>.json`, as 2.1.332 writes
 * it: `pid`, `procStart`, `status`, `statusUpdatedAt`) says of the member with this pid and start
 * time, as a signal; undefined when it is not that member's entry or says nothing muster knows.
 */
export function claudeRegistrySignal(
  entry: unknown,
  member: { pid: number; pidStart?: string | undefined },
): { engine: "claude"; signal: string; at: number } | undefined {
  if (typeof entry !== "object" || entry === null || member.pidStart === undefined)
    return undefined;
  const fields = entry as Record<string, unknown>;
  if (fields.pid !== member.pid || fields.procStart !== member.pidStart) return undefined;
  const signal = Object.hasOwn(REGISTRY_SIGNALS, String(fields.status))
    ? REGISTRY_SIGNALS[String(fields.status)]
    : undefined;
  const at = fields.statusUpdatedAt;
  if (!signal || typeof at !== "number" || !Number.isFinite(at)) return undefined;
  return { engine: "claude", signal, at };
}
