// When a view of the whole team (the dashboard) reads it again: at once when a file that says who is on it, what they
// are doing or what the board holds changes (the folder store's folders, watched without polling),
// else after a rest that grows with what one reading costs — so a team of 1,000 members and
// 10,000 cards is not read again every two seconds, and a team of 3 still is. The board, most of a
// large team's reading, is read again only when a file of its own changed, or after BOARD_RESTS
// rests: a member's reading does not read every card again. A store that is not a folder (NATS) is
// read on the rest alone. Mail counts and ages reached only by time (stale) are caught up at the
// next reading.
import { type FSWatcher, watch } from "node:fs";
import path from "node:path";

/** The folders whose entries change when a member joins or records activity, and a card moves. */
const MEMBER_FOLDERS = ["sessions", "leases", "labels"] as const;
const BOARD_FOLDERS = ["board", "cards"] as const;

/** The shortest rest between two readings, and how many times a reading's own cost it waits. */
const MIN_REST_MS = 2000;
const REST_PER_COST = 50;
/** Without a change of its own, the board is read again after this many rests. */
const BOARD_RESTS = 5;

export type TeamChanges = {
  /**
   * True when the team should be read again now (a change, or the rest has passed); the changes
   * seen so far are then taken: one during the reading calls for the next.
   */
  due(now: number): boolean;
  /** True when this reading should read the board too (a change in it, or its rests passed). */
  boardDue(now: number): boolean;
  /**
   * A reading started at `started` and took until `now`, the board with it or not (the rest is
   * scaled to a whole reading's cost, never to one without the board).
   */
  read(started: number, now: number, board?: boolean): void;
  close(): void;
};

/** Watches `dir` (a team folder) when given; else readings come after the rest alone. */
export function teamChanges(dir: string | undefined): TeamChanges {
  let changed = true;
  let boardChanged = true;
  let lastAt = 0;
  let boardAt = 0;
  let restMs = MIN_REST_MS;
  const watchers: FSWatcher[] = [];
  for (const folder of dir ? [...MEMBER_FOLDERS, ...BOARD_FOLDERS] : []) {
    const board = (BOARD_FOLDERS as readonly string[]).includes(folder);
    try {
      const watcher = watch(path.join(dir as string, folder), { persistent: false }, () => {
        changed = true;
        if (board) boardChanged = true;
      });
      watcher.on("error", () => undefined);
      watchers.push(watcher);
    } catch {
      // A folder not there (yet) is read on the rest.
    }
  }
  return {
    due(now) {
      if (!changed && now - lastAt < restMs) return false;
      changed = false;
      return true;
    },
    boardDue(now) {
      if (!boardChanged && now - boardAt < BOARD_RESTS * restMs) return false;
      boardChanged = false;
      return true;
    },
    read(started, now, board = true) {
      lastAt = now;
      if (!board) return;
      boardAt = now;
      restMs = Math.max(MIN_REST_MS, REST_PER_COST * (now - started));
    },
    close() {
      for (const watcher of watchers.splice(0)) watcher.close();
    },
  };
}
