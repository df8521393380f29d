// `muster stop <label>` and `muster spawn --list`: what muster spawned, and ending it. A pane is
// closed only when the leaf decides it is still the one muster opened (server pid, pane id, the
// pid it started and that pid's start time): the wiring's endSpawned, which `muster down` ends by.
import { printable, withSuggestion, worktreeAfterStop, worktreeRemovedLine } from "@muster/core";
import type { SpawnRecord } from "@muster/tmux";
import {
  claimEnding,
  codexDaemonsOf,
  endSpawned,
  judgeSpawned,
  markEnded,
  markSpawnedEnding,
  quitTarget,
  readKeptDaemons,
  readSpawnRecord,
  readSpawnRecords,
  removeSpawnRecord,
  removeWorktree,
  settleDaemonsFound,
  spawnedState,
  worktreeFacts,
  writeKeptDaemons,
} from "@muster/wiring";
import { type Context, Refusal } from "./_context.js";

const judge = (context: Context, record: SpawnRecord) => judgeSpawned(context.run, record);

/** What stop did with the member's worktree, if spawn made one: removed, kept (and why), none. */
type WorktreeOutcome = { path: string; branch: string; removed: boolean; line: string | undefined };

/**
 * The worktree `spawn --worktree` made, once its agent is gone: removed when clean (core decides;
 * git's own remove, never forced, refuses changes made meanwhile), else kept and said so.
 */
async function settleWorktree(
  record: SpawnRecord,
  keep: boolean,
): Promise<WorktreeOutcome | undefined> {
  const worktree = record.worktree;
  if (!worktree) return undefined;
  const facts = await worktreeFacts(worktree.path);
  const decision = worktreeAfterStop({ label: record.label, ...worktree }, facts, keep);
  if (decision.action !== "remove") return { ...worktree, removed: false, line: decision.line };
  const failed = await removeWorktree(facts.entries![0]!.path, worktree.path);
  if (failed === undefined)
    return { ...worktree, removed: true, line: worktreeRemovedLine(worktree) };
  return {
    ...worktree,
    removed: false,
    line: `its worktree ${worktree.path} is kept: git worktree remove refused (${failed})`,
  };
}

const worktreeJson = (outcome: WorktreeOutcome | undefined) =>
  outcome
    ? {
        path: outcome.path,
        branch: outcome.branch,
        removed: outcome.removed,
        note: outcome.line ?? null,
      }
    : null;

/** The member's end, marked first: its engine asked to quit, its pane closed, record and worktree settled. */
async function endMember(
  context: Context,
  record: SpawnRecord,
  keepWorktree: boolean,
  roster: Awaited<ReturnType<Context["roster"]>>,
) {
  const team = await context.team();
  // Marked before it is ended: its death is a stop, not a crash (core's memberEnd); and an `up`
  // after this stop is killed waits for it to go, even once it left the roster on its way out.
  await markSpawnedEnding(team, roster, record, "stop");
  // Politely first: the engine's own quit (its launch row's signal), to the engine's process as
  // discovery finds it in the pane (a wrapper may sit between), else to the process muster started;
  // then its pane, by the rule `muster down` closes by too (the wiring's endSpawned).
  const asked = await quitTarget(context.run, record);
  const kept = record.engine === "codex" ? await readKeptDaemons(team) : [];
  const found = await codexDaemonsOf(record, asked.pid, kept);
  const { quit, closed: ours } = await endSpawned(context.run, record, asked);
  await removeSpawnRecord(team, record.label);
  // The worktree only once its agent is over (it quit, or its pane closed with it).
  const worktree =
    quit || ours
      ? await settleWorktree(record, keepWorktree)
      : record.worktree && {
          ...record.worktree,
          removed: false,
          line: `its worktree ${record.worktree.path} is kept: its agent may still run there`,
        };
  return { quit, worktree, found };
}

export async function stopCommand(context: Context, label: string, keepWorktree = false) {
  const team = await context.team();
  const record = await readSpawnRecord(team, label);
  if (!record) {
    const { records } = await readSpawnRecords(team);
    throw new Refusal(
      "not-spawned",
      withSuggestion(
        {
          error: `muster has no record of spawning "${label}": it closes only panes it opened`,
          fix: "muster spawn --list shows them",
        },
        label,
        records.map((each) => each.label),
      ),
    );
  }
  const decision = await judge(context, record);
  if (!decision.ok) {
    if (decision.forget) await removeSpawnRecord(team, record.label);
    if (decision.reason === "gone") {
      // Stopped, not crashed: a member that died before its stop is put away by it.
      await markEnded(await context.roster(), record.label, "stop");
      // Its pane is gone, so is its agent: what it leaves in its worktree is settled the same way.
      const worktree = await settleWorktree(record, keepWorktree);
      if (context.json)
        return context.emit({
          ok: true,
          label: record.label,
          state: "gone",
          worktree: worktreeJson(worktree),
        });
      context.out(printable(decision.error));
      if (worktree?.line) context.out(printable(worktree.line));
      return;
    }
    throw new Refusal(decision.reason, decision, { label: record.label });
  }
  // Its label held as a spawn holds it until its record and worktree are settled: an `up` once its
  // engine is gone opens nothing this stop would then remove (the wiring's claimEnding).
  const roster = await context.roster();
  const claim = await claimEnding(roster, record, "stop");
  let ended: Awaited<ReturnType<typeof endMember>>;
  try {
    ended = await endMember(context, record, keepWorktree, roster);
  } finally {
    await claim?.release();
  }
  const { quit, worktree, found } = ended;
  // Its Codex daemon, once the Codex is over: ended where no other Codex of its home is left.
  const daemon = await settleDaemonsFound([found]);
  if (record.engine === "codex") await writeKeptDaemons(team, daemon?.kept ?? []);
  // `quit`: the engine ended on its own quit; else closing the pane ended it.
  if (context.json)
    return context.emit({
      ok: true,
      label: record.label,
      state: "stopped",
      quit,
      worktree: worktreeJson(worktree),
      daemon: daemon ? { pids: daemon.pids, ended: daemon.ended, note: daemon.line } : null,
    });
  const how = quit ? "it quit" : "it did not quit in 5 s; its pane was closed";
  context.out(
    printable(`stopped ${record.label} (${record.engine} in pane ${record.pane}): ${how}`),
  );
  if (worktree?.line) context.out(printable(worktree.line));
  if (daemon) context.out(printable(daemon.line));
}

export async function spawnListCommand(context: Context) {
  const { records, warnings } = await readSpawnRecords(await context.team());
  for (const warning of warnings) context.warn(warning);
  const rows = await Promise.all(
    records.map(async (record) => ({ record, state: await spawnedState(context.run, record) })),
  );
  if (context.json)
    return context.emit({
      spawned: rows.map(({ record, state }) => ({
        label: record.label,
        engine: record.engine,
        pane: record.pane,
        pid: record.pid,
        server: record.server,
        by: record.by,
        at: record.at,
        worktree: record.worktree ?? null,
        state,
      })),
    });
  if (rows.length === 0) return context.out("muster has spawned nothing here");
  for (const { record, state } of rows)
    context.out(
      printable(
        `${record.label}  ${record.engine}  pane ${record.pane}  pid ${record.pid}  ${state}  by ${record.by.label ?? record.by.pane}`,
      ),
    );
}
