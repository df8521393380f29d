// Feeding an engine's signal in and reading the activity out, for every door: the receiver of a
// signal (a Claude hook, Codex's notify, the MCP server, the pi extension) records it through
// core's rule under the member's lock and learns whether the change deserves the person's
// attention; a viewer turns a roster member into what core's `activityNow` reads. Decides nothing.
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { type ActivityView, activityNow, holderOf } from "@muster/core";
import {
  type Activity,
  type ActivityFacts,
  type AttentionKind,
  attentionFor,
  claudeRegistrySignal,
  type MemberTrouble,
  mayRaise,
  recordSignal,
  type SignalReport,
  troubleCleared,
} from "@muster/core/internal";
import type { Member, Activity as RecordActivity, Roster, SessionRecord } from "@muster/roster";

const ms = (time: string) => Date.parse(time);
const iso = (time: number) => new Date(time).toISOString();

/** A record's activity in core's terms (times in ms). */
export function coreActivity(recorded: RecordActivity | undefined): Activity | undefined {
  if (!recorded) return undefined;
  return {
    state: recorded.state,
    since: ms(recorded.since),
    at: ms(recorded.at),
    signal: recorded.signal,
    ...(recorded.resume ? { resume: recorded.resume } : {}),
    ...(recorded.was ? { was: recorded.was } : {}),
  };
}

/** Core's activity as a record holds it. */
export function recordActivity(activity: Activity): RecordActivity {
  return {
    state: activity.state,
    since: iso(activity.since),
    at: iso(activity.at),
    signal: activity.signal,
    ...(activity.resume ? { resume: activity.resume } : {}),
    ...(activity.was ? { was: activity.was } : {}),
  };
}

/** A record's trouble in core's terms (its time in ms). */
const coreTrouble = (recorded: SessionRecord["trouble"]): MemberTrouble | undefined =>
  recorded && { kind: recorded.kind, words: recorded.words, at: ms(recorded.at) };

/** What core's activity rule reads of a roster member. */
export const activityFacts = (
  member: Pick<Member, "agent" | "state" | "joinedAt" | "activity"> &
    Partial<Pick<Member, "trouble">>,
  observed?: SignalReport,
): ActivityFacts => ({
  agent: member.agent,
  liveness: member.state,
  joinedAt: ms(member.joinedAt),
  activity: coreActivity(member.activity),
  ...(observed ? { observed } : {}),
  ...(member.trouble ? { trouble: coreTrouble(member.trouble) } : {}),
});

/**
 * Keep on the member's record what its engine said when it could not run a turn, as a spawn saw
 * it: every door then shows it as `trouble` with those words (not `idle`), until its engine begins
 * a turn after it (core's `troubleCleared`). False when no live member holds `label`.
 */
export async function recordTrouble(
  roster: Roster,
  label: string,
  said: { kind: string; words: string },
  now: () => number = Date.now,
): Promise<boolean> {
  const read = await roster.read();
  const member = read.ok ? holderOf(read.members, label) : undefined;
  if (member?.state !== "live") return false;
  const trouble = { kind: said.kind, words: said.words, at: iso(now()) };
  const changed = await roster.activity(member.id, (current) => ({ ...current, trouble }));
  return changed.ok && changed.written;
}

/** What recording a signal did: whether it changed the record, and what to tell the person. */
export type SignalOutcome = {
  recorded: boolean;
  before: Activity | undefined;
  after: Activity | undefined;
  /** Set when this change deserves the person's attention and no alert for it is fresh. */
  attention: AttentionKind | undefined;
};

/**
 * Record one signal for member `id`. The change and the alert's debounce are decided under the
 * member's lock from the record as it is, so of two receivers of one signal only one raises it.
 */
