// When the person is told, and where: which changes of a member's activity deserve their
// attention (a wait for them, a long turn finished, an unexpected death, mail to them), the
// debounce that raises each once, never for the pane they are looking at, and the channels a
// setting turns on. Pure: the receiver of a signal records it and raises what this says.
import type { Activity } from "./_activity.js";

/** Why the person is told. */
export type AttentionKind = "needs-you" | "turn-done" | "gone" | "mail";

/** A turn this long or longer, finished, is worth telling: a short one the person saw run. */
export const LONG_TURN_MS = 60_000;

/**
 * At most one alert per member this often: a burst (a permission approved, then the next one
 * asked; several mails at once) raises one. The time of the last is kept in the member's record.
 */
export const ATTENTION_QUIET_MS = 10_000;

/** Does the change from `before` to `after` (both as recorded) deserve the person's attention? */
export function attentionFor(
  before: Activity | undefined,
  after: Activity,
): AttentionKind | undefined {
  if (after.state === "needs-you" && before?.state !== "needs-you") return "needs-you";
  if (after.state === "gone" && before?.state !== "gone") return "gone";
  if (
    before?.state === "working" &&
    after.state === "idle" &&
    after.at - before.since >= LONG_TURN_MS
  )
    return "turn-done";
  return undefined;
}

/** Raise now, or is an alert for this member still fresh? `alertedAt`: the last one's time. */
export const mayRaise = (alertedAt: number | undefined, now: number): boolean =>
  alertedAt === undefined || now - alertedAt >= ATTENTION_QUIET_MS || alertedAt > now;

/** One attached tmux client: its name, and the pane it shows (its window's active pane). */
export type ClientView = { name: string; pane: string };

/**
 * Which clients to tell: none when any of them shows the member's pane (the person is looking at
 * it), else every attached client. A member with no pane is shown to every client.
 */
export function clientsToTell(
  clients: readonly ClientView[],
  pane: string | undefined,
): { looking: boolean; clients: string[] } {
  const looking = pane !== undefined && clients.some((client) => client.pane === pane);
  return { looking, clients: looking ? [] : clients.map((client) => client.name) };
}

/** The ways an alert reaches the person. */
export const ATTENTION_CHANNELS = ["message", "bell", "desktop", "osc"] as const;
export type AttentionChannel = (typeof ATTENTION_CHANNELS)[number];

/**
 * On unless the setting says otherwise: a tmux message on each client, the window's bell flag,
 * and a desktop notification where the machine has one. OSC 9 / 777 (the terminal's own
 * notification) only when asked for: a terminal that does not know it may print it.
 */
export const DEFAULT_CHANNELS: readonly AttentionChannel[] = ["message", "bell", "desktop"];

export type ChannelSetting = { channels: AttentionChannel[]; unknown: string[] };

/**
 * The channels a setting names (`MUSTER_ATTENTION`, or tmux's `@muster-attention`): words
 * separated by spaces or commas; `off` (or `none`) for none; empty or absent for the default.
 * Words it does not know are returned, never guessed at.
 */
export function parseChannels(setting: string | undefined): ChannelSetting {
  const words = (setting ?? "")
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (words.length === 0) return { channels: [...DEFAULT_CHANNELS], unknown: [] };
  const known = new Set<string>(ATTENTION_CHANNELS);
  const channels = words.filter((word): word is AttentionChannel => known.has(word));
  const unknown = words.filter((word) => !known.has(word) && word !== "off" && word !== "none");
  return { channels: [...new Set(channels)], unknown };
}

/** What the alert says, in one line: the label, and what it wants. */
export function attentionLine(
  kind: AttentionKind,
  label: string,
  detail: { turnMs?: number | undefined; from?: string | undefined } = {},
): string {
  switch (kind) {
    case "needs-you":
      return `${label} needs you`;
    case "turn-done":
      return `${label} finished${detail.turnMs === undefined ? "" : ` after ${minutes(detail.turnMs)}`}`;
    case "gone":
      return `${label} is gone (its process ended)`;
    case "mail":
      return `mail for ${label}${detail.from ? ` from ${detail.from}` : ""}`;
  }
}

const minutes = (ms: number) =>
  ms < 90_000 ? `${Math.round(ms / 1000)}s` : `${Math.round(ms / 60_000)}m`;

/**
 * The most alerts the person is shown in a minute, across the whole team and every process that
 * raises one (each alert takes one of these shared slots; core's wake-rate rule for why slots):
 * 30 members dying at once, or a planted burst, is not 30 messages.
 */
export const ALERTS_PER_MINUTE = 3;
const ALERT_WINDOW_MS = 60_000;

/** The team's alert slots: how many, and when one taken at `takenAt` is free again. */
export const alertRate = () => ({
  slots: ALERTS_PER_MINUTE,
  free: (takenAt: number, now: number) =>
    !Number.isFinite(takenAt) ||
    now - takenAt >= ALERT_WINDOW_MS ||
    takenAt - now > ALERT_WINDOW_MS,
});

/** The most labels a burst's line names; the rest are counted. */
const BURST_NAMES = 5;

/**
 * One line for one kind of change to many members at once: `30 members gone: a, b, c, d, e and
 * 25 more`. One member: its own `attentionLine`.
 */
export function burstLine(kind: AttentionKind, labels: readonly string[]): string {
  if (labels.length === 1) return attentionLine(kind, labels[0] as string);
  const named = labels.slice(0, BURST_NAMES).join(", ");
  const more = labels.length > BURST_NAMES ? ` and ${labels.length - BURST_NAMES} more` : "";
  const what: Record<AttentionKind, string> = {
    "needs-you": "need you",
    "turn-done": "finished",
    gone: "gone (their processes ended)",
    mail: "have mail",
  };
  return `${labels.length} members ${what[kind]}: ${named}${more}`;
}
