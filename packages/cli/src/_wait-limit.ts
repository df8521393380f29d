// How long `spawn` and `up` wait for a member to start and join (`--timeout`): a duration as
// `send --timeout` takes it (45s, 2m), or a bare number of seconds.

const UNITS: Record<string, number> = { s: 1000, m: 60_000 };

/** `--timeout` in milliseconds, or undefined when it is no positive duration (a usage error). */
export function waitLimitMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m)?$/u.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNITS[match[2] ?? "s"] as number);
  return ms > 0 ? ms : undefined;
}

/** The usage error's words for a `--timeout` that is no duration. */
export const waitLimitError = (text: string) =>
  `--timeout takes seconds or a duration like 45s or 2m, not "${text}"`;
