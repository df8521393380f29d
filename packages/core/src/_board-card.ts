// The card and what may be written on it: its short id (`c12`), the checks on a title, a body and a
// note, and the history entries a change appends. The card files themselves live in the roster;
// these shapes meet the roster's structurally.

/** Where a card stands: `open` (anyone may claim it), `held` (one member works on it), `done`. */
export type CardState = "open" | "held" | "done";

/** Who holds a card: the label peers address, and the session id that proves it is the same one. */
export type CardOwner = { label: string; id: string };

export type CardEvent = "created" | "claimed" | "handed-off" | "dropped" | "released" | "finished";

/** One line of a card's history: what happened, when, by whom (a label), to whom, and why. */
export type CardHistoryEntry = {
  at: string;
  event: CardEvent;
  by: string;
  to?: string | undefined;
  note?: string | undefined;
};

export type Card = {
  id: string;
  title: string;
  body?: string | undefined;
  /** Cards that must be done before this one may be claimed. */
  deps: readonly string[];
  createdBy: string;
  createdAt: string;
  state: CardState;
  /** Present exactly while the card is held. */
  owner?: CardOwner | undefined;
  /** The note it was finished with. */
  note?: string | undefined;
  history: readonly CardHistoryEntry[];
};

/** The member making a change: its label, and its session id. */
export type BoardActor = { label: string; id: string };

export const MAX_TITLE_LENGTH = 200;
export const MAX_BODY_LENGTH = 16_384;
export const MAX_NOTE_LENGTH = 2_000;
/** A card keeps its first entry (created) and this many of the latest. */
export const MAX_HISTORY = 40;

/** A card id as written on disk: `c` and a number with no leading zero. */
const CARD_ID = /^c[1-9][0-9]{0,8}$/;

export const isCardId = (text: string) => CARD_ID.test(text);

/** A card id as a person types it: `c12`, `C12`, `#12` or `12`. */
export function parseCardId(
  text: string,
): { ok: true; id: string } | { ok: false; reason: "bad-card-id"; error: string; fix: string } {
  const id = `c${text.trim().toLowerCase().replace(/^[c#]/u, "")}`;
  return isCardId(id)
    ? { ok: true, id }
    : {
        ok: false,
        reason: "bad-card-id",
        error: `"${text}" is not a card id`,
        fix: "card ids look like c12; list the board to find one",
      };
}

/** The number in a card id (`c12` → 12). */
export const cardNumber = (id: string) => Number(id.slice(1));

/** The id a new card gets: one past the highest in use. */
export function nextCardId(ids: Iterable<string>): string {
  let highest = 0;
  for (const id of ids) if (isCardId(id)) highest = Math.max(highest, cardNumber(id));
  return `c${highest + 1}`;
}

/** Sort cards by their number, c2 before c10. */
export const byCardNumber = (left: { id: string }, right: { id: string }) =>
  cardNumber(left.id) - cardNumber(right.id);

// C0 and C1 controls and the line/paragraph separators: none belongs in a one-line field.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
// Multi-line text keeps newlines and tabs, nothing else below space.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are the point
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

export type TextCheck = { ok: true; text: string } | { ok: false; error: string; fix: string };

/** A title: one line, 1–200 characters once trimmed. */
export function checkTitle(text: string): TextCheck {
  const title = text.trim();
  if (title.length === 0)
    return {
      ok: false,
      error: "a card needs a title",
      fix: 'say what the work is: "fix the login redirect"',
    };
  if (title.length > MAX_TITLE_LENGTH || CONTROL.test(title))
    return {
      ok: false,
      error: `a card title is one line of at most ${MAX_TITLE_LENGTH} characters`,
      fix: "put the details in the body (--body)",
    };
  return { ok: true, text: title };
}

/** A body, note, reason or message: free text with lines, up to `max` characters. */
export function checkText(what: string, text: string, max: number): TextCheck {
  const trimmed = text.trim();
  if (trimmed.length > max)
    return {
      ok: false,
      error: `the ${what} is ${trimmed.length} characters, over the ${max} a card keeps`,
      fix: `shorten the ${what}, or send the detail as mail`,
    };
  if (CONTROL_BUT_LINES.test(trimmed))
    return {
      ok: false,
      error: `the ${what} holds control characters`,
      fix: `write the ${what} as plain text`,
    };
  return { ok: true, text: trimmed };
}

/** The history with one entry more, kept short: the first entry and the latest ones. */
export function appendHistory(
  history: readonly CardHistoryEntry[],
  entry: CardHistoryEntry,
): CardHistoryEntry[] {
  const all = [...history, entry];
  if (all.length <= MAX_HISTORY + 1) return all;
  return [all[0] as CardHistoryEntry, ...all.slice(all.length - MAX_HISTORY)];
}

/** Labels compare case-insensitively, as the roster compares them. */
export const sameLabel = (left: string | undefined, right: string | undefined) =>
  left !== undefined && right !== undefined && left.toLowerCase() === right.toLowerCase();

/** Whether `actor` is the session holding `card`. */
export const holds = (card: Card, actor: BoardActor) =>
  card.state === "held" && card.owner?.id === actor.id;
