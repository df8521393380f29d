// The join rules: when a session must ask the roster to join, and what it remembers afterwards.
// Owns the decision only; the roster (files) and the composer (I/O, notifications) are elsewhere.
import type {
  JoinAnswer,
  RosterEntry,
  RosterView,
  Standing,
  TookOver,
  Watching,
} from "./_types.js";

/** The listening choice a session starts with when nobody has chosen: mail reaches it, quietly. */
export const DEFAULT_WATCHING: Watching = { armed: true, wake: false };

/** What this process knows about itself and its team at the moment of asking. */
export type SessionView = {
  id: string;
  pid: number;
  pidStart?: string | undefined;
  /** The last join answer this process remembers, if any. */
  standing: Standing | undefined;
  now: () => number;
  /** The roster's entries for this team, or "unknown" when it could not be read. */
  roster: RosterView;
};

/** The injected join; `undefined` means no roster is configured here. */
export type TeamAccess<Input> =
  | { join: (input: Input & JoinRequest) => Promise<JoinAnswer> }
  | undefined;

export type JoinRequest = { id: string; label: string; watching: Watching };

/** Everything else the join carries (agent, pid, seat, …), and an explicit listening choice. */
export type JoinContext<Input> = {
  input: Input;
  watching?: Watching | undefined;
  /**
   * The user typed this join (a rename, a listening change): the roster is asked even when it gives
   * no word, because a remembered standing cannot answer a request to change it.
   */
  typed?: boolean | undefined;
};

export type JoinOutcome = {
  /** Whether the roster was asked. */
  asked: boolean;
  /** What this process should remember from now on. */
  standing: Standing;
  /** The label was taken over from a dead or expired holder by this join. */
  took?: TookOver | undefined;
  /** Why no question was asked, or why one was. */
  reason:
    | "seated"
    | "roster-unknown"
    | "no-roster"
    | "rename"
    | "other-pane"
    | "label-lost"
    | "typed"
    | "not-seated";
};

const sameLabel = (left: string, right: string) => left.toLowerCase() === right.toLowerCase();

const ownedBy = (entry: RosterEntry, session: SessionView) =>
  entry.pid === session.pid &&
  (entry.pidStart === undefined ||
    session.pidStart === undefined ||
    entry.pidStart === session.pidStart);

/** This session's record in the roster view, if the roster could be read and holds one. */
export function ownRecord(session: SessionView): RosterEntry | undefined {
  if (session.roster === "unknown") return undefined;
  return session.roster.find((entry) => entry.id === session.id);
}

/** The listening choice a (re-)join repeats: explicit, then the roster record's, then the standing's. */
export function listeningChoice(session: SessionView, explicit?: Watching): Watching {
  return explicit ?? ownRecord(session)?.watching ?? session.standing?.watching ?? DEFAULT_WATCHING;
}

/**
 * Join the team under `label`, asking the roster only while this session is not on it.
 * Never throws: a join that throws is remembered as a refusal with its message.
 */
export async function joinTeam<Input>(
  session: SessionView,
  team: TeamAccess<Input>,
  context: JoinContext<Input>,
  label: string,
): Promise<JoinOutcome> {
  const watching = listeningChoice(session, context.watching);
  const at = session.now();
  if (!team) {
    return {
      asked: false,
      reason: "no-roster",
      standing: {
        ok: false,
        label,
        watching,
        reason: "no-roster",
        error: "no team roster is configured here",
        at,
      },
    };
  }
  const record = ownRecord(session);
  if (session.roster === "unknown" && session.standing?.ok && !context.typed) {
    // A join spent on a guess could rename a session the roster still holds.
    return { asked: false, reason: "roster-unknown", standing: session.standing };
  }
  let reason: JoinOutcome["reason"] =
    session.roster === "unknown" && context.typed ? "typed" : "not-seated";
  if (record && record.state === "live") {
    if (!ownedBy(record, session)) reason = "other-pane";
    else if (!sameLabel(record.label, label)) reason = "rename";
    else if (record.holdsLabel === false) reason = "label-lost";
    else if (context.watching === undefined || sameWatching(context.watching, record.watching)) {
      return {
        asked: false,
        reason: "seated",
        standing: { ok: true, label: record.label, watching: record.watching, at },
      };
    }
  }
  let answer: JoinAnswer;
  try {
    answer = await team.join({ ...context.input, id: session.id, label, watching });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    answer = { ok: false, reason: "join-failed", error: message };
  }
  const standing: Standing = answer.ok
    ? { ok: true, label: answer.label, watching: answer.watching, at }
    : {
        ok: false,
        label,
        watching,
        reason: answer.reason,
        error: answer.error,
        fix: answer.fix,
        holderLabel: answer.holderLabel,
        at,
      };
  return { asked: true, reason, standing, took: answer.ok ? answer.took : undefined };
}

/** Who a label was taken over from, in words. */
function previousHolder(reason: string): string {
  switch (reason) {
    case "dead":
      return "a dead session";
    case "expired":
      return "an expired session";
    case "orphan":
      return "a session that never finished joining";
    case "left":
      return "a session its own process left (a new session started there)";
    default:
      return "a claim that could not be read";
  }
}

/** What a join that took a label over says: from whom, and how much unread mail came along. */
export function tookOverLine(label: string, took: TookOver): string {
  const count = took.forwarded;
  const mail = count > 0 ? `; ${count} unread message${count === 1 ? "" : "s"} forwarded` : "";
  return `took over "${label}" from ${previousHolder(took.reason)}${mail}`;
}

const sameWatching = (left: Watching, right: Watching) =>
  left.armed === right.armed && left.wake === right.wake;

/** A member's record as `joinKeeper` reads it (a roster member fits). */
export type KeptRecord = { agent: string; pid: number; pidStart?: string | undefined };

/**
 * The process a join records as keeping the member live: a session another door joined for the
 * same engine (Codex's TUI through its MCP server) is kept by its record's process, not by the
 * command asking now (a daemon's shell); any other caller by its own process.
 */
export function joinKeeper(
  own: KeptRecord | undefined,
  caller: { agent: string; pid: number; start: string | undefined },
): { pid: number; start: string | undefined } {
  if (own && own.agent === caller.agent) return { pid: own.pid, start: own.pidStart };
  return { pid: caller.pid, start: caller.start };
}
