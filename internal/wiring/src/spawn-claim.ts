// The label a spawn opens a pane for: chosen (asked for, or generated), refused when a member
// holds it or a pane muster spawned for it still runs, and claimed before any pane opens: two
// spawns of one label at once (two team_spawn calls, two shells) would both pass those checks and
// both open a pane. The claim is the roster's exclusive claim in the `spawns` space, held by this
// spawn for as long as it runs; a second spawn of the label is refused with who holds it, and
// opens nothing. A spawner that died holding it (proven dead by pid and start time) frees it.
import { randomBytes } from "node:crypto";
import { chooseLabel, heldLabels, holderOf } from "@muster/core";
import { processStart } from "@muster/node";
import type { Claim, Member, Roster } from "@muster/roster";
import type { TmuxRunner } from "@muster/tmux";
import { checkLabel, readSpawnRecord } from "./spawn-records.ts";
import { SpawnRefusal } from "./spawn-refusal.ts";
import { closeEndedPane, judgeSpawned, provenDead } from "./spawned.ts";

/** What the label's checks read: the roster, the team folder's spawn records, their panes. */
type LabelEffects = { roster: Roster; teamDir: string; run: TmuxRunner };

/** A label for the new agent: the one asked for, or a generated one no member holds. */
export async function chooseSpawnLabel(
  effects: LabelEffects,
  engine: string,
  asked: string | undefined,
): Promise<{ label: string; members: readonly Member[] }> {
  const read = await effects.roster.read();
  const members = read.ok ? read.members : [];
  const held = heldLabels(members);
  const label =
    asked !== undefined
      ? checkLabel(asked)
      : chooseLabel({ taken: held, random: Math.random, prefix: engine }).label;
  await refuseTaken(effects, label, members);
  return { label, members };
}

/**
 * Refused when a member holds the label (one proven dead holds it for no one: the join takes it
 * over), or a pane muster spawned for it is still the one it opened and its process not proven
 * ended. One whose process ended (kept dead, or a zombie tmux has not reaped) is closed, as `up`
 * closes it (`closeEndedPane`): it runs nothing, and the new spawn takes its label.
 */
export async function refuseTaken(
  effects: LabelEffects,
  label: string,
  members: readonly Member[],
) {
  const holder = holderOf(members, label);
  if (holder && !provenDead(holder))
    throw new SpawnRefusal("label-held", `"${label}" is held on the team`, "pick another label");
  const previous = await readSpawnRecord({ dir: effects.teamDir }, label);
  if (
    previous &&
    (await judgeSpawned(effects.run, previous)).ok &&
    !(await closeEndedPane(effects.run, previous))
  )
    throw new SpawnRefusal(
      "label-spawned",
      `muster already runs "${label}" in pane ${previous.pane}`,
      `stop it with muster stop ${label}, or pick another label`,
    );
}

/** A spawn waits at most its own time limit: a claim older than this names no running spawn. */
export const SPAWN_CLAIM_MS = 30 * 60_000;

/**
 * Who is spawning, as the claim records it and a refusal names it; `ending`: a stop or down that
 * holds the label while it ends the member (`claimEnding`), not a spawn.
 */
export type Spawner = {
  pane: string;
  label?: string | undefined;
  ending?: "stop" | "down" | undefined;
};

/** The claim held: release it when the spawn is over, whatever its outcome. */
export type SpawnClaim = { release(): Promise<void> };

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** "from pane %3 (bob), pid 4242": who holds a claim, from what it recorded. */
function heldBy(claim: Claim): string {
  const data = claim.data ?? {};
  const label = text(data.label);
  const pane = text(data.pane);
  const where = pane ? ` from pane ${pane}${label ? ` (${label})` : ""}` : "";
  return `${where}${typeof data.pid === "number" ? `, pid ${data.pid}` : ""}`;
}

/** Claim `label` for this spawn, or refuse: another spawn of it is running now. */
export async function claimSpawnLabel(
  roster: Roster,
  label: string,
  spawner: Spawner,
): Promise<SpawnClaim> {
  const holder = `spawn-${process.pid}-${randomBytes(6).toString("hex")}`;
  const claimed = await roster.claim<Claim>({
    space: "spawns",
    key: label,
    holder,
    data: {
      pane: spawner.pane,
      ...(spawner.label ? { label: spawner.label } : {}),
      ...(spawner.ending ? { ending: spawner.ending } : {}),
    },
    // Free once the spawning process is proven dead or the claim is past its age (the roster's rule).
    heldBy: { pid: process.pid, start: processStart(process.pid) },
    maxAgeMs: SPAWN_CLAIM_MS,
  });
  if (claimed.ok)
    return { release: () => roster.releaseClaim("spawns", label, holder).then(() => undefined) };
  if (claimed.reason === "bad-key") throw new SpawnRefusal("bad-label", claimed.error, claimed.fix);
  const current = claimed.reason === "held" ? claimed.held : claimed.current;
  // A stop or down ending the member holds it too (claimEnding).
  const ending = text(current?.data?.ending);
  throw new SpawnRefusal(
    "label-spawning",
    `muster ${ending ? `${ending} is ending` : "is spawning"} "${label}" right now${current ? heldBy(current) : ""}: nothing opened`,
    `wait for that ${ending ?? "spawn"} to finish (muster spawn --list), or pick another label`,
  );
}

/**
 * Hold the label, as a spawn does, while a stop or a down ends its member: an `up` or a spawn of
 * it meanwhile (its engine gone, the stop or down not done) is refused, instead of opening a pane
 * whose record the stop would then remove, or the down write over. Freed at once if this process
 * is killed (the claim names it). Undefined where a spawn holds it now: the stop or down goes on.
 */
export async function claimEnding(
  roster: Roster,
  record: { label: string; pane: string },
  by: "stop" | "down",
): Promise<SpawnClaim | undefined> {
  try {
    return await claimSpawnLabel(roster, record.label, { pane: record.pane, ending: by });
  } catch {
    return undefined;
  }
}
