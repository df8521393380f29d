// The dashboard's lines (`muster status --watch` on a terminal), laid out for a terminal `width`
// columns wide: every line fits, none wraps, so a 60-column side pane shows each member on one
// row, and `height` rows tall: the title, the column header and the keys always show, the members
// scroll in the rows left (the members who need the person first, see `dashboardOrder`), so only
// the visible rows are laid out and drawn whatever the team's size. Pure: the Ink app
// (_dashboard.ts) draws what this returns, with a colour per tone.
import { printable } from "@muster/core";
import { activityWords, endWords } from "./_activity-view.js";
import {
  type DashboardData,
  type Line,
  MARKS,
  type MailShown,
  pad,
  segment,
  type Tone,
} from "./_dashboard-data.js";
import { detail, mailLines, sections } from "./_dashboard-sections.js";
import type { MemberView } from "./_status-read.js";

/** The line cut to `width` columns (its last visible character the cut mark). */
export function fit(line: Line, width: number, cut: string): Line {
  const out: Line = [];
  let left = width;
  for (const piece of line) {
    if (left <= 0) break;
    if (piece.text.length <= left) {
      out.push(piece);
      left -= piece.text.length;
    } else {
      out.push({ ...piece, text: `${piece.text.slice(0, Math.max(0, left - 1))}${cut}` });
      left = 0;
    }
  }
  return out;
}

/**
 * A member's activity in a few words: `needs-you 12s`, `idle 5m (stale)`, `gone (ended)`; its age
 * `elapsedMs` older than when it was read.
 */
export function doing(member: MemberView, elapsedMs = 0): { text: string; tone: Tone } {
  if (member.end) {
    const text = endWords({ ...member.end, ageMs: member.end.ageMs + elapsedMs });
    return { text, tone: member.end.kind === "crashed" ? "crashed" : "gone" };
  }
  if (member.state !== "live")
    return { text: `${member.state} (${printable(member.why)})`, tone: "gone" };
  const { activity } = member;
  return { text: activityWords(activity, elapsedMs), tone: activity.state };
}

/**
 * The members in the order the dashboard lists them: who needs the person first, then who crashed,
 * else as read.
 */
export function dashboardOrder<Member extends MemberView>(members: readonly Member[]): Member[] {
  const needs = (member: MemberView) =>
    member.state === "live" && member.activity.state === "needs-you";
  const crashed = (member: MemberView) => member.end?.kind === "crashed";
  return [
    ...members.filter(needs),
    ...members.filter(crashed),
    ...members.filter((member) => !needs(member) && !crashed(member)),
  ];
}

/** The first of `rows` consecutive members shown so that the selected one is among them. */
export const windowStart = (count: number, rows: number, selected: number) =>
  Math.max(0, Math.min(selected - Math.floor(rows / 2), count - rows));

type Window = { rows: number; elapsedMs: number };

function memberRows(
  data: DashboardData,
  width: number,
  selected: number,
  utf8: boolean,
  window: Window,
): Line[] {
  const marks = utf8 ? MARKS.utf8 : MARKS.ascii;
  const labelWidth = Math.min(
    14,
    Math.max(6, ...data.members.map((member) => member.label.length + 1)),
  );
  const agentWidth = 7;
  const mailWidth = 5;
  // As wide as the pane allows, up to what the longest state with its age and reason needs.
  const doingWidth = Math.min(30, Math.max(8, width - 2 - labelWidth - agentWidth - mailWidth));
  const header: Line = [
    segment(
      `  ${pad("LABEL", labelWidth)}${pad("AGENT", agentWidth)}${pad("DOING", doingWidth)}MAIL`,
      "dim",
    ),
  ];
  if (data.members.length === 0)
    return [header, [segment("  nobody has joined yet (muster join <label>)", "dim")]];
  const first = windowStart(data.members.length, window.rows, selected);
  const shown = data.members.slice(first, first + window.rows);
  const rows = shown.map((member, offset): Line => {
    const chosen = first + offset === selected;
    const what = doing(member, window.elapsedMs);
    return [
      segment(chosen ? `${marks.pointer} ` : "  ", chosen ? "selected" : "plain"),
      segment(pad(printable(member.label), labelWidth, marks.cut), chosen ? "selected" : "bold"),
      segment(pad(printable(member.agent), agentWidth)),
      segment(pad(what.text, doingWidth, marks.cut), what.tone),
      segment(member.unread > 0 ? String(member.unread) : "-", member.unread > 0 ? "bold" : "dim"),
    ];
  });
  return [header, ...rows];
}

