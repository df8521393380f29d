// What `muster up` looks at before it starts anything: which wanted members are live already (on
// the roster under their label, or their pane still the one muster opened), and whether each
// engine it would start can work (the door's `ready`, asked once per engine and arguments, at
// once): one that cannot refuses the whole `up`, nothing opened.
import { holderOf } from "@muster/core";
import type { SpawnRecord } from "@muster/tmux";
import { readSpawnRecord } from "./spawn-records.ts";
import type { SpawnFailure } from "./spawn-types.ts";
import { judgeSpawned } from "./spawned.ts";
import type { TeamEffects } from "./team-up-types.ts";

/** Is the member live: on the roster under its label, or its pane still the one muster opened? */
export async function liveNow(
  effects: TeamEffects,
  label: string,
  record: SpawnRecord | undefined,
) {
  const read = await effects.roster.read();
  const holder = read.ok ? holderOf(read.members, label) : undefined;
  if (holder) return holder;
  if (record && record.down === undefined && (await judgeSpawned(effects.run, record)).ok)
    return { id: undefined };
  return undefined;
}

/** The first wanted member that is not live and whose engine cannot work: the refusal, named for it. */
export async function refuseUnready(
  wanted: readonly { label: string; engine: string; args: readonly string[] }[],
  effects: TeamEffects,
  cwd: string,
): Promise<SpawnFailure | undefined> {
  const { ready } = effects;
  if (!ready) return undefined;
  const asked = new Map<string, Promise<SpawnFailure | undefined>>();
  const answers = await Promise.all(
    wanted.map(async (member) => {
      const record = await readSpawnRecord({ dir: effects.teamDir }, member.label);
      if (await liveNow(effects, member.label, record)) return undefined;
      const key = JSON.stringify([member.engine, member.args]);
      if (!asked.has(key)) asked.set(key, ready({ engine: member.engine, args: member.args, cwd }));
      const refusal = await asked.get(key);
      return refusal && { ...refusal, error: `${member.label}: ${refusal.error}` };
    }),
  );
  return answers.find((answer) => answer !== undefined);
}

/**
 * How long a resumed engine may take, once it joined, to watch its new mailbox: Claude Code sets
 * its watch from its join's answer (the SessionStart hook's watchPaths) a moment after the join.
 */
const WATCH_GRACE_MS = 3000;

/**
 * Bring the mail that waited for a member while it was down to the id it came back under (a
 * resumed Claude Code's is new). Forwarded before its engine watches that mailbox, the delivery's
 * ring goes unseen and the mail waits for its next prompt instead of waking it (a real Claude Code
 * in team-up-three.test.ts): so only once the engine had the time to start watching.
 */
export async function forwardWaiting(
  effects: TeamEffects,
  from: { id: string; label: string },
  to: string,
) {
  if (from.id === to) return;
  const waiting = await effects.roster.receive(from.id);
  if (!waiting.ok || waiting.messages.length === 0) return;
  await new Promise((resolve) => setTimeout(resolve, WATCH_GRACE_MS));
  await effects.roster.forwardMail(from, to);
}
