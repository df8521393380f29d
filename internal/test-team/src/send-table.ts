// One table of sends every door answers the same way (the CLI's `send`, MCP's and pi's
// `team_send`): several labels go all or nothing, a label given twice is one address, and a label
// nobody holds is named with the live label nearest it. Each door's test runs every row.
import type { Roster } from "@muster/roster";
import { joinAsThisProcess } from "./peer.ts";

export type SendRow = {
  name: string;
  /** The door's `to`, as typed. */
  to: string;
  /** The peers that receive it, each once; none when it is refused. */
  reached: string[];
  /** The label refused (nothing sent), and the live label suggested for it, if one is near. */
  refused?: { label: string; suggestion?: string };
};

export const SEND_TABLE: readonly SendRow[] = [
  {
    name: "a good label and a typo: nothing sent, the typo named with a suggestion",
    to: "reviewer,writr",
    reached: [],
    refused: { label: "writr", suggestion: "writer" },
  },
  {
    name: "a label nobody is near: nothing sent, the label named",
    to: "reviewer,zzzzzz",
    reached: [],
    refused: { label: "zzzzzz" },
  },
  {
    name: "two labels, one repeated in another case: each reached once",
    to: "reviewer,writer,Reviewer",
    reached: ["reviewer", "writer"],
  },
];

/** The peers a row reads: `reviewer` and `writer`, live while this process is. */
export const SEND_PEERS = ["reviewer", "writer"] as const;

/** Join the table's peers; returns each peer's id by label. */
export async function joinSendPeers(roster: Roster): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const label of SEND_PEERS) ids[label] = await joinAsThisProcess(roster, label);
  return ids;
}

/** How many messages each peer holds, by label: what a row's `reached` is checked against. */
export async function mailCounts(
  roster: Roster,
  ids: Record<string, string>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [label, id] of Object.entries(ids)) {
    const inbox = await roster.receive(id);
    counts[label] = inbox.ok ? inbox.messages.length : -1;
  }
  return counts;
}

/** The counts a row expects: one message for each peer reached, none for the rest. */
export const expectedCounts = (row: SendRow): Record<string, number> =>
  Object.fromEntries(SEND_PEERS.map((label) => [label, row.reached.includes(label) ? 1 : 0]));