export async function reportSignal(
  roster: Roster,
  id: string,
  report: SignalReport,
  now: () => number = Date.now,
): Promise<SignalOutcome> {
  let attention: AttentionKind | undefined;
  let after: Activity | undefined;
  const changed = await roster.activity(id, (current) => {
    const before = coreActivity(current.activity);
    const step = recordSignal(before, report, now());
    attention = undefined;
    if (!step.write) return undefined;
    after = step.activity;
    const kind = attentionFor(before, step.activity);
    const time = now();
    const alertedAt = current.alertedAt === undefined ? undefined : ms(current.alertedAt);
    attention = kind && mayRaise(alertedAt, time) ? kind : undefined;
    const trouble = coreTrouble(current.trouble);
    return {
      activity: recordActivity(step.activity),
      alertedAt: attention ? iso(time) : current.alertedAt,
      // A turn begun after the trouble was seen: the engine is past it.
      ...(trouble && troubleCleared(trouble, step.activity) ? { trouble: undefined } : {}),
    };
  });
  if (!changed.ok || !changed.written)
    return {
      recorded: false,
      before: changed.ok ? coreActivity(changed.before.activity) : undefined,
      after: undefined,
      attention: undefined,
    };
  return { recorded: true, before: coreActivity(changed.before.activity), after, attention };
}

/**
 * The members whose process was proven dead since they last reported, each marked `gone` under
 * its lock: the one watcher whose mark made the change raises the alert, however many look.
 */
export async function noticeDeaths(
  roster: Roster,
  members: readonly Member[],
  now: () => number = Date.now,
): Promise<Member[]> {
  const noticed: Member[] = [];
  for (const member of members) {
    if (member.state !== "gone" || member.reason !== "process-dead") continue;
    if (member.activity?.state === "gone") continue;
    let raise = false;
    const changed = await roster.activity(member.id, (current) => {
      if (current.activity?.state === "gone") return undefined;
      const time = now();
      // What it was doing stays with the mark: a crash is shown with its last state.
      const was = current.activity?.state;
      const gone: Activity = {
        state: "gone",
        since: time,
        at: time,
        signal: "muster/process-dead",
        ...(was ? { was } : {}),
      };
      const alertedAt = current.alertedAt === undefined ? undefined : ms(current.alertedAt);
      raise =
        attentionFor(coreActivity(current.activity), gone) === "gone" && mayRaise(alertedAt, time);
      return { activity: recordActivity(gone), alertedAt: raise ? iso(time) : current.alertedAt };
    });
    if (changed.ok && changed.written && raise) noticed.push(member);
  }
  return noticed;
}

/** Claude Code's own session registry entry is small; anything larger is not one. */
const REGISTRY_LIMIT = 64 * 1024;

/**
 * What Claude Code's own session registry (`$CLAUDE_CONFIG_DIR/sessions/<pid>.json`) says of a
 * live Claude member, as a signal (core's `claudeRegistrySignal` judges the entry): the
 * cross-check for a permission rejected with Esc, which fires no hook. Only a regular file counts.
 */
export function claudeRegistry(
  member: Pick<Member, "agent" | "state" | "pid" | "pidStart">,
  env: NodeJS.ProcessEnv,
): SignalReport | undefined {
  if (member.agent !== "claude" || member.state !== "live") return undefined;
  const config = env.CLAUDE_CONFIG_DIR || (env.HOME ? path.join(env.HOME, ".claude") : undefined);
  if (!config || !path.isAbsolute(config) || !Number.isInteger(member.pid)) return undefined;
  try {
    const file = path.join(config, "sessions", `${member.pid}.json`);
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > REGISTRY_LIMIT) return undefined;
    return claudeRegistrySignal(JSON.parse(readFileSync(file, "utf8")), member);
  } catch {
    return undefined;
  }
}

/**
 * What a member is doing now, from every fact a door can read: its record and, for a live Claude
 * member, Claude Code's own session registry. The one view every door's roster and send report
 * show, so two doors never show one member differently.
 */
export function memberActivity(
  member: Pick<Member, "agent" | "state" | "joinedAt" | "activity" | "pid" | "pidStart"> &
    Partial<Pick<Member, "trouble">>,
  now: number,
  env: NodeJS.ProcessEnv = process.env,
): ActivityView {
  return activityNow(activityFacts(member, claudeRegistry(member, env)), now);
}
