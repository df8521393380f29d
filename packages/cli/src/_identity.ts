// Who is asking: the agent this shell belongs to. The walk up from the command's parent (through
// package managers and `sh -c` wrappers, to the nearest agent or interactive shell) is the
// reconciler's `findCaller`; its pid and start time make a stable member id, so every `muster`
// call from one agent is one member. Also the one not-member refusal every command gives.
import { BUILTIN_ENGINES, findCaller as walkUp } from "@muster/reconciler";
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

type Row = { pid: number; ppid: number; start: string; name: string; argv: readonly string[] };

/** The caller above `from`: see the reconciler's findCaller. */
export function findCaller(rows: readonly Row[], from: number) {
  return walkUp(rows, from, BUILTIN_ENGINES);
}

export const callerId = (caller: { engine: string | undefined; pid: number; start: string }) =>
  `${caller.engine ?? "shell"}-${caller.pid}-${caller.start}`;

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
  const found = findCaller(await context.processes(), process.ppid);
  if (!found.ok) throw new Refusal(found.reason, found.error);
  return { ...found, id: callerId(found), explicit: false };
}

/** The same caller for join, where the process is needed even with --id. */
export async function resolveProcess(context: Context, explicitId?: string): Promise<Caller> {
  const found = findCaller(await context.processes(), process.ppid);
  if (!found.ok) throw new Refusal(found.reason, found.error);
  return { ...found, id: explicitId ?? callerId(found), explicit: explicitId !== undefined };
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
