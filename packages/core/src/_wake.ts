// The wake policy: whether a message is pushed into a session, and whether it may wake the agent.
// Pure: the caller keeps the record of recent wakes and passes it in with the clock's reading.
import type { Watching } from "./_types.js";

export type WakePolicy = {
  /** A message that has been passed on more times than this never wakes anyone. */
  maxHops: number;
  /** At most this many wakes per session within `windowMs`. */
  maxWakes: number;
  windowMs: number;
};

/** How mail reaches a session, in one word: what every composer shows. */
export type MailMode = "off" | "quiet" | "wakes";

/** What each mail mode means, for help text and docs. */
export const MAIL_MODES: Readonly<Record<MailMode, string>> = {
  off: "mail is not pushed into the session; it waits in the inbox until read",
  quiet: "mail is pushed into the session at its next turn, and never wakes it",
  wakes: "mail is pushed into the session and may wake an idle agent",
};

/** The mail mode a session's listening choice amounts to. */
export const mailMode = (watching: Watching): MailMode =>
  !watching.armed ? "off" : watching.wake ? "wakes" : "quiet";

/** The listening choice each mail mode is. */
const WATCHING: Readonly<Record<MailMode, Watching>> = {
  off: { armed: false, wake: false },
  quiet: { armed: true, wake: false },
  wakes: { armed: true, wake: true },
};

export type MailSetting =
  | { ok: true; watching: Watching | undefined }
  | { ok: false; reason: "bad-mail-mode"; error: string; fix: string };

const MAIL_SETTING_FIX = "set MUSTER_MAIL to off, quiet or wakes";

/**
 * The mail mode a member asks for when it joins, the one setting every door reads (the CLI's
 * join, `muster mcp`, the pi extension): `MUSTER_MAIL=off|quiet|wakes`, else the older
 * `MUSTER_WAKE=1|0` (wakes, quiet) that `muster install codex --wake` writes. Unset: the door's
 * own default (a re-join keeps the record's choice). A value it does not know is refused, never
 * guessed.
 */
export function mailSetting(env: {
  MUSTER_MAIL?: string | undefined;
  MUSTER_WAKE?: string | undefined;
}): MailSetting {
  const bad = (name: string, value: string): MailSetting => ({
    ok: false,
    reason: "bad-mail-mode",
    error: `${name} is ${JSON.stringify(value)}`,
    fix: MAIL_SETTING_FIX,
  });
  const mode = env.MUSTER_MAIL?.trim().toLowerCase();
  if (mode)
    return Object.hasOwn(WATCHING, mode)
      ? { ok: true, watching: WATCHING[mode as MailMode] }
      : bad("MUSTER_MAIL", env.MUSTER_MAIL!);
  const wake = env.MUSTER_WAKE?.trim();
  if (!wake) return { ok: true, watching: undefined };
  if (wake === "1") return { ok: true, watching: WATCHING.wakes };
  if (wake === "0") return { ok: true, watching: WATCHING.quiet };
  return bad("MUSTER_WAKE", env.MUSTER_WAKE!);
}

/** The mail settings a spawned member's pane is started with, and the mode they amount to. */
export type SpawnedMail =
  | { ok: true; mode: MailMode; env: { MUSTER_MAIL: MailMode; MUSTER_WAKE_PER_MINUTE?: string } }
  | { ok: false; reason: "bad-mail-mode"; error: string; fix: string };

/**
 * The mail mode of a member muster spawns, for every engine and every door that spawns. A spawned
 * teammate exists to take work by mail, so it wakes for its mail unless asked not to (`quiet`);
 * else the spawning shell's own setting (MUSTER_MAIL, MUSTER_WAKE: `mailSetting`) holds; else it
 * wakes. The pane is started with the mode as MUSTER_MAIL (whatever the tmux server's own
 * environment says) and the shell's MUSTER_WAKE_PER_MINUTE, so the member's door joins with them.
 * A shell setting mailSetting refuses is refused, never guessed.
 */
export function spawnedMail(
  env: {
    MUSTER_MAIL?: string | undefined;
    MUSTER_WAKE?: string | undefined;
    MUSTER_WAKE_PER_MINUTE?: string | undefined;
  },
  options: { quiet?: boolean | undefined } = {},
): SpawnedMail {
  const setting = mailSetting(env);
  if (!setting.ok) return setting;
  const mode: MailMode = options.quiet
    ? "quiet"
    : setting.watching
      ? mailMode(setting.watching)
      : "wakes";
  const rate = env.MUSTER_WAKE_PER_MINUTE?.trim();
  return {
    ok: true,
    mode,
    env: { MUSTER_MAIL: mode, ...(rate ? { MUSTER_WAKE_PER_MINUTE: rate } : {}) },
  };
}

