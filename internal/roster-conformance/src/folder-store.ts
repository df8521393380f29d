// The folder store as the conformance suite's harness: each team a fresh folder under the system's
// temp folder, opened with Node's real filesystem; a raw value planted as the file the folder store
// reads; a child process opens the same folder. Also the worker module (openConformanceRoster).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, nodeSleep, processFacts } from "@muster/node";
import { openRoster, type Roster } from "@muster/roster";
import type { ConformanceHarness, TeamEffects } from "./harness.ts";

async function openFolder(dir: string, effects: TeamEffects): Promise<Roster> {
  const opened = await openRoster({ dir, fs: nodeFs, sleep: nodeSleep, ...effects });
  if (!opened.ok) throw new Error(opened.error);
  return opened.roster;
}

/** The worker's way in: the folder named by `config`, with the real clock and process facts. */
export function openConformanceRoster(config: string): Promise<Roster> {
  return openFolder(config, { clock: Date.now, processes: processFacts });
}

export const folderHarness: ConformanceHarness = {
  name: "folder",
  async newTeam() {
    const scratch = mkdtempSync(path.join(tmpdir(), "muster-conformance-"));
    const dir = path.join(scratch, "team");
    // Made now, so a value planted before the first open has its folder.
    await openFolder(dir, { clock: Date.now, processes: processFacts });
    const put = (folder: string, name: string, text: string) => {
      mkdirSync(path.join(dir, folder), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, folder, name), text, { mode: 0o600 });
    };
    return {
      open: (effects) => openFolder(dir, effects),
      async plant(space, key, text) {
        put(space, `${key}${space === "locks" ? ".lock" : ".json"}`, text);
      },
      async plantMail(member, id, text) {
        put(path.join("mail", member, "new"), `${id}.json`, text);
      },
      worker: { module: import.meta.filename, config: dir },
      async close() {
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  },
};
