// Unpredictable names: tokens, message ids and temp file names.

let counter = 0;

/**
 * An unpredictable name: the clock, a counter and 62 random bits. Temp files are named this way so
 * nobody can plant a symlink where the roster is about to write; tokens so no two takes compare
 * equal.
 */
export function uniqueName(now: number): string {
  counter = (counter + 1) % 1_679_616;
  const random = () =>
    Math.floor(Math.random() * 2_176_782_336)
      .toString(36)
      .padStart(6, "0");
  return `${now.toString(36)}-${counter.toString(36).padStart(4, "0")}-${random()}${random()}`;
}