/** Defaults: 4 hops, and at most 6 wakes a minute per session. */
export const DEFAULT_WAKE_POLICY: WakePolicy = { maxHops: 4, maxWakes: 6, windowMs: 60_000 };

/** As much of a message as the policy reads. */
export type MailFacts = {
  id: string;
  urgent?: boolean | undefined;
  hops?: number | undefined;
  /** Sent past its conversation's budget (core's loop brake): it arrives, and wakes no one. */
  braked?: boolean | undefined;
};

/**
 * A wake this session already took: when, and for which message. A `failed` attempt (the engine
 * refused to start the turn) counts against the rate, so a failing door is not hammered, but its
 * message is tried again.
 */
export type RecentWake = { at: number; messageId: string; failed?: boolean | undefined };

export type Delivery =
  /** Nothing is pushed; the mail waits in the mailbox. */
  | { action: "hold"; reason: "not-listening" }
  /** Pushed into the session for its next turn, without waking it. */
  | {
      action: "deliver";
      wake: false;
      reason: "no-wake" | "hop-limit" | "loop-brake" | "rate-limited" | "already-woken";
    }
  /** Pushed and wakes the agent: urgent mail steers the current turn, other mail follows it. */
  | { action: "deliver"; wake: true; mode: "steer" | "follow-up" };

/** Decide how one message reaches one session. */
export function decideDelivery(
  message: MailFacts,
  watching: Watching,
  recentWakes: readonly RecentWake[],
  now: number,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): Delivery {
  if (!watching.armed) return { action: "hold", reason: "not-listening" };
  if (!watching.wake) return { action: "deliver", wake: false, reason: "no-wake" };
  if ((message.hops ?? 0) > policy.maxHops)
    return { action: "deliver", wake: false, reason: "hop-limit" };
  if (message.braked === true) return { action: "deliver", wake: false, reason: "loop-brake" };
  // A broadcast (or a redelivery) wakes a recipient once at most.
  if (recentWakes.some((wake) => wake.messageId === message.id && !wake.failed)) {
    return { action: "deliver", wake: false, reason: "already-woken" };
  }
  const inWindow = recentWakes.filter((wake) => now - wake.at < policy.windowMs).length;
  if (inWindow >= policy.maxWakes)
    return { action: "deliver", wake: false, reason: "rate-limited" };
  return { action: "deliver", wake: true, mode: message.urgent ? "steer" : "follow-up" };
}

/** The wakes still inside the policy's window, plus this one: what the caller keeps. */
export function recordWake(
  recentWakes: readonly RecentWake[],
  wake: RecentWake,
  policy: WakePolicy = DEFAULT_WAKE_POLICY,
): RecentWake[] {
  return [...recentWakes.filter((earlier) => wake.at - earlier.at < policy.windowMs), wake];
}

/**
 * The hop count a reply carries: one more than the message it answers, so a thread passed back and
 * forth grows until it stops waking anyone (`maxHops`). A new thread starts at 0; a reply to a
 * message whose count is not known counts as the first reply.
 */
export function replyHops(
  replyTo: string | undefined,
  hopsOf: (messageId: string) => number | undefined,
): number {
  if (replyTo === undefined) return 0;
  const earlier = hopsOf(replyTo);
  return (Number.isInteger(earlier) && earlier !== undefined && earlier >= 0 ? earlier : 0) + 1;
}

/** As much of a member as `mayWake` reads (a roster member fits). */
export type WakeTarget = { state: string; holdsLabel: boolean; watching: Watching };

/** May mail wake this member at all: live, still holding its label, and taking wakes. */
export const mayWake = (member: WakeTarget): boolean =>
  member.state === "live" && member.holdsLabel && member.watching.wake;

/** As much of a member as `canDeliverWake` reads (a roster member fits). */
export type WakeDoor = {
  agent: string;
  /** Where the member's engine keeps its sessions (Codex: CODEX_HOME, else ~/.codex). */
  engineHome?: string | undefined;
  /** The host its pid means something on. */
  place?: string | undefined;
};

/**
 * May this process deliver a wake to the member from outside: the member's engine, on its host,
 * under the same engine home (`codex queue` under another home fails: "failed to read thread").
 * A home not known on either side cannot be decided, so the wake is left to a process that knows.
 */
export const canDeliverWake = (
  member: WakeDoor,
  here: { engine: string; engineHome: string | undefined; place: string | undefined },
): boolean =>
  member.agent === here.engine &&
  here.engineHome !== undefined &&
  member.engineHome === here.engineHome &&
  member.place === here.place;
