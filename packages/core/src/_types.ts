// The shapes the team rules read and answer. They meet the roster's shapes structurally: core
// imports nothing, and a composer hands the roster's entries straight in.

/** Whether a session listens for mail, and whether mail may wake it. */
export type Watching = { armed: boolean; wake: boolean };

/** A member's state as the roster reads it. */
export type MemberState = "live" | "gone" | "expired";

/** One roster record, as much of it as the join rules read. */
export type RosterEntry = {
  id: string;
  label: string;
  state: MemberState;
  pid: number;
  pidStart?: string | undefined;
  watching: Watching;
  /**
   * Whether the label's claim still names this record. `false` when another session took the
   * label while this record stayed fresh; absent when the roster does not say (taken as held).
   */
  holdsLabel?: boolean | undefined;
};

/** What a roster answers to a join. Reasons are stable strings (`label-held`, `bad-label`, …). */
/** A label taken over from a holder that could be replaced, and the unread mail forwarded. */
export type TookOver = { from?: string | undefined; reason: string; forwarded: number };

export type JoinAnswer =
  | { ok: true; label: string; watching: Watching; took?: TookOver | undefined }
  | {
      ok: false;
      reason: string;
      error: string;
      /** What to do, where the roster says (a label that is not one); apart from `error`. */
      fix?: string | undefined;
      holderLabel?: string | undefined;
    };

/** The last join answer this process remembers, with the label asked and when. */
export type Standing =
  | { ok: true; label: string; watching: Watching; at: number }
  | {
      ok: false;
      label: string;
      watching: Watching;
      reason: string;
      error: string;
      fix?: string | undefined;
      holderLabel?: string | undefined;
      at: number;
    };

/** What the roster could tell about this team: its entries, or no word at all. */
export type RosterView = readonly RosterEntry[] | "unknown";
