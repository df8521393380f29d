// What a member's agent is doing — working, idle, waiting for the person, starting, gone or not
// known — from its engine's own signals (the table in `_signals.ts`), never from its screen. Two
// rules: a signal in, the recorded activity out (`recordSignal`); and the activity as far as it
// can be believed now (`activityNow`), with staleness. Pure: the caller records and reads.
import {
  reportsActivity,
  rowOfName,
  type SignalRow,
  signalName,
  signalRow,
  WORKING_BELIEVED_MS,
} from "./_signals.js";

/** Every state a member's activity can be shown in. */
export const ACTIVITY_STATES = [
  "working",
  "idle",
  "needs-you",
  "starting",
  "gone",
  "unknown",
  "trouble",
] as const;
export type ActivityState = (typeof ACTIVITY_STATES)[number];

/** The states a record holds: what a signal reported (`gone`: a watcher saw the process end). */
export type RecordedState = "working" | "idle" | "needs-you" | "gone";

/** A member's recorded activity. Times are ms since the epoch. */
export type Activity = {
  state: RecordedState;
  /** When this state began. */
  since: number;
  /** The latest signal that reported or confirmed it. */
  at: number;
  /** The signal, as `engine/signal` (`claude/permission-request`). */
  signal: string;
  /** For `needs-you`: the state the wait interrupted, which `resume` returns to. */
  resume?: "working" | "idle" | undefined;
  /** For `gone`: what the agent was doing when its process was found dead. */
  was?: "working" | "idle" | "needs-you" | undefined;
};

/** One signal as its receiver hands it in: which, and when the engine emitted it. */
export type SignalReport = { engine: string; signal: string; at: number };

/**
 * A confirmation of the same state is written only this long after the last one: a pi tool call
 * every second would otherwise rewrite the record every second.
 */
export const CONFIRM_EVERY_MS = 30_000;

export type RecordStep =
  | { write: true; activity: Activity }
  | { write: false; reason: "unknown-signal" | "older" | "same" | "leaves" };

/**
 * How far ahead of the recorder's clock a time is still believed (another host's clock, a hook's
 * report racing the recorder's). A record dated further ahead — planted, written by a member on
 * NATS whose clock runs fast, left by a clock stepped back — is not the basis for dropping a signal
 * as older: otherwise one timestamp silences the member for good.
 */
export const SIGNAL_SKEW_MS = 5_000;

/**
 * The activity a signal leaves the member in, from the one recorded, at the recorder's `now`. A
 * signal older than the recorded one is dropped (hooks run as separate processes and may land out
 * of order), unless the record is dated beyond SIGNAL_SKEW_MS ahead of now (then it is not
 * believed, and the signal stands as the first); a signal dated ahead of now is taken at now. The
 * same state is confirmed (its `since` kept), and written only every CONFIRM_EVERY_MS.
 */
export function recordSignal(
  recorded: Activity | undefined,
  signal: SignalReport,
  now: number,
  table?: readonly SignalRow[],
): RecordStep {
  const row = signalRow(signal.engine, signal.signal, table);
  if (!row || row.wired === false) return { write: false, reason: "unknown-signal" };
  if (row.effect === "leaves") return { write: false, reason: "leaves" };
  const previous = recorded && recorded.at - now > SIGNAL_SKEW_MS ? undefined : recorded;
  const report = signal.at > now ? { ...signal, at: now } : signal;
  if (previous && report.at < previous.at) return { write: false, reason: "older" };
  let state: RecordedState;
  if (row.effect === "resume") {
    // Only a wait for the person is resumed from; anything else stands as recorded.
    if (previous?.state !== "needs-you") return { write: false, reason: "same" };
    state = previous.resume ?? "idle";
  } else state = row.effect;
  const name = signalName(row);
  if (previous && previous.state === state) {
    if (report.at - previous.at < CONFIRM_EVERY_MS && previous.signal === name)
      return { write: false, reason: "same" };
    return { write: true, activity: { ...previous, at: report.at, signal: name } };
  }
  const activity: Activity = { state, since: report.at, at: report.at, signal: name };
  if (state === "needs-you") activity.resume = previous?.state === "working" ? "working" : "idle";
  return { write: true, activity };
}

