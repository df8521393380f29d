// The dashboard's lines below and beside the members: the selected member's detail, who crashed
// or is down, the agents, cards, land and leases, and the person's mail. Pure.
import { printable } from "@muster/core";
import {
  type DashboardData,
  type Line,
  MARKS,
  type MailShown,
  pad,
  SECTION_ROWS,
  segment,
} from "./_dashboard-data.js";
import { age } from "./_render.js";
import type { MemberView } from "./_status-read.js";

/** The selected member's pane, cards and leases, on one line. */
export function detail(data: DashboardData, member: MemberView | undefined, utf8: boolean): Line[] {
  if (!member) return [];
  const marks = utf8 ? MARKS.utf8 : MARKS.ascii;
  const label = member.label.toLowerCase();
  const own = (holder: string | null) => holder?.toLowerCase() === label;
  const pane = member.seat
    ? `pane ${printable(member.seat.sessionName ?? member.seat.session)}:${printable(member.seat.pane)}`
    : "no pane";
  const parts = [
    ...(member.end && member.end.kind !== "stopped" ? [member.end.fix] : []),
    pane,
    ...data.cards.filter((card) => own(card.owner)).map((card) => `card ${printable(card.id)}`),
    ...data.leases
      .filter((lease) => own(lease.holder))
      .map((lease) => `lease ${printable(lease.pattern)}`),
  ];
  return [[segment(`${printable(member.label)}: `, "bold"), segment(parts.join(marks.between))]];
}

/** The members who crashed or are down, each with what brings it back. */
function endedSection(data: DashboardData): Line[] {
  const ended = [
    ...data.members.flatMap((member) =>
      member.end && member.end.kind !== "stopped"
        ? [{ label: member.label, kind: member.end.kind, fix: member.end.fix }]
        : [],
    ),
    ...(data.down ?? []).map((member) => ({ ...member, kind: "down" })),
  ];
  if (ended.length === 0) return [];
  return [
    [segment(`Crashed or down (${ended.length})`, "bold")],
    ...ended
      .slice(0, SECTION_ROWS)
      .map(
        (member): Line => [
          segment(`  ${pad(printable(member.label), 12)}`, "bold"),
          segment(pad(member.kind, 8), member.kind === "crashed" ? "crashed" : "dim"),
          segment(printable(member.fix), "dim"),
        ],
      ),
  ];
}

/** The sections below the members: who ended, the agents, the cards, the land, the leases. */
export function sections(data: DashboardData): Line[] {
  const lines: Line[] = [...endedSection(data)];
  if (data.agents.length > 0) {
    lines.push([segment(`Agents in tmux (${data.agents.length})`, "bold")]);
    for (const agent of data.agents.slice(0, SECTION_ROWS))
      lines.push([
        segment(`  ${pad(printable(agent.pane), 6)}`),
        segment(pad(printable(agent.engine), 8)),
        agent.label ? segment(printable(agent.label), "bold") : segment("not joined", "dim"),
      ]);
  }
  if (data.cards.length > 0 || data.lead) {
    const lead = data.lead ? ` lead ${printable(data.lead)}` : "";
    lines.push([segment(`Cards in progress (${data.cards.length})`, "bold"), segment(lead, "dim")]);
    for (const card of data.cards.slice(0, SECTION_ROWS))
      lines.push([
        segment(`  ${pad(printable(card.id), 5)}`, "bold"),
        segment(pad(printable(card.owner ?? "-"), 12)),
        segment(printable(card.title)),
      ]);
  }
  if (data.blocked.length > 0) {
    lines.push([segment(`Blocked (${data.blocked.length})`, "bold")]);
    for (const card of data.blocked.slice(0, SECTION_ROWS))
      lines.push([
        segment(`  ${pad(printable(card.id), 5)}`, "bold"),
        segment(pad(`waits ${printable(card.blockers.join(","))}`, 12), "dim"),
        segment(printable(card.title)),
      ]);
  }
  if (data.land) lines.push([segment(printable(data.land), "bold")]);
  if (data.leases.length > 0) {
    lines.push([segment(`Leases (${data.leases.length})`, "bold")]);
    for (const lease of data.leases.slice(0, SECTION_ROWS))
      lines.push([
        segment(`  ${pad(printable(lease.holder), 12)}`),
        segment(pad(lease.mode, 7), "dim"),
        segment(printable(lease.pattern)),
      ]);
  }
  return lines;
}

/** The person's unread mail, oldest first: one line each, its first line of text. */
export function mailLines(mail: readonly MailShown[] | undefined): Line[] {
  if (mail === undefined) return [];
  if (mail.length === 0) return [[segment("No mail waits for you.", "dim")]];
  return [
    [segment(`Your mail (${mail.length})`, "bold"), segment(" shown, not marked read", "dim")],
    ...mail.map(
      (message): Line => [
        segment(`  ${pad(printable(message.from), 10)}`, "bold"),
        segment(pad(age(message.ageMs), 5), "dim"),
        segment(printable(message.body.split("\n")[0] ?? "")),
      ],
    ),
  ];
}
