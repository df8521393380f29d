// pi wake latency: mail written to an idle pi member that lets mail wake it → pi starting the
// turn for it (its `agent_start` event on the RPC stream), with real pi 1.6.0 sessions in RPC mode
// (the faux model, offline, a throwaway home each) running muster's built extension. The core wake
// policy lets mail wake a member six times a minute, so the samples come from several sessions.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { Pi, type PiRecord } from "../../packages/pi-extension/test/pi-rpc.ts";
import { type BenchRow, median, percentile } from "../src/bench-kit.ts";

const SESSIONS = 4;
/** Wakes per session: the policy's six a minute, the first of each a warm-up. */
const WAKES = 6;

/** The next record from now on that passes `test` (records already seen do not count). */
function next(pi: Pi, test: (record: PiRecord) => boolean, what: string) {
  const seen = pi.records.length;
  return pi.waitFor((record) => pi.records.indexOf(record) >= seen && test(record), what);
}

export async function run(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(path.join(tmpdir(), "muster-bench-pi-wake-"));
  const dir = path.join(scratch, "team");
  const cwd = path.join(scratch, "work");
  mkdirSync(cwd);
  const sessions: Pi[] = [];
  try {
    for (let index = 0; index < SESSIONS; index += 1) {
      sessions.push(
        new Pi({
          cwd,
          args: ["--muster-label", `pi-${index}`],
          env: { MUSTER_TEAM_DIR: dir },
        }),
      );
    }
    await Promise.all(
      sessions.map(async (pi, index) => {
        await pi.waitFor(
          (record) => record.method === "setStatus" && String(record.statusText).startsWith("⚑"),
          "the join",
        );
        const armed = await pi.prompt(`/team join pi-${index} --wake`);
        if (armed.success !== true) throw new Error(`pi-${index}: ${JSON.stringify(armed)}`);
      }),
    );
    const roster = await openTestTeam(dir);
    await joinAsThisProcess(roster, "sender", "sender");
    const woken: number[] = [];
    for (let round = 0; round < WAKES; round += 1) {
      for (const [index, pi] of sessions.entries()) {
        const started = next(pi, (record) => record.type === "agent_start", "the woken turn");
        const ended = next(pi, (record) => record.type === "agent_end", "the turn to end");
        const sent = await roster.send({
          from: "sender",
          to: `pi-${index}`,
          body: `mail ${round}`,
        });
        if (!sent.ok) throw new Error(sent.error);
        await started;
        const at = Date.now();
        await ended;
        if (round > 0) woken.push(at - Date.parse(sent.sentAt));
      }
    }
    const p95 = percentile(woken, 95);
    return [
      {
        name: `pi wake: mail written → its turn started (real pi, ${woken.length} wakes over ${SESSIONS} sessions)`,
        medianMs: median(woken),
        note: `p95 ${p95.toFixed(0)} ms, max ${Math.max(...woken).toFixed(0)} ms`,
        target: { text: "p95 < 100 ms", met: p95 < 100 },
      },
    ];
  } finally {
    for (const pi of sessions) pi.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}
