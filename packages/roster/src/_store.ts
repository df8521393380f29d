// The store contract: what the roster's rules need from wherever a team is kept. The rules (judge
// a holder, take over, forward, expire, quarantine, receipts, the board, leases) are written once,
// against this; a store only keeps values. Two implement it: the team folder (`_folder-*.ts`, in
// this package) and NATS JetStream (`@muster/nats`). A store never decides a rule, and a value it
// hands back is as hostile as a file another process wrote: the roster parses every one.
import type { ClaimSpace } from "./_layout.js";

/**
 * The keyed spaces: session records, the claim spaces (labels, leases, wakes, cards), the board
 * (one card per key, and `lead`), and locks (`<space>.<key>`, `member.<id>`). Keys reach a store
 * validated: 1–140 of letters, digits, `.`, `_`, `-`, starting with a letter or digit; a store
 * whose keys cannot hold one of those encodes it.
 */
export type StoreSpace = "sessions" | ClaimSpace | "board" | "locks";

/**
 * A value as stored, and its version: what a conditional write compares. Opaque; equal versions
 * mean the same write. The folder store's version is the text itself (every value the roster
 * writes carries a unique token or a time), a CAS store's is the key's revision.
 */
export type Stored = { text: string; version: string };

/**
 * What an exclusive create stored. `displaced`: the value a takeover of this key had moved aside
 * when this create won it (a store whose takeover frees the key for a moment, see `replace`): the
 * claim the winner replaced, for it to take over as the taker would have.
 */
export type Created = Stored & { displaced?: string | undefined };

/** One key of a listing; `name` is how the store names it to a person (`alice.json`). */
export type Listed = { key: string; name: string; stored: Stored };

/**
 * A space's listing. `unreadable`: keys whose value is there but cannot be read (a folder, a
 * FIFO, a file we may not read). `strays`: names in the space that are no key at all (a file
 * without `.json`); a store with no such thing answers none.
 */
export type Listing = {
  entries: Listed[];
  unreadable: { key: string; name: string; error: string }[];
  strays: string[];
};

/** What a conditional replace did. `cleared`: see `replace`. */
export type Replaced = { ok: true; stored: Stored } | { ok: false; reason: "changed" | "cleared" };

/** A message in a mailbox: its id and its text (the roster's JSON), as stored. */
export type MailEntry = { id: string; name: string; text: string };

/** A mailbox's listing: the messages, and what is there but is not one (named apart). */
export type MailListing = {
  messages: MailEntry[];
  /** The names of unread copies of messages already read (delivered again after a crash). */
  duplicates: string[];
  strays: { name: string; error: string }[];
};

/** A mailbox retired by prune: how many messages were unread, and where they were kept. */
export type Retired = { unread: number; where: string };

