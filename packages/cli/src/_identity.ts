// Who is asking: the agent this shell belongs to (the core rule, through @muster/wiring): the walk
// up from the command's parent passes through package managers and `sh -c` wrappers to the nearest
// agent or interactive shell. The member is that agent's session where its engine names one to
// its shell (Codex's thread, pi's session: the id its other doors use), else its pid and start
// time: every `muster` call from one agent is one member, the same its engine's tools, MCP server,
// hooks and git guard see. Also the one not-member refusal every command gives.
import { memberIdOf, sandboxedMemberId } from "@muster/core";
import { findMyAgent } from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";

export type Caller = {
  id: string;
  pid: number;
  start: string;
  agent: string;
  engine: string | undefined;
  /** True when the id came from --id rather than from the process walk. */
  explicit: boolean;
};

/** The caller as a member: `--id` wins for the id and needs no walk. */
export async function resolveCaller(context: Context, explicitId?: string): Promise<Caller> {
  if (explicitId !== undefined)
    return {
      id: explicitId,
      pid: 0,
      start: "",
      agent: "member",
      engine: undefined,
      explicit: true,
    };
  const found = findMyAgent(await context.processes(), process.ppid);
  // In Codex's sandbox the walk cannot reach Codex: its thread names the member to act as.
  const sandboxed = sandboxedMemberId(found, context.io.env);
  if (!found.ok && sandboxed !== undefined && found.reason === "sandboxed")
    return {
      id: sandboxed,
      pid: 0,
      start: "",
      agent: found.engine,
      engine: found.engine,
      explicit: true,
    };
  if (!found.ok) throw new Refusal(found.reason, found);
  return { ...found, id: memberIdOf(found, context.io.env), explicit: false };
}

/** The caller's process, which join needs even with --id. */
export async function resolveProcess(context: Context, explicitId?: string): Promise<Caller> {
  const found = findMyAgent(await context.processes(), process.ppid);
  if (!found.ok) throw new Refusal(found.reason, found);
  const id = explicitId ?? memberIdOf(found, context.io.env);
  return { ...found, id, explicit: explicitId !== undefined };
}

/** The one refusal for a command from someone not on the team, with its fix. */
export function notMember(caller: Pick<Caller, "id" | "agent" | "pid" | "explicit">): Refusal {
  const who = caller.explicit
    ? `member id "${caller.id}"`
    : `this shell's ${caller.agent} (pid ${caller.pid})`;
  return new Refusal(
    "not-member",
    `${who} is not on the team; join first with muster join <label>${caller.explicit ? ", or pass an id from muster roster --json" : ""}`,
    { id: caller.id },
  );
}

/** The agent this command belongs to, with the member id it goes by. */
export type IdentifiedCaller = Caller;
