// What the dashboard shows (`status --watch` on a terminal) and the parts its lines are made of:
// tones, segments, the marks (ASCII where the locale is not UTF-8), columns. Pure.

import type { ActivityJson } from "./_activity-view.js";
import type { MemberView } from "./_status-read.js";

/** How a piece of a line is drawn; each activity state is its own tone. */
export type Tone =
  | ActivityJson["state"]
  | "crashed"
  | "bold"
  | "dim"
  | "warn"
  | "selected"
  | "plain";
export type Segment = { text: string; tone: Tone };
export type Line = Segment[];

/** What the dashboard shows: what `status --json` carries, as the watch read it. */
export type DashboardData = {
  team: string;
  members: readonly MemberView[];
  /** Declared members, and those `muster down` took down, that are not on the team now. */
  down?: readonly { label: string; engine: string; ageMs: number | null; fix: string }[];
  cards: readonly { id: string; title: string; owner: string | null; since: string }[];
  /** Open cards waiting on others, with the cards they wait on. */
  blocked: readonly { id: string; title: string; blockers: readonly string[] }[];
  lead: string | null;
  leases: readonly { pattern: string; holder: string; mode: string }[];
  /** The coding agents in the server's panes, a member's label where one is. */
  agents: readonly { pane: string; engine: string; label: string | null }[];
  /** What could not be read or shown (a tmux that did not answer, a planted record). */
  warnings: readonly string[];
  /** The land queue as core's landQueueLine words it; absent when no land ran. */
  land?: string | undefined;
};

/** The person's unread mail, as the dashboard shows it (`m`): to whom, from whom, how old, what. */
export type MailShown = { to: string; from: string; ageMs: number; body: string };

/** The marks, in ASCII where the locale is not UTF-8. */
export const MARKS = {
  utf8: { pointer: "›", cut: "…", between: " · " },
  ascii: { pointer: ">", cut: "~", between: " | " },
} as const;

/** At most this many rows of cards and of leases: the members come first. */
export const SECTION_ROWS = 4;

export const segment = (text: string, tone: Tone = "plain"): Segment => ({ text, tone });

/** The text in a column `width` wide (one space after it), cut with `cut` when it is longer. */
export const pad = (text: string, width: number, cut = "~") =>
  text.length >= width ? `${text.slice(0, Math.max(0, width - 2))}${cut} ` : text.padEnd(width);