export type MailStore = {
  /** Make the member's mailbox (a join does, before its record is written). */
  ensure(member: string): Promise<void>;
  /**
   * Put a message in the member's unread mail; `duplicate` when its id is there, read or not.
   * Throws when the member has no mailbox (never `ensure`d): forwarding relies on it, so mail is
   * never moved into the mailbox of a member whose record may never be written. With `read`, it
   * goes straight into the member's read mail (it was shown another way) and signals nobody.
   */
  deliver(
    member: string,
    id: string,
    text: string,
    options?: { read?: boolean | undefined },
  ): Promise<"delivered" | "duplicate">;
  /** The member's unread mail, in no order. Nothing is taken: any number may look at once. */
  unread(member: string): Promise<MailListing>;
  /** The member's read mail. */
  read(member: string): Promise<MailListing>;
  /** One message by id, unread or read; undefined when there is none. */
  get(member: string, id: string): Promise<(MailEntry & { read: boolean }) | undefined>;
  /** Mark messages read; `missing`: ids that were not unread. */
  ack(member: string, ids: readonly string[]): Promise<{ acked: string[]; missing: string[] }>;
  /**
   * Take one unread entry (by the `name` its listing gave) out of the mailbox: forwarded on, a
   * duplicate, or not mail at all. With `setAside` it is kept apart (quarantine), never deleted.
   */
  discard(member: string, name: string, options?: { setAside?: boolean }): Promise<boolean>;
  /** How many messages wait unread, and when the oldest was stored (ms). */
  waiting(member: string): Promise<{ count: number; oldestAt?: number | undefined }>;
  /** Retire a mailbox whole: unread mail kept aside (until `clearRetired`), the rest dropped. */
  retire(member: string, now: number): Promise<Retired | undefined>;
  /** Every mailbox there is, with when it last changed; `strays`: entries that are no mailbox. */
  list(): Promise<{ mailboxes: { member: string; changedAt: number }[]; strays: string[] }>;
  /** Drop retired mail kept since before `before` (ms); what was dropped, named. */
  clearRetired(before: number): Promise<string[]>;
  /**
   * The member's mail this store cannot open (NATS: sealed to another member's key), by the name
   * a listing would give it (`unread/<id>.json`, `read/<id>.json`): what no listing shows and a
   * migration cannot carry. Absent where all mail opens (the folder).
   */
  sealed?: ((member: string) => Promise<string[]>) | undefined;
  /** A local folder a file watcher can watch for new mail (the folder store only). */
  folder?: ((member: string) => string | undefined) | undefined;
  /**
   * The member's doorbell (the folder store only): a local folder to watch, and `arm`, which puts
   * its bells in it; each delivery to the member then removes one (rings), until armed again.
   */
  doorbell?: ((member: string) => { folder: string; arm(): Promise<void> }) | undefined;
  /** Call `onMail` when mail arrives for `member`, until stopped: a wake signal, not the mail. */
  watch?: ((member: string, onMail: () => void) => Promise<{ stop(): void }>) | undefined;
};

/** One receipt mark as a store keeps it. The roster checks every field of one read back. */
export type StoredMark = {
  member: string;
  phase: string;
  at: string;
  how?: string | undefined;
  /** On a `written` mark of forwarded mail: the recipient it was forwarded from. */
  from?: string | undefined;
  /** On a `wake-failed` mark: what the engine said (one line). */
  error?: string | undefined;
  /** On a `wake-held` mark: when the rate lets it wake again (ISO). */
  until?: string | undefined;
  /** How the store names this mark to a person, on a mark read back (`s2.delivered.json`). */
  name?: string | undefined;
  /** On a mark read back: it is kept in the message's folded value, not on its own. */
  folded?: boolean | undefined;
};

/** A message with a receipt: whether it has marks of its own (loose) and a folded value. */
export type ListedReceipt = { id: string; loose: boolean; folded: boolean };

export type ReceiptStore = {
  /**
   * Record a mark; the first of each (message, member, phase) stands: false when one was there.
   * With `latest`, the mark replaces any of its phase (a failed wake: the latest failure stands).
   */
  mark(messageId: string, mark: StoredMark, options?: { latest?: boolean }): Promise<boolean>;
  /**
   * Every mark on a message, its folded ones first; what is there but is not a mark is named
   * apart. A mark may be there twice (folded and loose, after a fold cut short): the first stands.
   * Read loose before folded, so a mark folded meanwhile is seen in one or the other.
   */
  read(
    messageId: string,
  ): Promise<{ marks: StoredMark[]; strays: { name: string; error: string }[] }>;
  /** Every message with a receipt (a name that is none is skipped). */
  list(): Promise<ListedReceipt[]>;
  /**
   * Fold these loose marks (as `read` gave them) into the message's one folded value, created
   * once and never rewritten (false when there already is one: nothing new is folded), then
   * remove each loose mark that the stored folded value holds, and nothing else. In that order, so
   * a crash anywhere loses no mark; a mark made meanwhile stays loose.
   */
  fold(messageId: string, marks: readonly StoredMark[]): Promise<boolean>;
  /** Remove a message's receipt whole; what muster does not write is left, and said. */
  remove(messageId: string): Promise<{ removed: boolean; warnings: string[] }>;
  /** Clear what interrupted marks left (temp files) once older than a write can take. */
  sweep(now: number): Promise<{ cleared: string[]; warnings: string[] }>;
  /** A local folder a file watcher can watch for a message's marks (the folder store only). */
  folder?: ((messageId: string) => string | undefined) | undefined;
  /** Call `onMark` when a mark is made on the message, until stopped. */
  watch?: ((messageId: string, onMark: () => void) => Promise<{ stop(): void }>) | undefined;
};

