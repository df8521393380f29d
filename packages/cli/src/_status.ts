// `muster status`, `muster roster`: the team at a glance. Members from the roster,
// agents from one scan of the tmux server (one list-panes -a plus one process table), joined: a
// pane whose agent is a member shows its label (read by _status-read.ts). `status --watch` is
// _status-watch.ts.
import { landQueueLine, mailMode, printable } from "@muster/core";
import type { TeamFolder } from "@muster/node";
import { landQueue } from "@muster/wiring";
import {
  type ActivityJson,
  activityWords,
  type EndJson,
  endLines,
  endWords,
  troubleLines,
} from "./_activity-view.js";
import { renderAgents } from "./_agents.js";
import { renderInProgress } from "./_board-render.js";
import { cardsInProgress } from "./_board-team.js";
import type { Context } from "./_context.js";
import { leaseSection } from "./_leases.js";
import { age, shortPath, table } from "./_render.js";
import { type DownView, downLines } from "./_status-down.js";
import {
  type AgentView,
  agentViews,
  type MemberView,
  readMembers,
  type Scan,
  scanTmux,
} from "./_status-read.js";

function renderMembers(context: Context, members: readonly MemberView[]): string[] {
  const { color } = context;
  if (members.length === 0)
    return ["  nobody has joined yet (muster join <label>, or start pi with the muster extension)"];
  const stateColor = { live: color.green, gone: color.yellow, expired: color.dim } as const;
  return table(
    ["LABEL", "AGENT", "STATE", "PID", "SEAT", "BEAT", "MAIL", "UNREAD"],
    members.map((member) => [
      color.bold(printable(member.label)),
      printable(member.agent),
      member.end
        ? endText(context, member.end)
        : member.state !== "live"
          ? stateColor[member.state](`${member.state} (${printable(member.why)})`)
          : activityText(context, member.activity),
      String(member.pid),
      member.seat
        ? printable(`${member.seat.sessionName ?? member.seat.session}:${member.seat.pane}`)
        : "-",
      age(member.heartbeatAgeMs),
      mailMode(member.watching),
      member.unread > 0
        ? color.cyan(
            `${member.unread}${member.oldestUnreadAgeMs === null ? "" : ` (oldest ${age(member.oldestUnreadAgeMs)})`}`,
          )
        : "0",
    ]),
  );
}

const endText = (context: Context, end: EndJson) =>
  end.kind === "crashed"
    ? context.color.bold(context.color.red(endWords(end)))
    : context.color.dim(endWords(end));

/** A live member's activity in a few words, coloured by what it asks of the person. */
export function activityText(context: Context, activity: ActivityJson): string {
  const { color } = context;
  const paint = {
    working: color.green,
    idle: color.cyan,
    "needs-you": (text: string) => color.bold(color.red(text)),
    starting: color.yellow,
    gone: color.dim,
    unknown: color.dim,
    trouble: (text: string) => color.bold(color.red(text)),
  }[activity.state];
  return paint(activityWords(activity));
}

