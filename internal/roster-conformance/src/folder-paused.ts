// The folder store with one pause, as a worker module: a worker opened through it stops at one
// chosen filesystem operation of its own until the test lets it go, so a real process is caught at
// exactly that moment of a race (a taker that has moved the judged claim away, a joiner that has
// its claim but no mailbox yet). The config is JSON: the team folder, a gate folder, and the point.
// Reaching the point it writes `<gate>/paused`, and goes on once `<gate>/go` is there.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { nodeFs, nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster, type RosterFs } from "@muster/roster";

export type PausePoint = {
  dir: string;
  gate: string;
  /** `after-rename`: once a rename from a path ending so is done; `before-mkdir`: before a mkdir. */
  at: "after-rename" | "before-mkdir";
  suffix: string;
};

async function pause(gate: string) {
  writeFileSync(path.join(gate, "paused"), "");
  while (!existsSync(path.join(gate, "go"))) await nodeSleep(5);
}

function pausing(point: PausePoint): RosterFs {
  let paused = false;
  const once = async (matches: boolean) => {
    if (!matches || paused) return;
    paused = true;
    await pause(point.gate);
  };
  return {
    ...nodeFs,
    async rename(from, to) {
      await nodeFs.rename(from, to);
      await once(point.at === "after-rename" && from.endsWith(point.suffix));
    },
    async mkdir(folder, mode) {
      await once(point.at === "before-mkdir" && folder.endsWith(point.suffix));
      await nodeFs.mkdir(folder, mode);
    },
  };
}

/** The worker's way in: the team folder with the pause, the real clock and process facts. */
export async function openConformanceRoster(config: string): Promise<Roster> {
  const point = JSON.parse(config) as PausePoint;
  const opened = await openRoster({
    dir: point.dir,
    fs: pausing(point),
    sleep: nodeSleep,
    clock: Date.now,
    processes: processFacts,
  });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}
