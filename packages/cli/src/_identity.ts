// Who is asking: the agent this shell belongs to (the core rule, through @muster/wiring). Its pid
// and start time make a stable member id, so every `muster` call from one agent is one member.
import { type Caller, callerId } from "@muster/core";
import { findMyAgent } from "@muster/wiring";
import type { Context } from "./_context.js";

/** The agent this command belongs to, with the member id it goes by. */
export type IdentifiedCaller = Caller & { id: string };

/** The caller as a member: `--id` wins for the id; the process is always the real ancestor. */
export async function resolveCaller(
  context: Context,
  explicitId?: string,
): Promise<IdentifiedCaller> {
  const found = findMyAgent(await context.processes(), process.ppid);
  if (!found) {
    throw new Error("cannot find this command's parent process in the process table; pass --id");
  }
  return { ...found, id: explicitId ?? callerId(found) };
}
