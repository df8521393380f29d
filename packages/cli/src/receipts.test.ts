// Receipts from the command line, end to end with the built binary: `send --wait` waits for the
// phase asked for and says where each recipient stands, `inbox` marks mail delivered, and
// `status` shows the mail waiting per member and how old the oldest is. The failed and the held
// wake sit out a wake's bound (~4 s each), and the CPU of a waiting `--wait` is measured over its
// wait: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { LONG_TESTS, tmuxEnv } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { joinedTeam, MUSTER, musterKit, NOWHERE } from "../test/run.js";
import { check, loadSchemas } from "../test/schema-check.js";

const kit = musterKit("muster-receipts-");
const { scratch, newTeam } = kit;
const schemas = loadSchemas();
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  kit.close();
});

const muster = (args: string[], env: Record<string, string>) => kit.muster(args, { env });

/** A team of alice (a1), bob (b1) and carol (c1), joined in this process: no start per member. */
async function team() {
  const env = { MUSTER_TEAM_DIR: newTeam() };
  await joinedTeam(env.MUSTER_TEAM_DIR, { alice: "a1", bob: "b1", carol: "c1" });
  return env;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until `id`'s mailbox holds new mail: the send has written it (a loaded machine can take
 * longer to start the send than any fixed pause). */
async function written(env: { MUSTER_TEAM_DIR: string }, id: string) {
  const folder = path.join(env.MUSTER_TEAM_DIR, "mail", id, "new");
  for (let tries = 0; tries < 300; tries += 1) {
    try {
      if (readdirSync(folder).some((name) => name.endsWith(".json"))) return;
    } catch {
      // not made yet
    }
    await sleep(50);
  }
  throw new Error(`no mail reached ${folder} in 15 s`);
}

