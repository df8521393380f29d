// The team in one glance: how many members work, idle or start, who needs the person (longest
// waiting first), and how much mail waits for the person — what `muster status --line` shows in
// tmux's status bar — and which member `muster go` takes the person to.
import type { ActivityState } from "./_activity.js";
import { compareText } from "./_text-order.js";

/** As much of a member as the line reads. */
export type LineMember = {
  label: string;
  /** The state, and how long it has lasted (null: not known). */
  activity: { state: ActivityState; ageMs: number | null };
  /** Mail waiting unread. */
  unread: number;
  /** A member joined from a shell: the person's own mail counts. */
  person: boolean;
  seat?: { server: string; pane: string } | null | undefined;
};

export type TeamLine = {
  working: number;
  idle: number;
  starting: number;
  /** Waiting for the person, longest waiting first. */
  needsYou: { label: string; ageMs: number | null }[];
  /** Mail waiting for the person's own members. */
  mail: number;
};

/** The locale variables a C program reads for its character set, in the order it reads them. */
export type LocaleEnv = {
  LC_ALL?: string | undefined;
  LC_CTYPE?: string | undefined;
  LANG?: string | undefined;
};

/**
 * Whether the locale names UTF-8 as tmux reads it: the first of LC_ALL, LC_CTYPE, LANG that is set
 * and not empty decides (`en_US.UTF-8`, `C.utf8`); none set is the C locale, which is not. Where
 * it is not, tmux draws each non-ASCII character of a `#()` job's output as `_`, so the status
 * line says the same in ASCII.
 */
export function localeSpeaksUtf8(env: LocaleEnv): boolean {
  const named = [env.LC_ALL, env.LC_CTYPE, env.LANG].find(
    (value) => value !== undefined && value !== "",
  );
  return named !== undefined && /utf-?8/i.test(named);
}

/** Longest waiting first; a wait whose start is not known comes last. */
const byWait = (left: LineMember, right: LineMember) =>
  (right.activity.ageMs ?? -1) - (left.activity.ageMs ?? -1) ||
  compareText(left.label, right.label);

/** The members waiting for the person, longest waiting first. */
export const waitingForYou = <Member extends LineMember>(members: readonly Member[]): Member[] =>
  members.filter((member) => member.activity.state === "needs-you").sort(byWait);

export function teamLine(members: readonly LineMember[]): TeamLine {
  const count = (state: string) =>
    members.filter((member) => member.activity.state === state).length;
  return {
    working: count("working"),
    idle: count("idle"),
    starting: count("starting"),
    needsYou: waitingForYou(members).map(({ label, activity }) => ({
      label,
      ageMs: activity.ageMs,
    })),
    mail: members.filter((member) => member.person).reduce((sum, member) => sum + member.unread, 0),
  };
}

export type GoChoice<Member> =
  | { ok: true; member: Member }
  | {
      ok: false;
      reason: "no-such-member" | "nobody-waits" | "no-seat";
      error: string;
      fix: string;
    };

/**
 * The member `muster go` takes the person to: the one named (any case), else the one waiting for
 * them longest. A member with no tmux seat cannot be gone to.
 */
export function chooseGo<Member extends LineMember>(
  members: readonly Member[],
  label: string | undefined,
): GoChoice<Member> {
  const member =
    label === undefined
      ? waitingForYou(members)[0]
      : members.find((entry) => entry.label.toLowerCase() === label.toLowerCase());
  if (!member)
    return label === undefined
      ? {
          ok: false,
          reason: "nobody-waits",
          error: "no member is waiting for you",
          fix: "name one: muster go <label> (muster status lists them)",
        }
      : {
          ok: false,
          reason: "no-such-member",
          error: `no live member is called ${label}`,
          fix: "muster status lists the members",
        };
  if (!member.seat)
    return {
      ok: false,
      reason: "no-seat",
      error: `${member.label} has no tmux pane muster knows of`,
      fix: "it joined outside tmux, or from a pane muster could not find; go to it by hand",
    };
  return { ok: true, member };
}

/** What `muster go` found of a member's seat before taking the person there. */
export type SeatFacts = {
  /** Where the member's pid means something (its record's boot and pid namespace). */
  memberPlace: string | undefined;
  /** Where this process runs. */
  herePlace: string | undefined;
  /** The member's process here, by pid and start time. */
  process: "alive" | "dead" | "unknown";
  /** The pane of the seat's server whose processes hold the member's pid, if one does. */
  paneHolding: string | undefined;
};

export type SeatProof =
  | { ok: true }
  | { ok: false; reason: "seat-elsewhere" | "seat-unproven"; error: string; fix: string };

/**
 * Whether the person may be taken to the pane a member's record names: only a seat on this host
 * (the record's place is this one's) whose pane holds the member's process. A record is written
 * by whoever holds the team folder or a NATS account: another host's record names a pane id and a
 * socket path that exist here too, and a planted one can name any pane of the person's server.
 */
export function proveSeat(
  member: { label: string; seat: { pane: string } },
  facts: SeatFacts,
): SeatProof {
  if (facts.memberPlace !== facts.herePlace)
    return {
      ok: false,
      reason: "seat-elsewhere",
      error: `${member.label}'s seat is on another host (its record says so)`,
      fix: "go to it on that host",
    };
  if (facts.process === "dead" || facts.paneHolding !== member.seat.pane)
    return {
      ok: false,
      reason: "seat-unproven",
      error: `pane ${member.seat.pane} does not hold ${member.label}'s process`,
      fix: "the record's seat is not followed; muster status shows where the agents are",
    };
  return { ok: true };
}
