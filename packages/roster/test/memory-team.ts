// A roster on an in-memory folder with members already joined, for the unit tests that start from
// a small team: member `s1` is the first label, `s2` the second, and so on.
import { openRoster, type Roster } from "../src/index.js";
import { memoryFs } from "./memory-fs.js";

export async function memoryTeam(options: {
  dir: string;
  clock: () => number;
  labels: readonly string[];
  /** The labels kept for members that are down (as a host reading its team file gives them). */
  held?: () => Promise<{ label: string; id: string; since: string }[]>;
}): Promise<{ memory: ReturnType<typeof memoryFs>; roster: Roster }> {
  const memory = memoryFs({ uid: 1, now: options.clock });
  const opened = await openRoster({
    dir: options.dir,
    fs: memory.fs,
    clock: options.clock,
    processes: { alive: () => "unknown" },
    held: options.held,
  });
  if (!opened.ok) throw new Error(opened.error);
  for (const [index, label] of options.labels.entries()) {
    await opened.roster.join({
      id: `s${index + 1}`,
      label,
      agent: "pi",
      pid: 10,
      watching: { armed: true, wake: true },
      liveness: "heartbeat",
    });
  }
  return { memory, roster: opened.roster };
}
