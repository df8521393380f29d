// One MCP server serving two Codex threads, as Codex 0.171's app-server daemon runs them: the
// server has the first window's environment (MUSTER_LABEL=alice) for every thread. Each thread
// joins under the label `muster spawn` recorded for its own pane, never another's; a record that
// is stale or planted is not believed, and MUSTER_LABEL answers where no record holds. The Codex is
// a stand-in (a script named like it) in a private tmux server; the records are written as spawn
// writes them.
import { processStart } from "@muster/node";
import { eventually, startPrivateTmux } from "@muster/test-support";
import type { SpawnRecord } from "@muster/tmux";
import { writeSpawnRecord } from "@muster/wiring";
import { describe, expect, it } from "vitest";
import {
  call,
  cleanupAfterEach,
  connect,
  fakeEngine,
  roster,
  SERVE,
  scratchUntil,
} from "../test/helpers.ts";

const cleanups = cleanupAfterEach();

const ALICE = "0a11ce00-26be-7480-acf3-78282d1c9a11";
const BOB = "0b0b0000-26be-7480-acf3-78282d1c9b22";
const title = (thread: string) => `repo | ${thread.slice(0, 29)}...`;

async function setup() {
  const work = scratchUntil(cleanups);
  await roster(work.teamDir); // the team folder, as the spawner's roster made it
  const tmux = startPrivateTmux();
  cleanups.push(() => tmux.kill());
  const codex = fakeEngine(work.bin, "codex", "while :; do sleep 1; done");
  const server = {
    socket: tmux.tmux("display-message", "-p", "#{socket_path}").trim(),
    pid: Number(tmux.tmux("display-message", "-p", "#{pid}").trim()),
  };
  /** A pane running the stand-in Codex, its title showing `thread`; its pane pid and start. */
  const codexPane = async (thread: string, started?: string) => {
    // `started`: the MUSTER_LABEL the stand-in Codex's own process is started with.
    const environ = started === undefined ? [] : ["-e", `MUSTER_LABEL=${started}`];
    const [pane = "", pid = ""] = tmux
      .tmux("new-window", "-P", "-F", "#{pane_id} #{pane_pid}", ...environ, `bash ${codex}`)
      .trim()
      .split(" ");
    tmux.tmux("select-pane", "-t", pane, "-T", title(thread));
    const start = await eventually(
      () => processStart(Number(pid)),
      (found) => found !== undefined,
      "the pane's process start",
    );
    return { pane, pid: Number(pid), start: start ?? "" };
  };
  /** The record `muster spawn` writes for a pane it opened, with any word changed. */
  const record = (
    label: string,
    launched: { pane: string; pid: number; start: string },
    more: Partial<SpawnRecord> = {},
  ): SpawnRecord => ({
    v: 1,
    label,
    engine: "codex",
    server: server.socket,
    serverPid: server.pid,
    ...launched,
    cwd: work.dir,
    by: { pane: "%0" },
    at: new Date().toISOString(),
    ...more,
  });
  const write = (spawned: SpawnRecord) => writeSpawnRecord({ dir: work.teamDir }, spawned);
  const serve = async (label: string) => {
    const connected = await connect(process.execPath, [SERVE], {
      MUSTER_TEAM_DIR: work.teamDir,
      TMUX: `${server.socket},1,0`,
      MUSTER_LABEL: label,
    });
    cleanups.push(() => connected.close());
    return connected.client;
  };
  return { codexPane, record, write, serve };
}

const you = async (
  client: Awaited<ReturnType<Awaited<ReturnType<typeof setup>>["serve"]>>,
  thread: string,
) =>
  (await call(client, "team_roster", {}, { threadId: thread })).structured.you as
    | { label?: string; id?: string }
    | undefined;

describe("Codex threads of one daemon join under the labels muster spawn gave their panes", () => {
  it("bob's thread is bob, though the daemon's environment says alice and bob calls first", async () => {
    const { codexPane, record, write, serve } = await setup();
    const alicePane = await codexPane(ALICE);
    const bobPane = await codexPane(BOB);
    await write(record("alice", alicePane));
    await write(record("bob", bobPane));
    const client = await serve("alice");
    expect(await you(client, BOB)).toMatchObject({ label: "bob", id: `codex-${BOB}` });
    expect(await you(client, ALICE)).toMatchObject({ label: "alice", id: `codex-${ALICE}` });
  });

  it("a stale or planted record never gives a thread another's label: its own MUSTER_LABEL answers", async () => {
    const { codexPane, record, write, serve } = await setup();
    const bobPane = await codexPane(BOB, "dave");
    // alice's label, claimed for bob's pane by a record whose process started at another time
    // (a reused pid); carol's from before the server restarted; erin's for another engine.
    await write(record("alice", bobPane, { start: `${bobPane.start}1` }));
    await write(record("carol", bobPane, { serverPid: 1 }));
    await write(record("erin", bobPane, { engine: "claude" }));
    const client = await serve("alice");
    expect(await you(client, BOB)).toMatchObject({ label: "dave", id: `codex-${BOB}` });
  });

  it("two records that both fit bob's pane name no one: neither label is taken", async () => {
    const { codexPane, record, write, serve } = await setup();
    const bobPane = await codexPane(BOB, "dave");
    await write(record("alice", bobPane));
    await write(record("bob", bobPane));
    const client = await serve("alice");
    expect(await you(client, BOB)).toMatchObject({ label: "dave" });
  });
});

describe("a Codex started by hand (no spawn record) into a daemon that serves another", () => {
  it("joins as the MUSTER_LABEL its own process was started with, not the server's", async () => {
    const { codexPane, serve } = await setup();
    await codexPane(ALICE, "alice");
    await codexPane(BOB, "bob");
    const client = await serve("alice");
    expect(await you(client, BOB)).toMatchObject({ label: "bob", id: `codex-${BOB}` });
    expect(await you(client, ALICE)).toMatchObject({ label: "alice", id: `codex-${ALICE}` });
  });

  it.each([
    ["a label the roster would refuse", "../alice"],
    ["no label at all", undefined],
  ])("started with %s: a generated label, never the first window's", async (_name, started) => {
    const { codexPane, serve } = await setup();
    await codexPane(BOB, started);
    const client = await serve("alice");
    expect(await you(client, BOB)).toMatchObject({
      label: expect.stringMatching(/^codex-[a-z]+$/),
    });
  });
});
