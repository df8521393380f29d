// `muster go [label]`: take the person to a member's pane (the one waiting longest, with none),
// only a seat on this host whose pane holds the member's process (core's `proveSeat`). The
// dashboard goes the same way (`goTo`).
import { chooseGo, printable, proveSeat, withSuggestion } from "@muster/core";
import { processAlive, processPlace } from "@muster/node";
import {
  attachCommand,
  findProcessSeat,
  goArgs,
  listClientsArgs,
  parseClients,
} from "@muster/tmux";
import { endWords } from "./_activity-view.js";
import { type Context, Refusal } from "./_context.js";
import { type MemberView, readMembers } from "./_status-read.js";

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

/** The ended member the person named, if the label names one and no live member holds it. */
const endedMember = (members: readonly MemberView[], label: string | undefined) =>
  label === undefined
    ? undefined
    : members.find((member) => member.end && member.label.toLowerCase() === label.toLowerCase());

/** Take the person to a live member's pane: switch the client, the window and the pane. */
export async function goTo(
  context: Context,
  members: readonly MemberView[],
  label: string | undefined,
): Promise<GoOutcome> {
  const live = members.filter((member) => member.state === "live");
  const choice = chooseGo(live, label);
  // A member that crashed (or was stopped, or is down) has no pane to go to: said, with what
  // brings it back.
  const ended = choice.ok ? undefined : endedMember(members, label);
  if (ended?.end)
    return {
      ok: false,
      reason: ended.end.kind,
      error: `${printable(ended.label)} ${endWords(ended.end)}`,
      fix: ended.end.fix,
    };
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
