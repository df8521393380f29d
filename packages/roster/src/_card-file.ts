// A board card as a file (`board/<id>.json`, one per card) and the board's lead (`board/lead.json`):
// their shapes and strict parsers. Another process wrote these files, so every field is checked
// before it is used: a card that does not parse is a named warning, never a card. The board's
// rules (which change is allowed) are not here: they come from the caller.
import { isObject, isTime, type Parsed, parseJson } from "./_record.js";
import { validateId, validateLabel } from "./_validate.js";

export type CardState = "open" | "held" | "done";
export type CardEvent = "created" | "claimed" | "handed-off" | "dropped" | "released" | "finished";

export type CardHistoryEntry = {
  at: string;
  event: CardEvent;
  by: string;
  to?: string | undefined;
  note?: string | undefined;
};

/** A card as the board keeps it. The board's rules (core) meet this shape structurally. */
export type CardRecord = {
  id: string;
  title: string;
  body?: string | undefined;
  deps: readonly string[];
  createdBy: string;
  createdAt: string;
  state: CardState;
  owner?: { label: string; id: string } | undefined;
  note?: string | undefined;
  history: readonly CardHistoryEntry[];
};

/** The lead of the board: a label, who set it and when. */
export type LeadRecord = { v: 1; lead: string; by: string; at: string };

const CARD_ID = /^c[1-9][0-9]{0,8}$/;
export const isCardId = (value: unknown): value is string =>
  typeof value === "string" && CARD_ID.test(value);

/** Files larger than this are not cards (a card's text is capped well below it by the rules). */
export const MAX_CARD_FILE = 256 * 1024;
const MAX_HISTORY_ENTRIES = 200;
const EVENTS: readonly string[] = [
  "created",
  "claimed",
  "handed-off",
  "dropped",
  "released",
  "finished",
];

const isLabel = (value: unknown): value is string =>
  typeof value === "string" && validateLabel(value).ok;
const isText = (value: unknown, max: number): value is string =>
  typeof value === "string" && value.length <= max;
const optional = (value: unknown, check: (value: unknown) => boolean) =>
  value === undefined || check(value);

function isEntry(value: unknown): value is CardHistoryEntry {
  return (
    isObject(value) &&
    isTime(value.at) &&
    typeof value.event === "string" &&
    EVENTS.includes(value.event) &&
    isLabel(value.by) &&
    optional(value.to, isLabel) &&
    optional(value.note, (note) => isText(note, 16_384))
  );
}

function isOwner(value: unknown): value is { label: string; id: string } {
  return (
    isObject(value) &&
    isLabel(value.label) &&
    typeof value.id === "string" &&
    validateId(value.id).ok
  );
}

/** Parse a card file; `id` is the id its name gives, which the file must repeat. */
export function parseCard(text: string, id: string): Parsed<CardRecord> {
  if (text.length > MAX_CARD_FILE) return { ok: false, error: "is too large to be a card" };
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (value.id !== id) return { ok: false, error: "names another card id" };
  const state = value.state;
  const valid =
    isText(value.title, 1_000) &&
    optional(value.body, (body) => isText(body, 65_536)) &&
    Array.isArray(value.deps) &&
    value.deps.length <= 1_000 &&
    value.deps.every(isCardId) &&
    isLabel(value.createdBy) &&
    isTime(value.createdAt) &&
    (state === "open" || state === "held" || state === "done") &&
    // An owner exactly while held: a file cannot say "open" and name an owner.
    (state === "held" ? isOwner(value.owner) : value.owner === undefined) &&
    optional(value.note, (note) => isText(note, 16_384)) &&
    Array.isArray(value.history) &&
    value.history.length <= MAX_HISTORY_ENTRIES &&
    value.history.every(isEntry);
  if (!valid) return { ok: false, error: "is missing fields a card needs" };
  const card: CardRecord = {
    id,
    title: value.title as string,
    body: value.body as string | undefined,
    deps: [...(value.deps as string[])],
    createdBy: value.createdBy as string,
    createdAt: value.createdAt as string,
    state,
    owner: state === "held" ? { ...(value.owner as { label: string; id: string }) } : undefined,
    note: value.note as string | undefined,
    history: (value.history as CardHistoryEntry[]).map((entry) => ({ ...entry })),
  };
  return { ok: true, value: card };
}

/** The text of a card file: only the fields a card has, so nothing a caller adds is written. */
export function cardText(card: CardRecord): string {
  const { id, title, body, deps, createdBy, createdAt, state, owner, note, history } = card;
  const record = {
    v: 1,
    id,
    title,
    body,
    deps,
    createdBy,
    createdAt,
    state,
    owner: owner ? { label: owner.label, id: owner.id } : undefined,
    note,
    history: history.map(({ at, event, by, to, note: said }) => ({
      at,
      event,
      by,
      to,
      note: said,
    })),
  };
  return `${JSON.stringify(record)}\n`;
}

/** Check a card before it is written: what a caller hands in must parse back to itself. */
export function checkCard(card: CardRecord): Parsed<CardRecord> {
  if (!isCardId(card.id)) return { ok: false, error: `"${String(card.id)}" is not a card id` };
  return parseCard(cardText(card), card.id);
}

export function parseLead(text: string): Parsed<LeadRecord> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  return isLabel(value.lead) && isLabel(value.by) && isTime(value.at)
    ? { ok: true, value: { v: 1, lead: value.lead, by: value.by, at: value.at } }
    : { ok: false, error: "is missing fields a lead record needs" };
}
