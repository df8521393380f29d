// Every path the folder store touches, named once. Nothing else in the package joins a path: the
// folder store asks the layout for `keyFile(space, key)` or `inboxFolder(id)`, and names reach
// here validated. The roster's rules never see a path: they speak the store contract.

/**
 * The claim spaces: each is a folder of `<key>.json` claims (see `_claim.ts`). A new kind of claim
 * (board cards, path leases) adds its space here, so open creates its folder and prune knows it.
 * `wakes` holds one claim per (member, message) woken from outside, so it wakes at most once,
 * and `shown.<member>.<message>` while a Claude Code hook hands that message to its session.
 * `spawns` holds the label a spawn is opening a pane for, while it runs (see the wiring's spawn).
 * `listeners` holds one listener per engine home (Codex's control socket), while it runs.
 * `lands` holds the team's one land under way, the lands waiting for it, and the last result.
 */
export const CLAIM_SPACES = [
  "labels",
  "leases",
  "wakes",
  "cards",
  "spawns",
  "listeners",
  "lands",
] as const;
export type ClaimSpace = (typeof CLAIM_SPACES)[number];

/** The folders a team folder holds, created when it is opened. */
export const LAYOUT_FOLDERS = [
  "sessions",
  ...CLAIM_SPACES,
  "locks",
  "mail",
  "quarantine",
  "expired",
  "board",
  "receipts",
] as const;

/** The file that makes a folder a team folder: written when muster creates it. */
export const MARKER_NAME = "muster-team.json";

export type Layout = ReturnType<typeof teamLayout>;

/** The paths of the team folder at `dir`. Arguments are validated ids, keys and spaces. */
export function teamLayout(dir: string) {
  const root = dir.endsWith("/") && dir.length > 1 ? dir.slice(0, -1) : dir;
  const at = (...parts: string[]) => {
    // The last guard on a name read from a file (a holder, a member id): one path component in
    // the team folder, never a path out of it.
    for (const part of parts)
      if (part === "" || part === "." || part === ".." || /[/\0]/.test(part))
        throw new Error(`"${part.replace(/[^ -~]/g, "?")}" is not a name in a team folder`);
    return [root, ...parts].join("/");
  };
  return {
    dir: root,
    marker: at(MARKER_NAME),
    folders: LAYOUT_FOLDERS.map((name) => at(name)),
    /**
     * The file of one key of a store space (`_store.ts`): `<space>/<key>.json`, and for locks
     * `locks/<key>.lock` (`labels.alice.lock` while a label is taken over, `member.<id>.lock`
     * while a member's record and mailbox change).
     */
    keyFile: (space: string, key: string) =>
      space === "locks" ? at("locks", `${key}.lock`) : at(space, `${key}.json`),
    /** The folder of one store space. */
    spaceFolder: (space: string) => at(space),
    mail: at("mail"),
    mailbox: (id: string) => at("mail", id),
    /** Where a message is written before delivery; prune clears leftovers. */
    mailTmp: (id: string) => at("mail", id, "tmp"),
    /** Unread mail: a watcher of new mail watches this folder. */
    inboxFolder: (id: string) => at("mail", id, "new"),
    /** Read (acknowledged) mail. */
    readFolder: (id: string) => at("mail", id, "cur"),
    /**
     * The doorbell: a watcher that is slow to report a file added (Claude Code's waits for it to
     * be still for 500 ms) watches this folder; its bells are empty files, `ring-<time>`, and each
     * delivery removes the oldest, which such a watcher reports at once (`_folder-doorbell.ts`).
     */
    doorbell: (id: string) => at("mail", id, "bell"),
    /** Receipts: `receipts/<message id>/<member id>.<phase>.json`, one mark each. */
    receipts: at("receipts"),
    receiptFolder: (messageId: string) => at("receipts", messageId),
    /** A settled receipt's marks, folded into one file by prune: `receipts/<message id>.json`. */
    receiptFolded: (messageId: string) => at("receipts", `${messageId}.json`),
    quarantine: at("quarantine"),
    quarantineFile: (name: string) => at("quarantine", name),
    expired: at("expired"),
    /** Unread mail of an expired member, moved aside by prune on `day` (YYYY-MM-DD). */
    expiredFolder: (day: string) => at("expired", day),
    expiredMailbox: (day: string, id: string) => at("expired", day, id),
  };
}
