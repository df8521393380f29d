// Where a spawn opens its pane, for a caller whose own seat the process tree did not prove. From a
// plain terminal (no $TMUX) a new window has no pane to split, only a server: it opens beside the
// pane tmux itself would act on there (`currentSeat`). Otherwise the refusal says what helps: run
// it from a pane of that server, or ask for a new window there — never "pass -L/-S" to a caller
// who did.
import type { Seat, SeatResult, ServerTarget, TmuxRunner } from "@muster/tmux";
import { currentSeat } from "@muster/tmux";

type SeatFound =
  | { ok: true; seat: Seat }
  | { ok: false; reason: string; error: string; fix?: string };

/** What the caller's seat search found, and how it asked. */
export type SpawnSeatFacts = {
  seat: SeatFound | SeatResult;
  /** The caller runs in tmux ($TMUX names a server). */
  inTmux: boolean;
  /** -L/-S named the server. */
  named: boolean;
  /** A new window is asked for, not a split of the caller's pane. */
  window: boolean;
  target: ServerTarget;
  run: TmuxRunner;
};

/** The seat to spawn beside: the caller's own, a plain terminal's window seat, or why none. */
export async function spawnSeat(facts: SpawnSeatFacts): Promise<SeatFound> {
  const { seat } = facts;
  if (seat.ok || seat.reason !== "unresolved") return seat;
  const server = facts.named ? "that server" : "tmux's default server (-L/-S names another)";
  if (!facts.inTmux && facts.window) {
    const anchor = await currentSeat(facts.run, facts.target);
    if (anchor.ok) return anchor;
    return { ok: false, reason: anchor.reason, error: anchor.error, fix: anchor.fix };
  }
  return {
    ...seat,
    fix: facts.inTmux
      ? `run it from a pane of ${server}, or pass --window to open it in a new window there`
      : `pass --window to open it in a new window of ${server}, or run it from a pane in tmux`,
  };
}
