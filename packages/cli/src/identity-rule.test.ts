// The one identity rule, end to end on the built binary: a command that acts as a member joins its
// caller once, after its input passed; one refused on its input leaves nobody on the roster; one
// that reads a member's own state refuses a non-member; every join, rename and leave names the
// label. Callers are told apart by --id (their process is this test's, so they stay live).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tmuxEnv } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterAll, describe, expect, it } from "vitest";
import { boardWith, joinedTeam } from "../test/run.js";

const MUSTER =
  process.env.MUSTER_CLI_UNDER_TEST ?? path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-identity-")));
const repo = path.join(scratch, "repo");
mkdirSync(path.join(repo, "src"), { recursive: true });
writeFileSync(path.join(repo, "src", "auth.ts"), "export {};\n");
execFileSync("git", ["init", "-q", repo]);
let teams = 0;
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Run = { status: number | null; stdout: string; stderr: string };

function newTeam() {
  teams += 1;
  const dir = path.join(scratch, `team-${teams}`);
  const muster = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [MUSTER, ...args, "-L", "muster-test-000000000000"], {
        cwd: repo,
        env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: dir, MUSTER_LABEL: undefined }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.once("close", (status) => resolve({ status, stdout, stderr }));
    });
  /** The labels on the roster, every state: read in this process, not by a `muster roster` start. */
  const labels = async () => {
    const read = await (await openTestTeam(dir)).read({ all: true });
    if (!read.ok) throw new Error(`the roster in ${dir} cannot be read`);
    return read.members.map((member) => member.label).sort();
  };
  /** alice (alice-id) on the team, made in this process, with her card c1 when `card`. */
  const alice = async (card: boolean) => {
    await joinedTeam(dir, { alice: "alice-id" });
    if (card) await boardWith(dir, { label: "alice", id: "alice-id" }, ["work"]);
  };
  return { muster, labels, alice };
}

describe.concurrent("a command refused on its input leaves nobody behind", () => {
  // One team for the table: alice and her card c1, made once. A refusal joins nobody, so each row
  // still finds alice alone, whichever rows ran before or beside it.
  let shared: Promise<ReturnType<typeof newTeam>> | undefined;
  const aliceTeam = () => {
    shared ??= (async () => {
      const made = newTeam();
      await made.alice(true);
      return made;
    })();
    return shared;
  };

  it.each([
    [["board", "claim", "c9"], /There is no card c9/],
    [["board", "add", "work", "--after", "c7"], /c7/],
    [["board", "ask", "c9", "why?"], /There is no card c9/],
    [["board", "handoff", "c1", "nobody"], /./],
    [["send", "nobody", "hi"], /nobody holds the label "nobody"/],
    [["send", "alice,nobody", "hi"], /nobody holds the label "nobody"/],
    [["send", "alice", ""], /the message is empty/],
    [["lease", "src/a\tb", "--ttl", "5m"], /control characters/],
    [["lease", "../outside/**"], /leaves the repository/],
  ])("%j: refused, and the roster has only alice", async (args, pattern) => {
    const { muster, labels } = await aliceTeam();
    const run = await muster([...args, "--id", "stranger-id"]);
    expect(run.status, run.stderr).not.toBe(0);
    expect(run.stderr).toMatch(pattern);
    expect(run.stdout).not.toContain("Joined");
    expect(await labels()).toEqual(["alice"]);
  });

  it("a lease another member holds: refused before the join, with who holds it", async () => {
    const { muster, labels, alice } = newTeam();
    await alice(false);
    expect((await muster(["lease", "src/**", "--id", "alice-id"])).status).toBe(0);
    const run = await muster(["lease", "src/auth.ts", "--id", "stranger-id", "--json"]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: "lease-held" });
    expect(await labels()).toEqual(["alice"]);
  });
});

