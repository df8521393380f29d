// `muster status --line`: the team in one short line for tmux's status bar
// (`#(muster status --line)`, which `muster install tmux` adds): how many members work and idle,
// who needs the person (longest waiting first), and the mail waiting for them. No tmux call and no
// process table, because tmux runs it every few seconds: two git calls find the team (unless it is
// named), and the roster reads /proc for each member's process (status-line.test.ts counts them).
// `muster go [label]`: take the person to a member's pane (the one waiting longest, with none).
import {
  chooseGo,
  localeSpeaksUtf8,
  printable,
  proveSeat,
  teamLine,
  withSuggestion,
} from "@muster/core";
import { processAlive, processPlace } from "@muster/node";
import {
  attachCommand,
  findProcessSeat,
  goArgs,
  listClientsArgs,
  parseClients,
} from "@muster/tmux";
import { landQueue } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";
import { type MemberView, readMembers } from "./_status-read.js";

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
    ({ members } = await readMembers(context));
  } catch {
    // A status bar shows a mark, never a stack: the team folder could not be read.
    return context.out(context.json ? JSON.stringify({ ok: false }) : "muster: ?");
  }
  const line = teamLine(members.filter((member) => member.state === "live"));
  const utf8 = localeSpeaksUtf8(context.io.env);
  const land = await context
    .roster()
    .then(landQueue)
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

/** The outcome of taking the person to a member's pane: where, or why not and what to do. */
export type GoOutcome =
  | { ok: true; label: string; pane: string; server: string }
  | { ok: false; reason: string; error: string; fix?: string; suggestion?: string };

/** No client shows that server: what to type to see the member's session. */
const noClient = (seat: { server: string; session: string }) => ({
  ok: false as const,
  reason: "no-client",
  error: `no client is attached to the tmux server ${seat.server}`,
  fix: `attach one (${attachCommand({ socket: seat.server }, seat.session)}), then go again`,
});

/** Take the person to a live member's pane: switch the client, the window and the pane. */
export async function goTo(
  context: Context,
  members: readonly MemberView[],
  label: string | undefined,
): Promise<GoOutcome> {
  const live = members.filter((member) => member.state === "live");
  const choice = chooseGo(live, label);
  if (!choice.ok)
    return choice.reason === "no-such-member" && label !== undefined
      ? withSuggestion(
          choice,
          label,
          live.map((member) => member.label),
        )
      : choice;
  const { member } = choice;
  const seat = member.seat!;
  const server = { socket: seat.server };
  const proof = await seatFacts(context, member.id, seat);
  if (!proof.ok) return proof;
  // Inside tmux, the client this shell's is; outside (a key binding's run-shell, another terminal),
  // the server's first attached client.
  const here = context.here?.server.socket === seat.server;
  let client: string | undefined;
  if (!here) {
    const listed = await context.run(listClientsArgs(server));
    client = listed.status === 0 ? parseClients(listed.stdout).clients[0]?.name : undefined;
    if (!client) return noClient(seat);
  }
  const moved = await context.run(goArgs(server, client, seat.pane));
  // From a pane of a session no terminal shows (the dashboard in a detached session), tmux has no
  // client to move: that, not a closed pane, is what the person must hear.
  if (moved.status !== 0 && here) {
    const listed = await context.run(listClientsArgs(server));
    if (listed.status === 0 && parseClients(listed.stdout).clients.length === 0)
      return noClient(seat);
  }
  if (moved.status !== 0)
    return {
      ok: false,
      reason: "go-failed",
      error: `tmux could not show pane ${seat.pane}: ${printable(moved.stderr.trim().split("\n")[0] ?? "")}; is it still open? (muster status)`,
    };
  return { ok: true, label: member.label, pane: seat.pane, server: seat.server };
}

/** The facts core's proveSeat judges: the record's place, its process here, the pane holding it. */
async function seatFacts(context: Context, id: string, seat: { server: string; pane: string }) {
  const read = await (await context.roster()).read();
  const record = read.ok ? read.members.find((entry) => entry.id === id) : undefined;
  const label = record?.label ?? id;
  const herePlace = processPlace();
  const here = { memberPlace: record ? record.place : herePlace, herePlace };
  // Gone from the roster since it was read: nothing holds the pane for it.
  if (!record)
    return proveSeat({ label, seat }, { ...here, process: "dead", paneHolding: undefined });
  if (record.place !== herePlace)
    return proveSeat({ label, seat }, { ...here, process: "unknown", paneHolding: undefined });
  const found = await findProcessSeat(context.run, await context.processes(), record.pid, {
    target: { socket: seat.server },
  });
  return proveSeat(
    { label, seat },
    {
      ...here,
      process: processAlive(record.pid, record.pidStart),
      paneHolding: found.ok ? found.seat.pane : undefined,
    },
  );
}

export async function goCommand(context: Context, label: string | undefined) {
  const { members } = await readMembers(context);
  const gone = await goTo(context, members, label);
  if (!gone.ok) throw new Refusal(gone.reason, gone);
  if (context.json)
    return context.emit({ label: gone.label, pane: gone.pane, server: gone.server });
  context.out(`${printable(gone.label)}: pane ${printable(gone.pane)}`);
}
