// A Claude Code hook ends once it has answered, whatever its team's server does after: the mail
// in its answer is acknowledged only once the answer is written, and a NATS server that stops
// answering right then (a relay paused) must not keep the hook past the end's bound (Claude Code
// waits for its hooks). The answer itself is written whole before the process exits. The built
// binary, a real nats-server behind a pausable loopback relay, a fake `claude` (a bash script of
// that name) as the session, the hook's stdout a FIFO the test keeps full until it lets it go.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { processAlive, processStart } from "@muster/node";
import {
  eventually,
  LONG_TESTS,
  lineQueue,
  NATS_SERVER_MISSING,
  startTcpPause,
  type TcpPause,
  tmuxEnv,
} from "@muster/test-support";
import { closeTeams, openTeam } from "@muster/wiring";
import { afterAll, test as anyTest, beforeAll, expect } from "vitest";
import { beatersIn, clone, type NatsTeam, startNatsTeam } from "../test/nats-team.ts";
import { MUSTER, musterKit } from "../test/run.ts";

// Every case here runs a real nats-server: skipped, saying so, where there is none.
// A hook's end on a real, held server: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
const test = anyTest.skipIf(NATS_SERVER_MISSING || !LONG_TESTS);

const { scratch, muster } = musterKit("muster-cli-hook-lifetime-");
const repo = clone(scratch, "repo", "git@github.com:acme/hook-lifetime.git");
const END_MS = 1_000;
let team: NatsTeam;
let relay: TcpPause;
const children: ChildProcess[] = [];
const started: { pid: number; start: string | undefined }[] = [];

beforeAll(async () => {
  team = await startNatsTeam(muster, scratch, repo, ["alice"]);
  relay = await startTcpPause(team.server.port);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const { pid, start } of started)
    if (processAlive(pid, start) === "alive") process.kill(pid, "SIGKILL");
  // The session-start hook started this host's beater (detached): it ends once it has taken the
  // dead session off the team, while the server still answers; one still running is ended by pid.
  await eventually(() => beatersIn(repo).length === 0, Boolean, "the beater ended", {
    attempts: 100,
    intervalMs: 100,
  }).catch(() => undefined);
  for (const pid of beatersIn(repo)) process.kill(pid, "SIGKILL");
  await closeTeams();
  relay?.resume();
  await relay?.close();
  await team?.server.stop();
}, 30_000);

/** A FIFO whose buffer is full: a writer blocks until the test reads. Read end kept by the test. */
function fullFifo(file: string) {
  execFileSync("mkfifo", [file]);
  const fd = openSync(file, constants.O_RDWR | constants.O_NONBLOCK);
  const block = Buffer.alloc(4096, 0x2e);
  let filled = 0;
  for (;;) {
    try {
      filled += writeSync(fd, block);
    } catch {
      break; // EAGAIN: full
    }
  }
  const chunks: Buffer[] = [];
  return {
    /** Everything written after the filling, read so far. */
    read(): string {
      const buffer = Buffer.alloc(65_536);
      for (;;) {
        let got = 0;
        try {
          got = readSync(fd, buffer);
        } catch {
          break; // EAGAIN: empty for now
        }
        if (got === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, got)));
      }
      return Buffer.concat(chunks).subarray(filled).toString("utf8");
    },
    close: () => closeSync(fd),
  };
}

test("a hook whose server stops answering once its answer is written ends within the bound, its answer whole", async () => {
  const fifo = fullFifo(path.join(scratch, "answer.fifo"));
  const file = path.join(scratch, "fake", "claude");
  mkdirSync(path.dirname(file), { recursive: true });
  const hook = `"${process.execPath}" "${MUSTER}" hook claude`;
  writeFileSync(
    file,
    [
      "#!/bin/bash",
      `${hook} session-start <<<'{"session_id":"s1","hook_event_name":"SessionStart"}' >/dev/null`,
      "echo joined",
      "read -r _",
      // Through the relay, its stdout the full FIFO.
      `MUSTER_NATS="$RELAYED" ${hook} user-prompt-submit <<<'{"prompt":"go"}' >"$FIFO" &`,
      'echo "hook $!"',
      "wait $!",
      'echo "ended $?"',
      "read -r _",
    ].join("\n"),
  );
  chmodSync(file, 0o755);
  const env = { HOME: scratch, ...team.env("alice"), MUSTER_HEARTBEAT_MS: "200" };
  const child = spawn(file, [], {
    cwd: repo,
    env: tmuxEnv({
      ...env,
      RELAYED: `nats://127.0.0.1:${relay.port}`,
      FIFO: path.join(scratch, "answer.fifo"),
      MUSTER_END_MS: String(END_MS),
    }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  const lines = lineQueue(child.stdout!);
  expect(await lines.next()).toBe("joined");
  // Mail for the session, sent as a guest straight to the server.
  const opened = await openTeam({ cwd: repo, env: { ...process.env, ...env } });
  if (!opened.ok) throw new Error(opened.error);
  const id = `claude-${child.pid}-${processStart(child.pid!)}`;
  const member = await eventually(
    async () => {
      const read = await opened.roster.read();
      return read.ok ? read.members.find((each) => each.id === id) : undefined;
    },
    Boolean,
    "the session on the team",
  );
  const body = `review #12 ${"x".repeat(20_000)}`;
  expect(
    await opened.roster.send({ from: "tester", guest: "tester", to: member!.label, body }),
  ).toMatchObject({ ok: true });
  const before = relay.relayed();
  child.stdin!.write("\n");
  const hookPid = Number((await lines.next()).split(" ")[1]);
  started.push({ pid: hookPid, start: processStart(hookPid) });
  // The hook has taken the mail and waits on its write: nothing more goes to the server.
  let last = -1;
  await eventually(
    () => {
      const now = relay.relayed();
      const still = now > before && now === last;
      last = now;
      return still;
    },
    Boolean,
    "the hook quiet on its full stdout",
    { intervalMs: 500, attempts: 40 },
  );
  relay.pause();
  const letGo = performance.now();
  const answer = await eventually(
    () => fifo.read(),
    (text) => text.endsWith("\n"),
    "the hook's answer",
  );
  // Written whole, the mail in it.
  expect(JSON.parse(answer).hookSpecificOutput.additionalContext).toContain("review #12");
  const ended = await Promise.race([
    lines.next().then((line) => ({ line, took: performance.now() - letGo })),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), END_MS + 2_500)),
  ]);
  relay.resume();
  fifo.close();
  expect(ended, "the hook still runs with its server paused").toMatchObject({
    line: expect.stringMatching(/^ended /),
  });
}, 60_000);