describe.concurrent("a command that acts joins its caller once, naming the label", () => {
  it.each([
    [["board", "claim", "c1"], /^Joined the team as shell-[a-z]+ to claim c1\.\nClaimed c1/],
    [
      ["board", "ask", "c1", "why?"],
      /^Joined the team as shell-[a-z]+ to ask about c1\.\nAsked alice/,
    ],
    [["board", "add", "more"], /^Joined the team as shell-[a-z]+ to add a card\.\nAdded c2/],
    [["send", "alice", "hi"], /^Joined the team as shell-[a-z]+ to send mail to alice\.\nSent /],
    [
      ["lease", "src/**"],
      /^Joined the team as shell-[a-z]+ to lease src\/\*\*\.\nLeased src\/\*\*/,
    ],
  ])("%j", async (args, pattern) => {
    const { muster, labels, alice } = newTeam();
    await alice(true);
    const run = await muster([...args, "--id", "stranger-id"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(pattern);
    const joined = /as (shell-[a-z]+)/.exec(run.stdout)![1]!;
    expect(await labels()).toEqual(["alice", joined].sort());
    // Once on the team, it acts as that member: no second join.
    const again = await muster([...args, "--id", "stranger-id"]);
    expect(again.stdout).not.toContain("Joined");
  });

  it("with --json, the document names the label it joined under (null once a member)", async () => {
    const { muster, alice } = newTeam();
    await alice(false);
    const first = JSON.parse(
      (await muster(["send", "alice", "hi", "--id", "s-id", "--json"])).stdout,
    );
    expect(first).toMatchObject({ ok: true, joined: expect.stringMatching(/^shell-/) });
    const second = JSON.parse(
      (await muster(["send", "alice", "hi", "--id", "s-id", "--json"])).stdout,
    );
    expect(second).toMatchObject({ ok: true, joined: null });
  });
});

describe.concurrent("a command on what a member holds, or its own inbox, refuses a non-member", () => {
  it.each([
    [["inbox"]],
    [["board", "done", "c1"]],
    [["board", "drop", "c1", "no time"]],
    [["board", "lead", "alice"]],
    [["release", "--all"]],
  ])("%j: refused with the fix, nobody joined", async (args) => {
    const { muster, labels, alice } = newTeam();
    await alice(true);
    const run = await muster([...args, "--id", "stranger-id"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/is not on the team; join first with muster join <label>/);
    expect(await labels()).toEqual(["alice"]);
  });
});

describe.concurrent("every join, rename and leave names the label", () => {
  it("join, rename, leave", async () => {
    const { muster } = newTeam();
    expect((await muster(["join", "shell-juniper", "--id", "me"])).stdout).toMatch(
      /^Joined as shell-juniper /,
    );
    const renamed = await muster(["join", "carol", "--id", "me"]);
    expect(renamed.stdout).toMatch(/^Renamed shell-juniper to carol /);
    const renamedJson = JSON.parse((await muster(["join", "dora", "--id", "me", "--json"])).stdout);
    expect(renamedJson).toMatchObject({ ok: true, label: "dora", renamedFrom: "carol" });
    const left = await muster(["leave", "--id", "me"]);
    expect(left.stdout).toMatch(/^Left the team as dora; /);
    expect(
      JSON.parse((await muster(["join", "erin", "--id", "me2", "--json"])).stdout),
    ).toMatchObject({ renamedFrom: null });
    expect(JSON.parse((await muster(["leave", "--id", "me2", "--json"])).stdout)).toMatchObject({
      ok: true,
      left: true,
      label: "erin",
    });
  });
});

describe.concurrent("a person at a shell is told apart from an agent", () => {
  it("send to a person says they read it with muster inbox, never that it wakes them", async () => {
    const { muster } = newTeam();
    await muster(["join", "alice", "--id", "alice-id", "--agent", "pi", "--wake"]);
    // `muster join` from a plain shell records the shell as the agent and a shell- id.
    await muster(["join", "carol", "--id", "shell-carol", "--agent", "bash", "--wake"]);
    await muster(["join", "dave", "--id", "dave-id"]);
    const sent = await muster(["send", "alice,carol", "hello", "--id", "dave-id"]);
    expect(sent.status, sent.stderr).toBe(0);
    // An agent that has not reported yet is "starting" (activity's recipient line); a person has no state.
    expect(sent.stdout).toMatch(/alice is starting: will see it now \(it wakes them\)/);
    expect(sent.stdout).toMatch(
      /carol: sees it with muster inbox \(at once where a muster inbox --follow runs\)/,
    );
    expect(sent.stdout).not.toMatch(/carol: will see it/);
    const json = JSON.parse(
      (await muster(["send", "carol", "again", "--id", "dave-id", "--json"])).stdout,
    );
    expect(json.recipients).toEqual([expect.objectContaining({ label: "carol", push: "person" })]);
  });
});