/**
 * A team's store. Every failure the roster does not name here is thrown as an error (with a
 * Node-style `code` where there is one): the roster turns it into `unwritable` or `unknown`.
 */
export type RosterStore = {
  /** Which store this is, for status and doctor: `folder`, `nats`, … */
  readonly kind: string;
  /** The store in a person's words, for messages: "the team folder /x", "the NATS team y". */
  readonly where: string;
  /**
   * Where the store lives, the same for every process that opens it and different for another
   * store with the same `where` (a team of one name on two NATS servers): for locks keyed by it.
   * Undefined: `where` is that already.
   */
  readonly address?: string | undefined;
  /** The team folder, where the store is one (a composer reopening the roster passes it back). */
  readonly dir?: string | undefined;
  /** Is this still a team's store (a team folder keeps its marker)? Prune runs only when it is. */
  ready(): Promise<{ ok: true } | { ok: false; error: string }>;
  /** The value at a key; undefined when there is none. Throws when it is there but unreadable. */
  get(space: StoreSpace, key: string): Promise<Stored | undefined>;
  /**
   * The exclusive create: the value, or undefined when the key holds one. One racer wins. A create
   * that won the key in a takeover's free moment (see `replace`) answers the value that takeover
   * moved aside as `displaced`, once: no winner is left unaware of the claim it replaced.
   */
  create(space: StoreSpace, key: string, text: string): Promise<Created | undefined>;
  /** Write a value whole, whatever was there (a reader sees the old or the new, never half). */
  put(space: StoreSpace, key: string, text: string): Promise<Stored>;
  /**
   * Compare-and-swap: replace the value only if it is still at `expected`. A CAS store does it in
   * one step. The folder store cannot: it compares, then renames over (callers hold the key's
   * lock), or, with `takeover`, moves the judged value aside and creates the new exclusively, so a
   * value written meanwhile is never overwritten; a fresh creator may then take the key in the
   * moment it is free: `cleared` (the judged value is gone, the key is another's), and that
   * creator's `create` answers the judged value as `displaced`.
   */
  replace(
    space: StoreSpace,
    key: string,
    text: string,
    expected: string,
    options?: { takeover?: boolean | undefined },
  ): Promise<Replaced>;
  /** Compare-and-delete (`expected`), or delete whatever is there: true when this call removed it. */
  remove(space: StoreSpace, key: string, expected?: string): Promise<boolean>;
  /**
   * Move a value that is not what its space holds out of the way, kept (quarantine), if what is
   * there still is junk as `isJunk` judges it (its text, or undefined when it cannot be read).
   */
  setAside(
    space: StoreSpace,
    key: string,
    isJunk: (text: string | undefined) => boolean,
  ): Promise<boolean>;
  /** Every key of a space. Throws when the space cannot be listed (never a partial listing). */
  list(space: StoreSpace): Promise<Listing>;
  /** When a key was last written (ms), as the store saw it; undefined when it is not there. */
  writtenAt(space: StoreSpace, key: string): Promise<number | undefined>;
  mail: MailStore;
  receipts: ReceiptStore;
  /** Clear what interrupted writes left (the folder store's temp files), once older than `graceMs`. */
  sweep(now: number, graceMs: number): Promise<{ cleared: string[]; warnings: string[] }>;
};
