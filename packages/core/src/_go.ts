// `muster go`'s rules: which member to take the person to (`chooseGo`), and whether the seat a
// record names may be gone to (`proveSeat`).
import { type LineMember, waitingForYou } from "./_team-line.js";

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
