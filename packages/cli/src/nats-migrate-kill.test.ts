// `muster migrate` SIGKILLed at several points, the built binary on a real nats-server: mid-copy
// to NATS, mid-copy back to the folder, and mid-clear of NATS on the way back. Each time the team
// is whole where muster uses it (the source is untouched until the copy is read back whole), and
// the next run goes on from what the killed one left — never refused, never a new empty team —
// and a run after that has nothing left to move and says where the folder was kept.
// The child is held half way (MUSTER_MIGRATE_PAUSE) and killed once it says so, not raced.
// The three kills are crash rounds, and the hold point that goes on by itself sits out its 10 s:
// both `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs; nats-migrate.test.ts keeps the whole
// migrate both ways in `pnpm test`.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { nodeFs } from "@muster/node";
import { openFolderStore, type RosterStore } from "@muster/roster";
import { LONG_TESTS, NATS_SERVER_MISSING, tmuxEnv } from "@muster/test-support";
import { chooseStore, closeTeams, readContents, type StoreContents } from "@muster/wiring";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { MUSTER, musterKit } from "../test/run.ts";

const { scratch, muster } = musterKit("muster-cli-migrate-kill-");
const repo = clone(scratch, "repo");
let team: NatsTeam;
const closers: (() => Promise<void>)[] = [];
// Enough that half way through a copy or a clear is well inside it.
const CARDS = 60;

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, repo, ["alice"]);
}, 60_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await closeTeams();
  await team?.server.stop();
});

async function stores(): Promise<{ folder: RosterStore; nats: RosterStore; dir: string }> {
  const chosen = await chooseStore({
    cwd: repo,
    env: { ...process.env, HOME: scratch, ...team.env("alice") },
  });
  if (!chosen.ok || chosen.store !== "nats") throw new Error("not on NATS");
  const folder = await openFolderStore({ dir: chosen.folder.dir, fs: nodeFs, clock: Date.now });
  if (!folder.ok) throw new Error(folder.error);
  const { openNatsStore } = await import("@muster/nats");
  const nats = await openNatsStore(chosen.settings, chosen.team);
  if (!nats.ok) throw new Error(nats.error);
  closers.push(nats.close);
  return { folder: folder.store, nats: nats.store, dir: chosen.folder.dir };
}

const held = (contents: StoreContents) =>
  contents.spaces.map((entry) => `${entry.space}/${entry.key} ${entry.text}`).sort();

/**
 * `muster migrate --to <to>` as a child, held half way through `step` (`MUSTER_MIGRATE_PAUSE`) and
 * SIGKILLed once it says it is there: the kill lands part way on any machine, however loaded.
 * False when the child ended without reaching the step.
 */
async function killedMidway(to: string, step: "copy" | "clear"): Promise<boolean> {
  const child = spawn(process.execPath, [MUSTER, "migrate", "--to", to, "--json"], {
    cwd: repo,
    env: tmuxEnv({ HOME: scratch, ...team.env("alice"), MUSTER_MIGRATE_PAUSE: step }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let said = "";
  let killed = false;
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    said += chunk;
    if (!killed && said.includes(`muster migrate: paused at ${step}\n`))
      killed = child.kill("SIGKILL");
  });
  await exited;
  return killed;
}

const count = async (store: RosterStore) => (await store.list("cards")).entries.length;

describe.skipIf(NATS_SERVER_MISSING)("muster migrate, killed", () => {
  test.skipIf(!LONG_TESTS)(
    "mid-copy, mid-copy back and mid-clear: the next run finishes, the team never smaller",
    async () => {
      const { folder, nats, dir } = await stores();
      for (let index = 0; index < CARDS; index += 1)
        await folder.put("cards", `k${index}`, `{"card":${index}}\n`);
      const team0 = held(await readContents(folder));
      const env = team.env("alice");

      // To NATS, killed once part of the copy is there: the folder (the live team) is untouched.
      expect(await killedMidway("nats", "copy")).toBe(true);
      const partial = await count(nats);
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(CARDS);
      expect(held(await readContents(folder))).toEqual(team0);
      const resumed = await muster(["migrate", "--to", "nats", "--json"], { cwd: repo, env });
      const report = JSON.parse(resumed.stdout);
      expect(report).toMatchObject({ ok: true });
      expect(existsSync(report.keptAt)).toBe(true);
      expect(held(await readContents(nats))).toEqual(team0);
      // Again: nothing left to move, and where the folder was kept.
      const again = await muster(["migrate", "--to", "nats", "--json"], { cwd: repo, env });
      expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, keptAt: report.keptAt });
      expect(JSON.parse(again.stdout).next).toContain(`kept at ${report.keptAt}`);
      expect(held(await readContents(nats))).toEqual(team0);

      // Back to the folder, killed mid-copy: NATS (the live team) untouched; then killed mid-clear.
      const { folder: back } = await stores();
      expect(await killedMidway("folder", "copy")).toBe(true);
      expect(await count(back)).toBeGreaterThan(0);
      expect(await count(back)).toBeLessThan(CARDS);
      expect(held(await readContents(nats))).toEqual(team0);
      expect(await killedMidway("folder", "clear")).toBe(true);
      expect(await count(nats)).toBeGreaterThan(0);
      expect(await count(nats)).toBeLessThan(CARDS);
      expect(held(await readContents(back))).toEqual(team0);
      const finished = await muster(["migrate", "--to", "folder", "--json"], { cwd: repo, env });
      expect(JSON.parse(finished.stdout)).toMatchObject({ ok: true });
      expect(held(await readContents(back))).toEqual(team0);
      expect(held(await readContents(nats))).toEqual([]);
      expect(readdirSync(path.dirname(dir)).filter((name) => name.includes(".old"))).toEqual([]);
    },
    120_000,
  );

  test.skipIf(!LONG_TESTS)(
    "held by a pause nobody ends, it goes on by itself: a hold point never hangs a migrate",
    async () => {
      // The team is in the folder (where it starts, and where the test above leaves it), with
      // something to copy (the cards the test above made, under test:long); held mid-copy to NATS
      // and never killed.
      const { folder } = await stores();
      if ((await count(folder)) === 0)
        for (let index = 0; index < 4; index += 1)
          await folder.put("cards", `k${index}`, `{"card":${index}}\n`);
      const env = { ...team.env("alice"), MUSTER_MIGRATE_PAUSE: "copy" };
      const run = await muster(["migrate", "--to", "nats", "--json"], {
        cwd: repo,
        env,
        timeoutMs: 45_000,
      });
      expect(run.stderr).toContain("muster migrate: paused at copy");
      expect(run.stderr).toMatch(/going on/);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
      expect(run.ms).toBeLessThan(30_000);
    },
    60_000,
  );
});