/** Why a member is shown in its state. */
export type ActivityReason =
  /** An engine's signal said so. */
  | "reported"
  /** A `working` mark nothing confirmed for too long: no longer believed. */
  | "stale"
  /** The engine reports, but has not yet: a first-run, sign-in or trust screen looks like this. */
  | "not-reported"
  /** muster receives no signal from this engine. */
  | "no-signals"
  /** A member joined from a shell is a person: not guessed. */
  | "person"
  /** The member's process ended, or it stopped beating. */
  | "gone"
  /** Its engine said it cannot run a turn (no model or key, not signed in, cannot reach its service). */
  | "trouble";

/** The activity as shown: the state, since when, by which signal, and why. */
export type ActivityView = {
  state: ActivityState;
  since: number | undefined;
  signal: string | undefined;
  reason: ActivityReason;
  /** For `trouble`: why, and the engine's own words. */
  trouble?: { kind: string; words: string } | undefined;
};

/**
 * What a spawn saw its engine say when it could not run a turn, kept on the member's record until
 * the engine starts a turn after it (`troubleCleared`). Times are ms since the epoch.
 */
export type MemberTrouble = { kind: string; words: string; at: number };

/**
 * Whether the engine's activity shows it past its trouble: a turn begun after the trouble was seen
 * (the person gave it a model and asked again). The failed turn itself began before it was seen.
 */
export const troubleCleared = (trouble: MemberTrouble, activity: Activity | undefined) =>
  activity?.state === "working" && activity.since > trouble.at;

/** What `activityNow` reads of a member (a roster member, its times parsed, fits). */
export type ActivityFacts = {
  agent: string;
  liveness: "live" | "gone" | "expired";
  joinedAt: number;
  activity?: Activity | undefined;
  /** A reading the viewer made itself (Claude Code's session registry), applied as a signal. */
  observed?: SignalReport | undefined;
  /** What its engine said when it could not run a turn, as the spawn saw it. */
  trouble?: MemberTrouble | undefined;
};

/** Program names of shells: a member that is one is the person at it. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "tcsh", "csh"]);

/** A member joined from a shell, as `muster join` records it: a person. */
export const isPerson = (member: { agent: string; id?: string | undefined }) =>
  SHELLS.has(member.agent) ||
  (member.id?.startsWith("shell-") === true && !reportsActivity(member.agent));

/** A clock this far ahead of ours is not believed. */
const SKEW_MS = 5 * 60_000;

/** The member's activity as far as it can be believed at `now`. */
export function activityNow(facts: ActivityFacts, now: number): ActivityView {
  const recorded = facts.activity;
  if (facts.liveness !== "live")
    return {
      state: "gone",
      since: recorded?.state === "gone" ? recorded.since : undefined,
      signal: recorded?.signal,
      reason: "gone",
    };
  let activity = recorded;
  if (facts.observed) {
    const step = recordSignal(activity, facts.observed, now);
    if (step.write) activity = step.activity;
  }
  const trouble = facts.trouble;
  if (trouble && !troubleCleared(trouble, activity))
    return {
      state: "trouble",
      since: trouble.at,
      signal: undefined,
      reason: "trouble",
      trouble: { kind: trouble.kind, words: trouble.words },
    };
  if (!activity || activity.state === "gone") {
    if (isPerson({ agent: facts.agent })) return none("unknown", "person");
    return reportsActivity(facts.agent)
      ? { state: "starting", since: facts.joinedAt, signal: undefined, reason: "not-reported" }
      : none("unknown", "no-signals");
  }
  const believed = rowOfName(activity.signal)?.believedMs ?? WORKING_BELIEVED_MS;
  const stale =
    activity.at - now > SKEW_MS || (activity.state === "working" && now - activity.at > believed);
  if (stale)
    return { state: "unknown", since: activity.at, signal: activity.signal, reason: "stale" };
  return {
    state: activity.state,
    since: activity.since,
    signal: activity.signal,
    reason: "reported",
  };
}

const none = (state: ActivityState, reason: ActivityReason): ActivityView => ({
  state,
  since: undefined,
  signal: undefined,
  reason,
});

/**
 * Who starts the turn for mail that may wake the member: a working agent's own turn takes it at
 * its end (Claude Code's Stop hook continues the turn), and one waiting for the person goes on
 * once answered; an idle agent, or one whose activity is not believed, is woken now.
 */
export function wakeFromOutside(facts: ActivityFacts, now: number): boolean {
  const { state } = activityNow(facts, now);
  return state !== "working" && state !== "needs-you";
}
