// The order names are listed in (labels, ids): as `localeCompare` orders them. A collator costs a
// start ~10–20 ms (ICU's collation data), more than the rest of `muster status --line`, so names of
// the label alphabet (letters, digits, `.`, `_`, `-`) are compared by the same rules in code: the
// collation's primary order (`_` `-` `.`, digits, letters without case), then lowercase first. Any
// other text goes to one collator, made when first needed. (The same file is in core and in the
// roster: leaves import nothing; text-order.test.ts holds each to the collator.)

const PRIMARY = "_-.0123456789abcdefghijklmnopqrstuvwxyz";
const LABEL_ALPHABET = /^[A-Za-z0-9._-]*$/;
let collator: Intl.Collator | undefined;

/** Negative, zero or positive, as `left.localeCompare(right)`. */
export function compareText(left: string, right: string): number {
  if (!LABEL_ALPHABET.test(left) || !LABEL_ALPHABET.test(right)) {
    collator ??= new Intl.Collator();
    return collator.compare(left, right);
  }
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const a = PRIMARY.indexOf(left[index]!.toLowerCase());
    const b = PRIMARY.indexOf(right[index]!.toLowerCase());
    if (a !== b) return a < b ? -1 : 1;
  }
  if (left.length !== right.length) return left.length < right.length ? -1 : 1;
  for (let index = 0; index < length; index += 1)
    if (left[index] !== right[index]) return left[index] === left[index]!.toLowerCase() ? -1 : 1;
  return 0;
}