/** The keys, spaced out where the pane is wide enough, else close together. */
function keysLine(utf8: boolean, up: boolean, width: number): string {
  const keys = [
    utf8 ? "↑↓" : "up/down",
    "enter go",
    "n start",
    "x stop",
    "s send",
    ...(up ? ["u up"] : []),
    "m mail",
    "q quit",
  ];
  const spaced = keys.join(utf8 ? MARKS.utf8.between : MARKS.ascii.between);
  return spaced.length <= width ? spaced : keys.join("  ");
}

/**
 * Every line of the dashboard for a terminal `width` columns wide and `height` rows tall (at most
 * `height` lines: the members scroll), the member at `selected` marked, the person's mail when
 * asked for (`mail`), and `note` (what the last key did) above the keys. `elapsedMs`: how long ago
 * `data` was read, added to the ages shown.
 */
export function dashboardLines(
  data: DashboardData,
  options: {
    width: number;
    height?: number | undefined;
    selected: number;
    note?: string | undefined;
    utf8: boolean;
    mail?: readonly MailShown[] | undefined;
    elapsedMs?: number | undefined;
    /** What the dashboard asks (an action's prompt), shown in place of the keys. */
    prompt?: string | undefined;
    /** Whether `u` (muster up) is offered. */
    up?: boolean | undefined;
  },
): Line[] {
  const { width, selected, utf8 } = options;
  const height = Math.max(1, options.height ?? Number.POSITIVE_INFINITY);
  const marks = utf8 ? MARKS.utf8 : MARKS.ascii;
  const count = data.members.length;
  const top: Line[] = data.warnings
    .slice(0, 2)
    .map((warning) => [segment(printable(warning), "warn")]);
  const bottom: Line[] = [
    ...detail(data, data.members[selected], utf8),
    ...(options.note ? [[segment(printable(options.note), "warn")]] : []),
    options.prompt
      ? [segment(printable(options.prompt), "bold")]
      : [segment(keysLine(utf8, options.up === true, width), "dim")],
  ];
  const extras = [...mailLines(options.mail), ...sections(data)];
  // The title and the column header, the warnings, the detail, the note and the keys are fixed.
  const free = height - 2 - top.length - bottom.length;
  const wanted = Math.max(1, count);
  // Every member when they fit beside the sections; else the members keep a few rows at least.
  const rows = Math.max(
    1,
    wanted + extras.length <= free ? wanted : Math.max(Math.min(wanted, 5), free - extras.length),
  );
  const first = windowStart(count, rows, selected);
  const range = count > rows ? ` (${first + 1}-${Math.min(count, first + rows)} shown)` : "";
  const lines: Line[] = [
    [
      segment("muster", "bold"),
      segment(`${marks.between}team ${printable(data.team)}`),
      segment(`${marks.between}${count} members${range}`, "dim"),
    ],
    ...top,
    ...memberRows(data, width, selected, utf8, { rows, elapsedMs: options.elapsedMs ?? 0 }),
    ...extras.slice(0, Math.max(0, free - rows)),
    ...bottom,
  ];
  // A pane too short for even this keeps the title: the last rows go first.
  return lines.slice(0, height).map((line) => fit(line, Math.max(1, width), marks.cut));
}
