// Watching several mailboxes at once (the Codex waker: one per wakeable member): a file event in
// any of them, or the fallback timer, runs the caller's read; a burst of events while one runs
// folds into one more. After each read the watched set follows `folders()` (members come and go).
import { type FSWatcher, watch } from "node:fs";

export type MailboxesWatchOptions = {
  /** The folders to watch now; asked after every read. */
  folders: () => readonly string[];
  /** The read: called once per sweep, never twice at once. */
  read: () => Promise<unknown>;
  /** The fallback sweep's interval. */
  sweepMs: number;
};

/** Start watching; the answer stops the timer and every watcher. */
export function watchMailboxes(options: MailboxesWatchOptions): () => void {
  const watchers = new Map<string, FSWatcher>();
  let running = false;
  let again = false;
  const rewatch = () => {
    const wanted = new Set(options.folders());
    for (const [folder, watcher] of watchers)
      if (!wanted.has(folder)) {
        watcher.close();
        watchers.delete(folder);
      }
    for (const folder of wanted) {
      if (watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, () => sweep());
        watcher.on("error", () => {
          watcher.close();
          watchers.delete(folder);
        });
        watcher.unref();
        watchers.set(folder, watcher);
      } catch {
        // not there (yet): the timer covers it
      }
    }
  };
  const sweep = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        await options.read();
        rewatch();
      } while (again);
    })().finally(() => {
      running = false;
    });
  };
  const timer = setInterval(sweep, options.sweepMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
}
