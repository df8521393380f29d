// Watching a mailbox: a file event (or a slow sweep, the fallback for missed events) runs the
// caller's read. Reads are serialized, and a burst of events while one runs folds into one more read,
// so a reader never sees a message twice from two overlapping reads.
import { type FSWatcher, watch } from "node:fs";

export type InboxWatchOptions = {
  /** The mailbox folder new mail arrives in (none for an id that is not one); asked on each `rewatch()`. */
  folder: () => string | undefined;
  /** Read the new mail: called once per sweep, never twice at once. */
  read: () => Promise<void>;
  /** The fallback sweep's interval. */
  sweepMs: number;
  /** A read that throws on an event or a timer lands here (a direct `sweep()` rejects instead). */
  onError: (error: unknown) => void;
  /**
   * Where the store signals new mail itself (NATS: `roster.watchMail`) and there is no folder:
   * the signal runs the read as a file event would. Asked on each `rewatch()`, like `folder`.
   */
  signal?: ((onMail: () => void) => Promise<{ stop(): void }> | undefined) | undefined;
  /** Keep the process alive while watching (a command that only follows mail); default false. */
  keepAlive?: boolean | undefined;
};

export type InboxWatch = {
  /** Read now; joins a read under way and runs once more after it. */
  sweep(): Promise<void>;
  /** Watch the folder if it is not watched yet (it exists once the member has joined). */
  rewatch(): boolean;
  /** Stop watching the folder (its roster was reopened), keeping the sweep. */
  unwatch(): void;
  /** Stop everything. */
  close(): void;
  readonly watching: boolean;
};

export function watchInbox(options: InboxWatchOptions): InboxWatch {
  let running: Promise<void> | undefined;
  let again = false;
  let watcher: FSWatcher | undefined;
  const sweep = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await options.read();
      } while (again);
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const onEvent = () => {
    sweep().catch(options.onError);
  };
  const timer = setInterval(onEvent, options.sweepMs);
  if (!options.keepAlive) timer.unref();
  let signalled: Promise<{ stop(): void } | undefined> | undefined;
  const rewatch = () => {
    if (watcher || signalled) return true;
    const folder = options.folder();
    if (folder === undefined) {
      const started = options.signal?.(onEvent);
      if (!started) return false;
      signalled = started.catch(() => undefined);
      return true;
    }
    try {
      watcher = watch(folder, onEvent);
      if (!options.keepAlive) watcher.unref();
      return true;
    } catch {
      return false; // no mailbox yet: the sweep covers it until a later rewatch
    }
  };
  const unwatch = () => {
    watcher?.close();
    watcher = undefined;
    void signalled?.then((signal) => signal?.stop());
    signalled = undefined;
  };
  rewatch();
  return {
    sweep,
    rewatch,
    unwatch,
    close() {
      clearInterval(timer);
      unwatch();
    },
    get watching() {
      return watcher !== undefined || signalled !== undefined;
    },
  };
}
