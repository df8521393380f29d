// team_spawn through the SDK's client, and the Codex caller's seat it spawns beside: a real private
// tmux server, real processes (stand-in engines: scripts named like them, so discovery recognises
// them), a real team folder. A pane title is written by anything in the pane, so the attack is a
// second pane that shows the caller's thread id and runs no Codex.
import { readFileSync } from "node:fs";
import path from "node:path";
import { startPrivateTmux } from "@muster/test-support";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const THREAD = "01a22ae4-26be-7480-acf3-78282d1c9f00";
const title = `repo | ${THREAD.slice(0, 29)}...`;

const cleanups = cleanupAfterEach();

/** A private server, and a server environment that finds a stand-in `pi` (it never joins). */
function setup() {
  const work = scratchUntil(cleanups);
  const engines = path.join(work.dir, "engines");
  fakeEngine(engines, "pi", "while :; do sleep 1; done");
  const tmux = startPrivateTmux();
  cleanups.push(() => tmux.kill());
  // tmux gives a pane opened by a client outside tmux that client's PATH: the server's.
  const env = {
    MUSTER_TEAM_DIR: work.teamDir,
    TMUX: `${tmux.socket},1,0`,
    PATH: `${engines}:${process.env.PATH}`,
  };
  const pane = (command: string) => {
    const id = tmux.tmux("new-window", "-d", "-P", "-F", "#{pane_id}", command).trim();
    tmux.tmux("select-pane", "-t", id, "-T", title);
    return id;
  };
  const windowOf = (id: string) =>
    tmux.tmux("display-message", "-p", "-t", id, "#{window_id}").trim();
  const paneIds = () => tmux.tmux("list-panes", "-a", "-F", "#{pane_id}").trim().split("\n");
  return { work, tmux, env, pane, windowOf, paneIds };
}

async function serve(env: Record<string, string>) {
  const connected = await connect(process.execPath, [SERVE], env);
  cleanups.push(() => connected.close());
  return connected.client;
}

describe("the Codex caller's seat (_meta.threadId)", () => {
  it("a forged title in a second pane that runs no Codex neither makes the caller ambiguous nor is chosen; spawn opens beside the real pane", async () => {
    const { work, env, pane, windowOf, paneIds } = setup();
    const codex = pane(
      `env MUSTER_LABEL=coder bash ${fakeEngine(work.bin, "codex", "while :; do sleep 1; done")}`,
    );
    const forged = pane("bash");
    const client = await serve({ ...env, MUSTER_LABEL: "coder" });
    const meta = { threadId: THREAD };

    const who = await call(client, "team_roster", {}, meta);
    expect(who.structured.you).toMatchObject({ label: "coder", pane: codex });

    const spawned = await call(
      client,
      "team_spawn",
      { engine: "pi", label: "helper", task: "look at src/a.ts", timeout_seconds: 2 },
      meta,
    );
    // The stand-in pi starts but never joins: the time limit ends the wait with the state reached.
    expect(spawned.structured).toMatchObject({
      ok: false,
      label: "helper",
      engine: "pi",
      state: "started",
      by: { pane: codex, label: "coder" },
      task: { mailed: false, commandLine: true },
      // A spawned member wakes for its mail unless the call asks it to be quiet.
      mail: "wakes",
    });
    const opened = spawned.structured.pane as string;
    expect(spawned.text).toMatch(
      new RegExp(
        `^pane ${opened} opened in main; pi started \\(pid \\d+\\); not on the team yet as helper; task not mailed\\.`,
      ),
    );
    expect(paneIds()).toContain(opened);
    expect(windowOf(opened)).toBe(windowOf(codex));
    expect(windowOf(opened)).not.toBe(windowOf(forged));
    const record = JSON.parse(
      readFileSync(path.join(work.teamDir, "spawned", "helper.json"), "utf8"),
    );
    expect(record).toMatchObject({ pane: opened, by: { pane: codex } });

    // quiet: its mail does not wake it.
    const quiet = await call(
      client,
      "team_spawn",
      { engine: "pi", label: "hush", quiet: true, window: true, timeout_seconds: 1 },
      meta,
    );
    expect(quiet.structured).toMatchObject({ label: "hush", mail: "quiet" });
  });

  it("a title alone (no Codex runs in the pane) is no seat: refused, nothing opened", async () => {
    const { env, pane, paneIds } = setup();
    pane("bash");
    const client = await serve(env);
    const before = paneIds();
    const refused = await call(client, "team_spawn", { engine: "pi" }, { threadId: THREAD });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^Not spawned: you are not on the team \(.*no Codex process runs there/,
    );
    expect(paneIds()).toEqual(before);
  });
});

describe("team_spawn from a caller with no proven seat", () => {
  it("a guest (no engine above the server, no thread named) is refused; nothing is opened", async () => {
    const { env, paneIds } = setup();
    const client = await serve(env);
    const before = paneIds();
    const refused = await call(client, "team_spawn", { engine: "pi", label: "helper" });
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({ ok: false, reason: "guest" });
    expect(paneIds()).toEqual(before);
  });
});
