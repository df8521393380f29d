// For tests of edits to a user's file: every byte of the original is still in the edited text,
// in order (the edit only inserted).
export function onlyInserted(original: string, edited: string): boolean {
  let at = 0;
  for (const char of original) {
    at = edited.indexOf(char, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}