export function renderStatus(
  context: Context,
  team: TeamFolder,
  members: readonly MemberView[],
  scan: Scan,
  agents: readonly AgentView[],
  store: StoreView,
  down: readonly DownView[] = [],
): string {
  const { color } = context;
  const here = agents.filter((agent) => agent.inRepository);
  const elsewhere = agents.filter((agent) => !agent.inRepository);
  const lines = [
    `${color.bold("muster")} · team ${color.bold(printable(team.name))} ${color.dim(`(${printable(shortPath(team.dir, context.io.env.HOME))})`)}`,
    ...(teamNote(team) ? [color.yellow(`  ${teamNote(team)}`)] : []),
    // A team on a store other than its folder says so: its members may be on other machines.
    ...(store.kind === "folder" ? [] : [`  store: ${printable(store.where)}`]),
    "",
    color.bold(`Members (${members.length})`),
    ...renderMembers(context, members),
    ...endLines(members).map((line) => color.red(line)),
    ...troubleLines(members).map((line) => color.red(line)),
    ...downLines(down).map((line) => color.yellow(line)),
    "",
  ];
  if (!scan.available) {
    lines.push(color.bold("Agents in tmux"), `  ${printable(scan.note ?? "")}`);
  } else if (!scan.result.ok) {
    lines.push(color.bold("Agents in tmux"), `  ${color.yellow(printable(scan.result.error))}`);
  } else {
    lines.push(
      color.bold(`Agents in tmux (${here.length}) `) +
        color.dim(`server ${printable(shortPath(scan.server ?? "", context.io.env.HOME))}`),
    );
    lines.push(
      ...(here.length > 0
        ? renderAgents(context, here)
        : ["  no coding agent in a pane of this repository"]),
    );
    if (elsewhere.length > 0) {
      lines.push(
        "",
        color.bold(`Elsewhere (${elsewhere.length}) `) + color.dim("cwd outside this repository"),
        ...renderAgents(context, elsewhere),
      );
    }
    for (const ambiguous of scan.result.ambiguous) {
      lines.push(
        color.yellow(
          `  ${printable(ambiguous.seatKey.split("#").at(-1) ?? "")}: more than one agent at the same depth; not counted`,
        ),
      );
    }
  }
  return lines.join("\n");
}

/** What `status` and `doctor` say when the team is a folder's, not a repository's. */
export const NOT_IN_GIT =
  "not in a git repository: the team is this folder's; set MUSTER_TEAM_DIR to share";

/** The note for a team found from a folder outside git; none for a repository or a named folder. */
export const teamNote = (team: TeamFolder) =>
  team.source === "cwd" && !team.overridden ? NOT_IN_GIT : undefined;

/** Which store the team is on (`folder`, `nats`) and where, as the roster says. */
export type StoreView = { kind: string; where: string };

export const statusDocument = (
  team: TeamFolder,
  members: MemberView[],
  scan: Scan,
  agents: AgentView[],
  warnings: string[],
  store: StoreView,
  down: readonly DownView[] = [],
) => ({
  team: {
    name: team.name,
    dir: team.dir,
    key: team.key,
    source: team.source,
    note: teamNote(team) ?? null,
  },
  store: { kind: store.kind, where: store.where },
  members,
  down,
  tmux: { server: scan.server, available: scan.available, note: scan.note ?? null },
  agents: agents.filter((agent) => agent.inRepository),
  elsewhere: agents.filter((agent) => !agent.inRepository),
  warnings: [...warnings, ...scan.warnings, ...(scan.result.ok ? [] : [scan.result.error])],
});

export async function statusCommand(context: Context) {
  const team = await context.team();
  const [{ members, warnings }, scan, leases, board, land] = await Promise.all([
    readMembers(context),
    scanTmux(context),
    leaseSection(context),
    cardsInProgress(context),
    context.roster().then(landQueue),
  ]);
  const agents = agentViews(scan.result.ok ? scan.result.agents : [], members, team);
  const store = (await context.roster()).store;
  // Apart: it reads muster.toml (smol-toml), which the team commands' bundle does not carry.
  const { downList } = await import("./_status-down-read.js");
  const down = await downList(context, members);
  if (context.json)
    return context.emit({
      ...statusDocument(team, members, scan, agents, warnings, store, down),
      leases: leases.json,
      board,
      land,
    });
  for (const warning of [...warnings, ...scan.warnings]) context.warn(warning);
  context.out(renderStatus(context, team, members, scan, agents, store, down) + leases.text);
  if (board.held.length > 0 || board.blocked.length > 0 || board.lead)
    context.out(renderInProgress(context, board));
  const landing = landQueueLine(land);
  if (landing) context.out(landing);
}

export async function rosterCommand(context: Context, options: { all: boolean }) {
  const { members, warnings } = await readMembers(context, options.all);
  if (context.json) return context.emit({ members, warnings });
  for (const warning of warnings) context.warn(warning);
  context.out(renderMembers(context, members).join("\n"));
}
