// Which member an agent in a pane is. The roster says who joined; discovery says which engines sit
// in which panes; this rule joins the two. Only a live member names an agent.

/** As much of a member as the match reads (a roster member fits). */
export type MemberOfPane = {
  label: string;
  state: "live" | "gone" | "expired";
  pid: number;
  seat?: { server: string; pane: string } | null | undefined;
};

/** As much of a discovered agent as the match reads (a reconciler agent fits). */
export type AgentInPane = { pid: number; pane: string; server: string | undefined };

/**
 * The live member this agent is: the one whose process it is, else the one seated in its pane on
 * its server (an agent whose server is not known matches by process only). The process wins: a seat says where a member joined, the process is the member.
 */
export function memberOfAgent<Member extends MemberOfPane>(
  agent: AgentInPane,
  members: readonly Member[],
): Member | undefined {
  const live = members.filter((member) => member.state === "live");
  return (
    live.find((member) => member.pid === agent.pid) ??
    live.find((member) => member.seat?.pane === agent.pane && member.seat?.server === agent.server)
  );
}
