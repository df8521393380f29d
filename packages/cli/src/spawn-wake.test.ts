// A teammate `muster spawn` starts exists to take work by mail: it wakes for its mail by default,
// `--quiet` opts out, and the spawning shell's own mail setting reaches its pane. The task that
// was its first prompt is not left unread in its mailbox (nor taken again as a mail). End to end:
// the built binary run from shell panes of a private tmux server, a real pi (the faux model,
// offline, a throwaway home) spawned beside it. Each pi costs seconds: `pnpm test:long` only.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, LONG_TESTS, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paneCaller } from "../test/pane-caller.js";

const PI_PACKAGE = path.resolve(import.meta.dirname, "..", "..", "pi-extension");
const PI_CLI = path.join(
  PI_PACKAGE,
  "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
);
const EXTENSION = path.join(PI_PACKAGE, "dist", "muster", "index.js");
const FAUX = path.join(PI_PACKAGE, "test", "faux-extension.ts");
const piArgs = [
  "-e",
  EXTENSION,
  "-e",
  FAUX,
  "--provider",
  "faux",
  "--model",
  "faux-1",
  "--offline",
];

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-spawn-wake-")));
const home = path.join(scratch, "home");
const repo = path.join(scratch, "repo");
const team = path.join(scratch, "team");
let server: PrivateTmux;
const fromPane = paneCaller(() => server, scratch, repo);

beforeAll(() => {
  if (!LONG_TESTS) return;
  for (const folder of [home, repo, path.join(home, "bin"), path.join(home, "tmp")])
    mkdirSync(folder, { recursive: true });
  symlinkSync(PI_CLI, path.join(home, "bin", "pi"));
  server = startPrivateTmux({
    command: "sleep 600",
    env: {
      HOME: home,
      TMPDIR: path.join(home, "tmp"),
      PATH: `${path.join(home, "bin")}:${path.dirname(process.execPath)}:${process.env.PATH}`,
      MUSTER_TEAM_DIR: team,
      MUSTER_HEARTBEAT_MS: "300",
      // Whatever the tmux server was started with, a spawn says what its member's mail does.
      MUSTER_MAIL: undefined,
      MUSTER_WAKE: undefined,
      MUSTER_WAKE_PER_MINUTE: undefined,
    },
  });
});

/** The pi processes spawned, ended by pid when the file is done. */
const spawnedPids: number[] = [];

afterAll(() => {
  if (!LONG_TESTS) return;
  for (const pid of spawnedPids)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  server.kill();
  rmSync(scratch, { recursive: true, force: true });
});

type MemberRecord = { id: string; label: string; watching?: { armed: boolean; wake: boolean } };

const recordOf = (label: string): MemberRecord | undefined =>
  readdirSync(path.join(team, "sessions"))
    .filter((name) => name.endsWith(".json") && !name.startsWith("."))
    .map(
      (name) => JSON.parse(readFileSync(path.join(team, "sessions", name), "utf8")) as MemberRecord,
    )
    .find((record) => record.label === label);

const mailIn = (id: string, folder: "new" | "cur") =>
  readdirSync(path.join(team, "mail", id, folder)).map(
    (name) => JSON.parse(readFileSync(path.join(team, "mail", id, folder, name), "utf8")).body,
  );

/** The times pi's turns started, from the faux extension's log (one file per spawned pi). */
const turnsIn = (file: string) => {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};

/** A sender on the team: this test process, as alice. */
let alice: string | undefined;
async function sender() {
  alice ??= await joinAsThisProcess(await openTestTeam(team), "alice");
  return alice;
}

/** Spawn a pi with a task; its turns are logged to a file of its own. */
async function spawnPi(label: string, flags: string[], env?: Record<string, string>) {
  const turns = path.join(scratch, `${label}.turns`);
  server.tmux("set-environment", "-g", "MUSTER_FAUX_TURNS", turns);
  const run = await fromPane(
    [
      "spawn",
      "pi",
      "--label",
      label,
      ...flags,
      "--task",
      `task for ${label}`,
      "--json",
      "--",
      ...piArgs,
    ],
    repo,
    { env },
  );
  expect(run.status, run.stderr).toBe(0);
  const document = JSON.parse(run.stdout);
  spawnedPids.push(document.pid);
  expect(document).toMatchObject({ label, state: "joined", task: { mailed: true } });
  // The task is its first prompt: one turn, and none after it for the same task as mail.
  await eventually(
    () => turnsIn(turns),
    (count) => count >= 1,
    `${label}'s first turn`,
  );
  return { turns, record: recordOf(label)! };
}

describe.skipIf(!LONG_TESTS)("a spawned pi and its mail", () => {
  it("wakes for mail by default: send --wait to it idle succeeds, woken; its task mail is read", async () => {
    const { turns, record } = await spawnPi("bob", []);
    // Its first prompt was the task: the task's mail is read, not waiting in its mailbox, and
    // wakes no second turn for the same task.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mailIn(record.id, "new")).toEqual([]);
    expect(mailIn(record.id, "cur")).toEqual(["task for bob"]);
    expect(turnsIn(turns)).toBe(1);
    expect(record.watching).toEqual({ armed: true, wake: true });
    const roster = await openTestTeam(team);
    const history = await roster.history(record.id);
    const task = history.ok ? history.messages.find((m) => m.body === "task for bob") : undefined;
    const taskReceipt = await roster.receipt(task!.id);
    const taskMark = taskReceipt.ok ? taskReceipt.recipients[0] : undefined;
    expect(taskMark?.phases.acknowledged).toBeDefined();

    const began = Date.now();
    const from = await sender();
    const sent = await fromPane([
      "send",
      "bob",
      "tests are green",
      "--id",
      from,
      "--wait",
      "--json",
    ]);
    expect(sent.status, sent.stdout + sent.stderr).toBe(0);
    expect(Date.now() - began).toBeLessThan(15_000);
    const document = JSON.parse(sent.stdout);
    const receipt = await roster.receipt(document.id);
    expect(receipt.ok && receipt.recipients[0]?.phases.woke).toMatchObject({ how: "pi" });
    await eventually(
      () => turnsIn(turns),
      (count) => count === 2,
      "bob's turn for the mail",
    );
  }, 60_000);

  it("--quiet: the member does not wake for mail", async () => {
    const { turns, record } = await spawnPi("hush", ["--quiet"]);
    expect(record.watching).toEqual({ armed: true, wake: false });
    const from = await sender();
    const sent = await fromPane([
      "send",
      "hush",
      "no hurry",
      "--id",
      from,
      "--wait",
      "--timeout",
      "3s",
      "--json",
    ]);
    // Sent, and pushed for its next turn, but no turn starts for it: the wait ends unmet.
    expect(sent.status, sent.stderr).toBe(1);
    const roster = await openTestTeam(team);
    const receipt = await roster.receipt(JSON.parse(sent.stdout).id);
    expect(receipt.ok && Object.keys(receipt.recipients[0]?.phases ?? {})).toEqual(["written"]);
    expect(turnsIn(turns)).toBe(1);
  }, 60_000);

  it("the spawning shell's MUSTER_MAIL=quiet reaches the pane", async () => {
    const { record } = await spawnPi("shell-quiet", [], { MUSTER_MAIL: "quiet" });
    expect(record.watching).toEqual({ armed: true, wake: false });
  }, 60_000);
});