describe("muster send --wait", () => {
  it("times out when nobody reads it: exit 1, and each recipient's phase is named", async () => {
    const env = await team();
    const run = await muster(
      ["send", "bob,carol", "hi", "--id", "a1", "--wait", "--timeout", "1s"],
      env,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/bob: .*written, not seen yet/);
    expect(run.stdout).toMatch(/carol: .*written, not seen yet/);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^muster: bob and carol were not shown the message within 1s/);
    expect(run.ms).toBeLessThan(5000);
  });

  it("returns as soon as every recipient was shown it, and says how; --json conforms", async () => {
    const env = await team();
    const waiting = muster(
      ["send", "bob,carol", "hi", "--id", "a1", "--wait", "--timeout", "20s", "--json"],
      env,
    );
    await written(env, "b1");
    await written(env, "c1");
    expect((await muster(["inbox", "--id", "b1", "--peek"], env)).status).toBe(0);
    expect((await muster(["inbox", "--id", "c1"], env)).status).toBe(0);
    const run = await waiting;
    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout);
    expect(check(schemas, "send.schema.json", document)).toEqual([]);
    expect(document.wait).toMatchObject({
      goal: "delivered",
      done: true,
      recipients: [
        { label: "bob", reached: "delivered", met: true, how: "inbox" },
        // Done at the first mark that met the goal: delivered, then read a moment later.
        { label: "carol", reached: expect.stringMatching(/^(delivered|acknowledged)$/), met: true },
      ],
    });
    expect(run.ms).toBeLessThan(10_000);
  });

  it.skipIf(!LONG_TESTS)(
    "a wake that failed is named to the sender, in the engine's words; --json carries it",
    async () => {
      const env = await team();
      const wait = ["--id", "a1", "--wait", "--timeout", "4s"];
      const json = muster(["send", "bob", "one", ...wait, "--json"], env);
      const human = muster(["send", "bob", "two", ...wait], env);
      const inbox = path.join(env.MUSTER_TEAM_DIR, "mail", "b1", "new");
      let names: string[] = [];
      for (let tries = 0; tries < 300 && names.length < 2; tries += 1) {
        await sleep(50);
        names = readdirSync(inbox).filter((entry) => entry.endsWith(".json"));
      }
      const roster = await openTestTeam(env.MUSTER_TEAM_DIR);
      const error = "thread/queue/add failed: failed to read thread: invalid";
      const ids = names.map((entry) => entry.slice(0, -5));
      expect(await roster.markWakeFailed("b1", ids, "codex-queue", error)).toMatchObject({
        ok: true,
      });
      const [document, said] = [JSON.parse((await json).stdout), await human];
      // A wait that ended short is the error document, with the send's own fields beside it.
      expect(check(schemas, "error.schema.json", document)).toEqual([]);
      expect(document.wait.recipients).toEqual([
        { id: "b1", label: "bob", reached: "written", met: false, wakeFailed: error },
      ]);
      expect(said.status).toBe(1);
      expect(said.stdout).toContain(`bob: `);
      expect(said.stdout).toContain(`; now written, not seen yet; its wake failed: ${error}`);
    },
  );

  it.skipIf(!LONG_TESTS)(
    "a wake the rate held is named to the sender, with when it wakes again; --json carries it",
    async () => {
      const env = await team();
      const wait = ["--id", "a1", "--wait", "--timeout", "4s"];
      const json = muster(["send", "bob", "one", ...wait, "--json"], env);
      const human = muster(["send", "bob", "two", ...wait], env);
      const inbox = path.join(env.MUSTER_TEAM_DIR, "mail", "b1", "new");
      let names: string[] = [];
      for (let tries = 0; tries < 300 && names.length < 2; tries += 1) {
        await sleep(50);
        names = readdirSync(inbox).filter((entry) => entry.endsWith(".json"));
      }
      const roster = await openTestTeam(env.MUSTER_TEAM_DIR);
      const ids = names.map((entry) => entry.slice(0, -5));
      const retryAfter = Date.parse("2026-12-02T17:03:12.000Z");
      const words = "6 wakes in the last minute";
      expect(
        await roster.markWakeHeld("b1", ids, "codex-queue", { words, retryAfter }),
      ).toMatchObject({ ok: true });
      const [document, said] = [JSON.parse((await json).stdout), await human];
      expect(check(schemas, "error.schema.json", document)).toEqual([]);
      expect(document.wait.recipients).toEqual([
        {
          id: "b1",
          label: "bob",
          reached: "written",
          met: false,
          wakeHeld: { reason: "rate-limited", words, retryAfter: "2026-12-02T17:03:12.000Z" },
        },
      ]);
      expect(said.status).toBe(1);
      expect(said.stdout).toContain(
        "; now written, not seen yet; its wake is held: 6 wakes in the last minute; wakes again after 17:03:12 UTC",
      );
    },
  );

  it.skipIf(!LONG_TESTS)(
    "waits by watching the receipt folder, not by spinning: almost no CPU while it waits",
    async () => {
      const env = await team();
      const child = spawn(
        process.execPath,
        [MUSTER, "send", "bob", "hi", "--id", "a1", "--wait", "--timeout", "30s", ...NOWHERE],
        { cwd: scratch, env: tmuxEnv({ HOME: scratch, ...env }), stdio: "ignore" },
      );
      children.add(child);
      // Still waiting when measured (its timeout is far off), ended by the test; listened for from
      // the start all the same.
      const closed = new Promise((resolve) => child.once("close", resolve));
      const ticks = () => {
        const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks
      };
      // Sent: from here on it only waits.
      await written(env, "b1");
      await sleep(300);
      const before = ticks();
      await sleep(2000);
      const used = ticks() - before;
      // A busy loop would use ~200 ticks (2 s) here; a watch and a 1 s sweep use a handful.
      expect(used).toBeLessThan(30);
      child.kill();
      await closed;
    },
  );

  it("--wait=ack waits past a peek, until the mail is marked read", async () => {
    const env = await team();
    const waiting = muster(
      ["send", "bob", "hi", "--id", "a1", "--wait=ack", "--timeout", "20s"],
      env,
    );
    await written(env, "b1");
    await muster(["inbox", "--id", "b1", "--peek"], env);
    await sleep(500);
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    await sleep(300);
    expect(settled).toBe(false);
    await muster(["inbox", "--id", "b1"], env);
    const run = await waiting;
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/bob: .*read/);
  });

  it("a bad --wait or --timeout is a usage error, and nothing is sent", async () => {
    const env = await team();
    for (const extra of [["--wait=read"], ["--wait", "--timeout", "soon"]]) {
      const run = await muster(["send", "bob", "hi", "--id", "a1", ...extra], env);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/see muster send --help/);
    }
    const inbox = JSON.parse((await muster(["inbox", "--id", "b1", "--json"], env)).stdout);
    expect(inbox.messages).toEqual([]);
  });

  it("--help shows --wait with examples", async () => {
    const run = await muster(["send", "--help"], {});
    expect(run.stdout).toMatch(/--wait\[=ack\]/);
    expect(run.stdout).toMatch(/muster send reviewer .* --wait --timeout 1m/);
  });
});

describe("muster status: mail waiting", () => {
  it("shows per member how much mail waits and how old the oldest is", async () => {
    const env = await team();
    await muster(["send", "bob", "first", "--id", "a1"], env);
    await sleep(1100);
    await muster(["send", "bob", "second", "--id", "c1"], env);
    const json = JSON.parse((await muster(["roster", "--json"], env)).stdout);
    const bob = json.members.find((member: { label: string }) => member.label === "bob");
    expect(bob).toMatchObject({ unread: 2 });
    expect(bob.oldestUnreadAgeMs).toBeGreaterThanOrEqual(1000);
    const alice = json.members.find((member: { label: string }) => member.label === "alice");
    expect(alice).toMatchObject({ unread: 0, oldestUnreadAgeMs: null });
    const status = await muster(["status"], env);
    expect(status.stdout).toMatch(/bob .* 2 \(oldest \d+s\)/);
    const document = JSON.parse((await muster(["status", "--json"], env)).stdout);
    expect(check(schemas, "status.schema.json", document)).toEqual([]);
  });
});
