// Where each `[[member]]` table of a muster.toml and each of its keys stand, to name a line in an
// error: read from the text, apart from what the TOML parser gives. Owns the lines; not the rules.

/**
 * The lines of each `[[member]]` header in `text`, and of each key under it. Only trusted when it
 * finds as many headers as the parser found tables (a header inside a multi-line string would
 * shift them): then a line, else none.
 */
export function memberLines(text: string): { header: number; keys: Map<string, number> }[] {
  const found: { header: number; keys: Map<string, number> }[] = [];
  let current: { header: number; keys: Map<string, number> } | undefined;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (/^\[\[\s*member\s*\]\]\s*(#.*)?$/.test(line)) {
      current = { header: index + 1, keys: new Map() };
      found.push(current);
    } else if (line.startsWith("[")) current = undefined;
    else if (current) {
      const key = /^"?([A-Za-z0-9_-]+)"?\s*=/.exec(line)?.[1];
      if (key !== undefined && !current.keys.has(key)) current.keys.set(key, index + 1);
    }
  });
  return found;
}
