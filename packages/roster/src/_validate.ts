// What may become a label, a session id or a message id. Everything that names a file passes
// through here first, so nothing a caller passes can point outside the team folder.

/** Words peers use for addressing, never labels. */
export const RESERVED_LABELS = ["all", "everyone", "team", "me", "self", "none"] as const;

/** Mail bodies are capped at 64 KiB of UTF-8. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Why a body is refused as too large; `over` when only its first bytes were read (a stream). */
export const bodyTooLarge = (size: number, over = false) =>
  `the message is ${over ? "over " : ""}${size} bytes; the limit is ${MAX_BODY_BYTES} (64 KiB)`;

/** A refusal says what is wrong (`error`) and, apart, what to do (`fix`); composers join them. */
export type Validation = { ok: true; value: string } | { ok: false; error: string; fix: string };

/** The fixes for the checks below, each beside its check. */
export const VALIDATION_FIXES = {
  label: 'use 1-32 letters, digits, ".", "_" or "-", starting with a letter or digit',
  reserved: "choose another label",
  id: 'use 1-128 letters, digits, "_" or "-"',
  key: 'use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit',
} as const;

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** A label: 1–32 letters, digits, `.`, `_` or `-`, starting with a letter or digit, not reserved. */
export function validateLabel(label: string): Validation {
  if (typeof label !== "string" || label.length === 0) {
    return { ok: false, error: "a label cannot be empty", fix: VALIDATION_FIXES.label };
  }
  if (!LABEL.test(label)) {
    return {
      ok: false,
      error: `"${printable(label)}" is not a label`,
      fix: VALIDATION_FIXES.label,
    };
  }
  if ((RESERVED_LABELS as readonly string[]).includes(label.toLowerCase())) {
    return {
      ok: false,
      error: `"${label}" is reserved for addressing`,
      fix: VALIDATION_FIXES.reserved,
    };
  }
  return { ok: true, value: label };
}

/** A session or message id: 1–128 letters, digits, `_` or `-`; never a path. */
export function validateId(id: string, what = "session id"): Validation {
  if (typeof id !== "string" || !ID.test(id)) {
    return {
      ok: false,
      error: `"${printable(String(id))}" is not a valid ${what}`,
      fix: VALIDATION_FIXES.id,
    };
  }
  return { ok: true, value: id };
}

/**
 * Why a record read from the team is not shown: its label or id is one join would refuse, so it
 * was planted, not joined (undefined: it is shown). Every door that lists the team hides such a
 * record; a view that has warnings says this line.
 */
export function plantedRecord(record: { id: string; label: string }): string | undefined {
  const label = validateLabel(record.label);
  const id = validateId(record.id);
  if (label.ok && id.ok) return undefined;
  const why = [label, id].flatMap((check) => (check.ok ? [] : [check.error])).join("; ");
  return `sessions/${printable(String(record.id))}.json has a label or id that join would refuse (${why}); not shown`;
}

/** The key a label is claimed under: labels compare case-insensitively. */
export const labelKey = (label: string) => label.toLowerCase();

/** Shows control characters in an error instead of printing them. */
function printable(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  let shownSafe = "";
  for (const character of shown) {
    const code = character.charCodeAt(0);
    shownSafe +=
      code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, "0")}` : character;
  }
  return shownSafe;
}

/** The UTF-8 length of a string, counted without a host encoder. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const point = character.codePointAt(0) ?? 0;
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return bytes;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A claim key: 1–128 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export function validateKey(key: string): Validation {
  if (typeof key !== "string" || !KEY.test(key)) {
    return {
      ok: false,
      error: `"${printable(String(key))}" is not a claim key`,
      fix: VALIDATION_FIXES.key,
    };
  }
  return { ok: true, value: key };
}
