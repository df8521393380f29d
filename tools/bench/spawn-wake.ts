// Wake latency of *spawned* members, per engine, in one run: `muster spawn pi|codex|claude` from a
// shell window of a private tmux server (each engine set up in ../src/bench-spawn-wake-engines.ts),
// then mail from a member this process keeps live → the spawned engine's turn starting. The core
// wake policy allows 6 wakes a minute per member: each engine's samples come from two spawned
// members, 6 wakes each, the first a warm-up; each mail waits for its recipient to be idle.

import { execFileSync } from "node:child_process";
import path from "node:path";
import { eventually } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { type BenchRow, median, percentile } from "../src/bench-kit.ts";
import {
  claudeEngine,
  codexEngine,
  type Engine,
  MUSTER,
  piEngine,
  readOr,
} from "../src/bench-spawn-wake-engines.ts";

const MEMBERS = 2;
const WAKES = 6;

/** Run `muster spawn …` from a new shell window of the engine's server, to its end. */
async function spawnFrom(engine: Engine, label: string) {
  const out = path.join(engine.scratch, `spawn-${label}`);
  const quoted = [process.execPath, MUSTER, ...engine.spawnArgs(label)]
    .map((arg) => `'${arg}'`)
    .join(" ");
  const script = `${quoted} > ${out}.json 2> ${out}.err; echo $? > ${out}.status; sleep 3600\n`;
  execFileSync("sh", ["-c", `cat > ${out}.sh`], { input: script });
  engine.server.tmux("new-window", "-d", "-c", engine.repo, `sh ${out}.sh`);
  await eventually(() => readOr(`${out}.status`).trim(), Boolean, `${label}'s spawn`, {
    attempts: 1800,
    intervalMs: 100,
  });
  const result = JSON.parse(readOr(`${out}.json`) || "{}");
  if (result.state !== "joined") {
    const pane = typeof result.pane === "string" ? result.pane : "main";
    const screen = engine.server.tmux("capture-pane", "-p", "-t", pane);
    throw new Error(`spawn ${label}: ${readOr(`${out}.err`)}; its pane:\n${screen}`);
  }
  await engine.ready?.(label);
}

/** Spawn the engine's members and wake each; the latencies after each member's warm-up. */
async function measureEngine(
  engine: Engine,
  members: number,
): Promise<{ times: number[]; missed: number }> {
  const labels = Array.from({ length: members }, (_, index) => `spawned-${index}`);
  for (const label of labels) await spawnFrom(engine, label);
  const roster = await openTestTeam(engine.teamDir);
  await joinAsThisProcess(roster, "bench", "bench-sender");
  const member = async (label: string) => {
    const read = await roster.read();
    return read.ok ? read.members.find((entry) => entry.label === label) : undefined;
  };
  const times: number[] = [];
  let missed = 0;
  for (let round = 0; round < WAKES; round += 1) {
    for (const label of labels) {
      const recipient = (await eventually(
        () => member(label),
        (record) => record?.activity?.state === "idle",
        `${label} to be idle`,
        { attempts: 600 },
      ))!;
      // A moment for the engine to settle after its turn (Claude Code's Stop hook).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const body = `bench mail ${round}.${label}`;
      const turn = engine.turnFor(body);
      const sent = await roster.send({ from: "bench-sender", to: label, body });
      if (!sent.ok) throw new Error(sent.error);
      // A wake not seen within its wait is counted, not measured: a benchmark reports, never fails.
      const at = await turn().catch(async (error: Error) => {
        // What its receipt says of it (a failed wake is named there; a rate-limited one is not).
        const receipt = await roster.receipt(sent.id).catch(() => undefined);
        console.error(
          `spawn-wake: ${engine.name} ${label} round ${round}: ${error.message}; receipt: ${JSON.stringify(receipt)}`,
        );
        return undefined;
      });
      if (at === undefined) missed += 1;
      else if (round > 0) times.push(at - Date.parse(sent.sentAt));
      await engine.read?.(roster, recipient.id, sent.id);
    }
  }
  return { times, missed };
}

/** Each engine's set-ups, and how many members each spawns. */
const RUNS: [string, () => Promise<Engine>, number][] = [
  ["pi", piEngine, MEMBERS],
  ["Codex", () => codexEngine(1), 1],
  ["Codex", () => codexEngine(1), 1],
  ["Claude Code", claudeEngine, MEMBERS],
];

export async function run(): Promise<BenchRow[]> {
  const samples = new Map<string, { times: number[]; missed: number }>();
  for (const [name, start, members] of RUNS) {
    const engine = await start();
    try {
      const measured = await measureEngine(engine, members);
      const before = samples.get(name) ?? { times: [], missed: 0 };
      samples.set(name, {
        times: [...before.times, ...measured.times],
        missed: before.missed + measured.missed,
      });
    } finally {
      await engine.close();
    }
  }
  return [...samples].map(([name, { times, missed }]) => ({
    name: `spawn-wake: ${name}, mail written → a spawned member's turn starting, p50`,
    medianMs: median(times),
    note: `p95 ${percentile(times, 95).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms; ${times.length} wakes over ${MEMBERS} members started by muster spawn, ${missed} not seen within its wait`,
  }));
}
