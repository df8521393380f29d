// `muster beat` (what a join of a process-backed member starts on a team on NATS): this host's
// beater, in the foreground until this host has no member left for it to beat. The rounds are
// wiring's runBeater; which members, core's hostBeats.
import { nodeSleep } from "@muster/node";
import { beaterLockName, runBeater } from "@muster/wiring";
import type { Context } from "./_context.js";

export async function beatCommand(context: Context) {
  const roster = await context.roster();
  if (roster.store.kind === "folder") {
    const line = "the team is on its folder here: every process's liveness is seen directly";
    return context.json
      ? context.emitLine({ ok: true, beating: false, reason: "folder", note: line })
      : context.out(`not beating: ${line}`);
  }
  // MUSTER_HEARTBEAT_MS tunes the interval (tests use a short one), as pi's own heartbeat.
  const intervalMs = Math.max(
    200,
    Number(context.io.env.MUSTER_HEARTBEAT_MS) || roster.policy.heartbeatIntervalMs,
  );
  const ended = await runBeater({
    roster,
    intervalMs,
    sleep: nodeSleep,
    lockName: beaterLockName(roster.store, context.io.env),
    onRound: (round) => {
      if (context.json && (round.beaten.length > 0 || round.left.length > 0))
        context.emitLine({ ok: true, beaten: round.beaten, left: round.left });
    },
  });
  if (!ended.ok) {
    const line = "another muster beat already beats this host's members of the team";
    return context.json
      ? context.emitLine({ ok: true, beating: false, reason: "held", note: line })
      : context.out(`not beating: ${line}`);
  }
  const why = ended.unreachable
    ? "the team could not be read for longer than its members live without a beat"
    : "no member of this host left to beat";
  if (context.json)
    context.emitLine({
      ok: true,
      beating: false,
      done: true,
      rounds: ended.rounds,
      ...(ended.unreachable ? { unreachable: true, note: why } : {}),
    });
  else context.out(`done: ${why} (${ended.rounds} rounds)`);
}
