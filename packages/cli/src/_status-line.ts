// `muster status --line`: the team in one short line for tmux's status bar
// (`#(muster status --line)`, which `muster install tmux` adds): how many members work and idle,
// who needs the person (longest waiting first), and the mail waiting for them. No tmux call and no
// process table, because tmux runs it every few seconds: two git calls find the team (unless it is
// named), and the roster reads /proc for each member's process (status-line.test.ts counts them).
// Of the team's store it reads the members, the person's mailboxes only (the mail it shows), and
// the land queue's waiting only while a land is under way: none a teammate's flood could fill.
import { isPerson, localeSpeaksUtf8, printable, teamLine } from "@muster/core";
import { landQueue } from "@muster/wiring";
import type { Context } from "./_context.js";
import { readMembers } from "./_status-read.js";

/** The marks the line is drawn with: tmux draws a non-ASCII character as `_` where the locale is not UTF-8. */
const MARKS = {
  utf8: { team: "⚑ ", you: "❗ ", mail: "✉ ", between: " · " },
  ascii: { team: "", you: "! ", mail: "mail ", between: " | " },
} as const;

/**
 * The line as tmux shows it: `⚑ 2 working · 1 idle · ❗ reviewer needs you · ✉ 3`, or in ASCII
 * `2 working | 1 idle | ! reviewer needs you | mail 3`.
 */
export function renderLine(line: ReturnType<typeof teamLine>, utf8 = true): string {
  const marks = utf8 ? MARKS.utf8 : MARKS.ascii;
  const parts: string[] = [];
  const counts = [
    line.working > 0 ? `${line.working} working` : "",
    line.idle > 0 ? `${line.idle} idle` : "",
    line.starting > 0 ? `${line.starting} starting` : "",
  ].filter(Boolean);
  if (counts.length > 0) parts.push(`${marks.team}${counts.join(marks.between)}`);
  const [first, ...others] = line.needsYou;
  if (first)
    parts.push(
      `${marks.you}${printable(first.label)}${others.length > 0 ? ` +${others.length}` : ""} ${others.length > 0 ? "need" : "needs"} you`,
    );
  if (line.mail > 0) parts.push(`${marks.mail}${line.mail}`);
  return parts.join(marks.between);
}

export async function statusLineCommand(context: Context) {
  let members: Awaited<ReturnType<typeof readMembers>>["members"];
  try {
    // The line counts the person's mail only: no other member's mailbox is read.
    ({ members } = await readMembers(context, false, isPerson));
  } catch {
    // A status bar shows a mark, never a stack: the team folder could not be read.
    return context.out(context.json ? JSON.stringify({ ok: false }) : "muster: ?");
  }
  const line = teamLine(members.filter((member) => member.state === "live"));
  const utf8 = localeSpeaksUtf8(context.io.env);
  const land = await context
    .roster()
    .then((roster) => landQueue(roster, { waitingWhileLanding: true }))
    .catch(() => undefined);
  // A land under way shows who is landed and how many wait: the person may be waiting on it.
  const landing = land?.landing
    ? `landing ${printable(land.landing.member)}${land.waiting.length > 0 ? ` +${land.waiting.length}` : ""}`
    : "";
  const text = [renderLine(line, utf8), landing]
    .filter(Boolean)
    .join(utf8 ? MARKS.utf8.between : MARKS.ascii.between);
  if (context.json) return context.emit({ line: text, ...line, landing: land?.landing ?? null });
  context.out(text);
}
