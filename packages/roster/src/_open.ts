// Opening a team's roster: on the team folder (the default, given `dir` and `fs`), or on any store
// that keeps the contract (`store`, e.g. NATS JetStream from `@muster/nats`). The rules are the
// same whichever it is; nothing a caller gets back says which.
import { type FolderOpened, openFolderStore } from "./_folder-open.js";
import type { RosterFs } from "./_fs.js";
import { DEFAULT_POLICY, type ProcessFacts, type RosterPolicy } from "./_liveness.js";
import { Roster } from "./_roster.js";
import type { RosterStore } from "./_store.js";
import type { HeldLabel } from "./_team.js";

type Common = {
  /** Milliseconds since the epoch. */
  clock: () => number;
  processes: ProcessFacts;
  policy?: Partial<RosterPolicy> | undefined;
  /** Waits (for a lock another process holds briefly); without it the roster only yields. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** The labels kept for members that are down (the host reads its team file); default none. */
  held?: (() => Promise<readonly HeldLabel[]>) | undefined;
};

export type RosterOptions =
  | (Common & { dir: string; fs: RosterFs; store?: undefined })
  | (Common & { store: RosterStore; dir?: undefined; fs?: undefined });

export type OpenResult = { ok: true; roster: Roster } | Extract<FolderOpened, { ok: false }>;

/** Open a team's roster: its folder (checked, created where needed), or the store given. */
export async function openRoster(options: RosterOptions): Promise<OpenResult> {
  let store: RosterStore;
  if (options.store !== undefined) store = options.store;
  else {
    const opened = await openFolderStore({
      dir: options.dir,
      fs: options.fs,
      clock: options.clock,
    });
    if (!opened.ok) return opened;
    store = opened.store;
  }
  return {
    ok: true,
    roster: new Roster({
      store,
      clock: options.clock,
      processes: options.processes,
      policy: { ...DEFAULT_POLICY, ...options.policy },
      sleep: options.sleep ?? (() => Promise.resolve()),
      held: options.held ?? (() => Promise.resolve([])),
    }),
  };
}
