// A Codex thread's seat: the one pane whose title shows the thread id (whole, or as Codex cuts it)
// and that runs Codex. The seat's shape, its reasons and their fixes are `_seat.ts`'s.
import { type Inventory, listPanes, type Pane } from "./_inventory.js";
import { SEAT_FIXES, type SeatResult, seatOf, skippedNote } from "./_seat.js";
import type { ServerTarget, TmuxRunner } from "./_server.js";

/** How many characters of a thread id Codex shows before `...` in a terminal title. */
export const CODEX_TITLE_ID_LENGTH = 29;
/** The longest thread id Codex shows whole; a longer one is cut to 29 characters and `...`. */
export const CODEX_TITLE_FULL_LENGTH = 32;

/** Does this title show the thread, in full or as Codex truncates it? */
export function titleShowsThread(title: string, threadId: string): boolean {
  const short =
    threadId.length > CODEX_TITLE_FULL_LENGTH
      ? `${threadId.slice(0, CODEX_TITLE_ID_LENGTH)}...`
      : undefined;
  // Split on " | " and on spaces: an activity spinner is joined to the id by a plain space.
  const tokens = title.split(" | ").flatMap((part) => part.split(/\s+/));
  return tokens.some((token) => token === threadId || (short !== undefined && token === short));
}

/**
 * Does a Codex process run in this pane? Asked of the process table by the caller, because a title
 * is written by anything in the pane: without this check a title alone would answer.
 */
export type RunsCodex = (pane: Pane) => boolean;

/**
 * The one pane whose title shows a Codex thread id and (given `runsCodex`) that runs Codex. A title
 * match in a pane that runs no Codex is refused as `not-codex`, naming the pane.
 */
export function seatByCodexThread(
  inventory: Inventory,
  threadId: string,
  runsCodex?: RunsCodex,
): SeatResult {
  const id = threadId.trim();
  if (id === "")
    return {
      ok: false,
      reason: "bad-thread",
      error: "the thread id is empty",
      fix: SEAT_FIXES.byCodexThread["bad-thread"],
    };
  const titled = inventory.panes.filter((pane) => !pane.dead && titleShowsThread(pane.title, id));
  const matches = runsCodex ? titled.filter(runsCodex) : titled;
  if (matches.length === 0 && titled.length > 0) {
    const panes = titled.map((pane) => pane.id).join(", ");
    return {
      ok: false,
      reason: "not-codex",
      error: `${panes} ${titled.length === 1 ? "shows" : "show"} Codex thread ${id} in the title, but no Codex process runs there`,
      fix: SEAT_FIXES.byCodexThread["not-codex"],
      candidates: titled.map((pane) => pane.id),
    };
  }
  if (matches.length === 0) {
    return {
      ok: false,
      reason: "unresolved",
      error: `no pane shows Codex thread ${id}`,
      fix: SEAT_FIXES.byCodexThread.unresolved,
    };
  }
  if (matches.length > 1) {
    const candidates = matches.map((pane) => pane.id);
    return {
      ok: false,
      reason: "ambiguous",
      error: `${matches.length} panes show Codex thread ${id} (${candidates.join(", ")})`,
      fix: SEAT_FIXES.byCodexThread.ambiguous,
      candidates,
    };
  }
  return { ok: true, seat: seatOf(matches[0]!, inventory.server), note: skippedNote(inventory) };
}

/**
 * List the panes and find the Codex thread's seat; an empty id is refused before any tmux call.
 * Pass `runsCodex` (from the process table) so that a title alone never answers.
 */
export async function findCodexSeat(
  run: TmuxRunner,
  threadId: string,
  target?: ServerTarget,
  runsCodex?: RunsCodex,
): Promise<SeatResult> {
  if (threadId.trim() === "")
    return seatByCodexThread({ server: { socket: "", pid: 0 }, panes: [] }, threadId);
  const listed = await listPanes(run, target);
  if (!listed.ok) return { ok: false, reason: listed.reason, error: listed.error, fix: listed.fix };
  return seatByCodexThread(listed.inventory, threadId, runsCodex);
}
