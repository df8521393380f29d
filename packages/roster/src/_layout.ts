// Every path the roster touches, named once. Nothing else in the package joins a path: a step asks
// the layout for `recordFile(id)` or `claimFile(space, key)`, and names reach here validated.

/**
 * The claim spaces: each is a folder of `<key>.json` claims (see `_claim.ts`). A new kind of claim
 * (board cards, path leases) adds its space here, so open creates its folder and prune knows it.
 * `wakes` holds one claim per (member, message) woken from outside, so it wakes at most once.
 */
export const CLAIM_SPACES = ["labels", "leases", "wakes", "cards"] as const;
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
  const at = (...parts: string[]) => [root, ...parts].join("/");
  return {
    dir: root,
    marker: at(MARKER_NAME),
    folders: LAYOUT_FOLDERS.map((name) => at(name)),
    sessions: at("sessions"),
    recordFile: (id: string) => at("sessions", `${id}.json`),
    /** The folder of one claim space: `labels/` for labels, `<space>/` for the others. */
    claimFolder: (space: ClaimSpace) => at(space),
    claimFile: (space: ClaimSpace, key: string) => at(space, `${key}.json`),
    /** The task board: one file per card (`c12.json`) and the lead (`lead.json`). */
    board: at("board"),
    cardFile: (id: string) => at("board", `${id}.json`),
    leadFile: at("board", "lead.json"),
    locks: at("locks"),
    lockFile: (space: ClaimSpace, key: string) => at("locks", `${space}.${key}.lock`),
    /** Held while a member's record and mailbox change: join, heartbeat, leave and prune. */
    memberLockFile: (id: string) => at("locks", `member.${id}.lock`),
    mail: at("mail"),
    mailbox: (id: string) => at("mail", id),
    /** Where a message is written before delivery; prune clears leftovers. */
    mailTmp: (id: string) => at("mail", id, "tmp"),
    /** Unread mail: a watcher of new mail watches this folder. */
    inboxFolder: (id: string) => at("mail", id, "new"),
    /** Read (acknowledged) mail. */
    readFolder: (id: string) => at("mail", id, "cur"),
    /** Receipts: `receipts/<message id>/<member id>.<phase>.json`, one mark each. */
    receipts: at("receipts"),
    receiptFolder: (messageId: string) => at("receipts", messageId),
    quarantine: at("quarantine"),
    quarantineFile: (name: string) => at("quarantine", name),
    expired: at("expired"),
    /** Unread mail of an expired member, moved aside by prune on `day` (YYYY-MM-DD). */
    expiredFolder: (day: string) => at("expired", day),
    expiredMailbox: (day: string, id: string) => at("expired", day, id),
  };
}
