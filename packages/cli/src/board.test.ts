// `muster board` end to end: the built binary as child processes on a team folder in a temporary
// directory. Members are told apart by --id (their process is this test's, so they stay live) or,
// where a death is the point, by a shell that runs muster and is then SIGKILLed. What a test only
// needs to be there (members, cards it does not test the making of) is made in this process.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tmuxEnv } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { boardWith, joinedTeam } from "../test/run.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "muster-board-cli-")));
let teams = 0;
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Run = { status: number | null; stdout: string; stderr: string };

function newTeam() {
  teams += 1;
  const dir = path.join(scratch, `team-${teams}`);
  const muster = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [MUSTER, ...args, "-L", "muster-test-000000000000"], {
        cwd: scratch,
        env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: dir, ...env }),
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
  const json = async (args: string[]) => {
    const run = await muster([...args, "--json"]);
    return { ...run, body: JSON.parse(run.stdout) };
  };
  return { dir, muster, json };
}

const as = (name: string) => ["--id", `${name}-id`, "--as", name];
const alice = { label: "alice", id: "alice-id" };

describe.concurrent("muster board", () => {
  it("--help shows every subcommand with examples", async () => {
    const { muster } = newTeam();
    const help = await muster(["board", "--help"]);
    expect(help.status).toBe(0);
    for (const word of [
      "claim <card>",
      "handoff <card> <label>",
      "lead [<label> | none]",
      "Examples:",
      "muster board claim c4",
    ])
      expect(help.stdout).toContain(word);
  });

  it("add, claim, done: the lead hears of the finish as mail; status shows the card in progress", async () => {
    const { dir, muster, json } = newTeam();
    await joinedTeam(dir, { lead: "lead-id" });
    await boardWith(dir, { label: "lead", id: "lead-id" }, [], "lead");
    const added = await json(["board", "add", "fix", "the", "login", ...as("alice")]);
    expect(added.body).toMatchObject({
      ok: true,
      card: { id: "c1", title: "fix the login", state: "open", createdBy: "alice" },
    });
    const claimed = await json(["board", "claim", "c1", ...as("alice")]);
    expect(claimed.body).toMatchObject({
      ok: true,
      card: { state: "held", owner: { label: "alice", id: "alice-id" } },
    });
    // A card that waits on c1 is blocked: status lists it with what it waits on.
    expect(
      (await json(["board", "add", "ship", "it", "--after", "c1", ...as("alice")])).status,
    ).toBe(0);
    const status = await json(["status"]);
    expect(status.body.board).toMatchObject({
      lead: "lead",
      held: [{ id: "c1", owner: "alice", title: "fix the login" }],
      blocked: [{ id: "c2", title: "ship it", blockers: ["c1"] }],
    });
    const human = await muster(["status"]);
    expect(human.stdout).toMatch(/Cards in progress \(1\)[\s\S]*c1\s+alice/);
    expect(human.stdout).toMatch(/Blocked \(1\)\n\s+CARD\s+WAITS ON\s+TITLE\n\s+c2\s+c1\s+ship it/);
    // The board's lead is named as such, never "lead lead" for a lead labelled lead.
    expect(human.stdout).toContain("Cards in progress (1); the board's lead: lead\n");
    expect((await json(["board", "done", "c1", "merged", ...as("alice")])).body).toMatchObject({
      card: { state: "done", note: "merged" },
    });
    const inbox = await json(["inbox", "--id", "lead-id"]);
    expect(inbox.body.messages.map((message: { body: string }) => message.body)).toEqual([
      'alice finished c1 "fix the login": merged',
    ]);
  });

  it("finishing a card you do not hold is refused, and the card is unchanged", async () => {
    const { dir, muster, json } = newTeam();
    await joinedTeam(dir, { alice: "alice-id", bob: "bob-id" });
    await boardWith(dir, alice, [{ title: "work", claimed: true }]);
    const before = await json(["board", "show", "c1"]);
    const refused = await muster(["board", "done", "c1", ...as("bob")]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(
      "muster: Card c1 is held by alice, not by bob; only alice can finish c1; ask them about it.\n",
    );
    expect((await json(["board", "show", "c1"])).body.card).toEqual(before.body.card);
  });

  it("a hand-off or a lead named by a mistyped label says which live label it meant", async () => {
    const { dir, json, muster } = newTeam();
    await joinedTeam(dir, { alice: "alice-id", bob: "bob-id" });
    await boardWith(dir, alice, [{ title: "work", claimed: true }]);
    const handoff = await json(["board", "handoff", "c1", "bbo", ...as("alice")]);
    expect(handoff.status).toBe(1);
    expect(handoff.body).toMatchObject({ ok: false, reason: "no-live-holder", suggestion: "bob" });
    const lead = await muster(["board", "lead", "bbo", ...as("alice")]);
    expect(lead.status).toBe(1);
    expect(lead.stderr).toMatch(/^muster: .*"bbo"; did you mean "bob"\? [^\n]*\n$/);
  });

  it("a list filtered by a mistyped owner or state says which one it meant", async () => {
    const { dir, json, muster } = newTeam();
    await joinedTeam(dir, { alice: "alice-id", bob: "bob-id" });
    await boardWith(dir, alice, [{ title: "work", claimed: true }]);
    const owner = await muster(["board", "--owner", "alcie", ...as("bob")]);
    expect(owner.status).toBe(0);
    expect(owner.stderr).toMatch(/no card is held by alcie; did you mean "alice"\?/);
    expect((await json(["board", "--owner", "alcie", ...as("bob")])).body).toMatchObject({
      ok: true,
      cards: [],
      suggestion: "alice",
    });
    const state = await muster(["board", "--state", "redy", ...as("bob")]);
    expect(state.status).toBe(2);
    expect(state.stderr).toMatch(/not "redy"; did you mean "ready"\?/);
  });

  it("a hand-off to a label with no live holder is refused, card unchanged; to a live one, they get mail", async () => {
    const { dir, json } = newTeam();
    await joinedTeam(dir, { alice: "alice-id" });
    await boardWith(dir, alice, [{ title: "work", claimed: true }]);
    const before = await json(["board", "show", "c1"]);
    const refused = await json(["board", "handoff", "c1", "nobody", ...as("alice")]);
    expect(refused.status).toBe(1);
    expect(refused.body).toMatchObject({ ok: false, reason: "no-live-holder" });
    expect((await json(["board", "show", "c1"])).body.card).toEqual(before.body.card);
    await joinedTeam(dir, { bob: "bob-id" });
    const passed = await json([
      "board",
      "handoff",
      "c1",
      "bob",
      "over",
      "to",
      "you",
      ...as("alice"),
    ]);
    expect(passed.body).toMatchObject({
      ok: true,
      card: { owner: { label: "bob", id: "bob-id" } },
    });
    const inbox = await json(["inbox", "--id", "bob-id"]);
    expect(inbox.body.messages[0].body).toBe('alice handed c1 "work" to you: over to you');
    expect((await json(["board", "done", "c1", ...as("bob")])).body).toMatchObject({ ok: true });
  });

  it("a claim of a blocked card names what blocks it; a cycle or an unknown dependency is refused at add", async () => {
    const { dir, muster, json } = newTeam();
    await joinedTeam(dir, { alice: "alice-id" });
    await boardWith(dir, alice, ["first", { title: "second", after: ["c1"] }]);
    const blocked = await muster(["board", "claim", "c2", ...as("alice")]);
    expect(blocked.status).toBe(1);
    expect(blocked.stderr).toContain("Card c2 is blocked by c1; finish c1 first");
    expect((await json(["board", "add", "x", "--after", "c9", ...as("alice")])).body).toMatchObject(
      { reason: "unknown-dependency" },
    );
    expect((await json(["board", "add", "x", "--after", "c3", ...as("alice")])).body).toMatchObject(
      { reason: "dependency-cycle" },
    );
    expect(
      (await json(["board", "--state", "blocked"])).body.cards.map(
        (card: { id: string }) => card.id,
      ),
    ).toEqual(["c2"]);
    // One word for one state: the text's state is the JSON's `state`, its blockers said as such.
    const listed = (await json(["board"])).body.cards.find(
      (card: { id: string }) => card.id === "c2",
    );
    expect(listed).toMatchObject({ state: "open", blockers: ["c1"] });
    const text = (await muster(["board"])).stdout;
    expect(text).toMatch(/c2\s+open\s+-\s+\S+\s+second {2}\(blocked by c1\)/);
    expect(text).not.toMatch(/\bblocked\b(?! by)/);
    expect((await muster(["board", "show", "c2"])).stdout).toMatch(
      /state {4}open\n[\s\S]*after {4}c1 \(blocked by c1\)/,
    );
  });

  it("a claim by a shell not on the team joins first; a refused join is the claim's refusal, with its fix", async () => {
    const { dir, muster, json } = newTeam();
    await joinedTeam(dir, { alice: "alice-id" });
    await boardWith(dir, alice, ["work"]);
    const refused = await muster(["board", "claim", "c1", "--id", "eve-id", "--as", "alice"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /^muster: Could not join as "alice": .*only that session's stop frees "alice", or join under another name\.\n$/,
    );
    const joined = await muster(["board", "claim", "c1", "--id", "carol-id", "--as", "carol"]);
    expect(joined.stdout).toContain("Joined the team as carol to claim c1.");
    expect((await json(["board", "show", "c1"])).body.card.owner).toEqual({
      label: "carol",
      id: "carol-id",
    });
  });

  it("8 shells race to claim one card: exactly one owner, the others told who holds it", async () => {
    const { dir, muster, json } = newTeam();
    await joinedTeam(
      dir,
      Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`m${index}`, `m${index}-id`])),
    );
    await boardWith(dir, { label: "m0", id: "m0-id" }, ["contested"]);
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        muster(["board", "claim", "c1", "--id", `m${index}-id`, "--json"]),
      ),
    );
    const answers = runs.map((run) => JSON.parse(run.stdout));
    const winners = answers.filter((answer) => answer.ok);
    expect(winners).toHaveLength(1);
    for (const loser of answers.filter((answer) => !answer.ok))
      expect(loser).toMatchObject({ reason: "card-held", holder: winners[0].card.owner.label });
    expect((await json(["board", "show", "c1"])).body.card.owner).toEqual(winners[0].card.owner);
  });

  it("a SIGKILLed owner's card is open on the next read (prune too), with the reason, and the lead is told", async () => {
    const { json, dir } = newTeam();
    await joinedTeam(dir, { lead: "lead-id" });
    await boardWith(dir, { label: "lead", id: "lead-id" }, ["work"], "lead");
    // The owner is the shell muster runs under: it claims, then waits to be killed.
    const shell = spawn(
      "/bin/sh",
      [
        "-c",
        `"${process.execPath}" "${MUSTER}" board claim c1 --as doomed -L muster-test-000000000000 && echo claimed && exec sleep 1000`,
      ],
      {
        env: tmuxEnv({ HOME: scratch, MUSTER_TEAM_DIR: dir }),
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise<void>((resolve) =>
      shell.stdout.on("data", (chunk) => String(chunk).includes("claimed") && resolve()),
    );
    expect((await json(["board", "show", "c1"])).body.card).toMatchObject({
      state: "held",
      owner: { label: "doomed" },
    });
    shell.kill("SIGKILL");
    await new Promise((resolve) => shell.once("exit", resolve));
    // Prune opens it (any read would): its holder is proven dead.
    expect((await json(["prune"])).body).toMatchObject({ ok: true, released: ["c1"] });
    const after = await json(["board", "show", "c1", "--id", "lead-id"]);
    expect(after.body.card).toMatchObject({ state: "open" });
    expect(after.body.card.history.at(-1)).toMatchObject({
      event: "released",
      by: "doomed",
      note: "doomed's process died",
    });
    const inbox = await json(["inbox", "--id", "lead-id"]);
    expect(inbox.body.messages.map((message: { body: string }) => message.body)).toContain(
      'c1 "work" is open again: doomed\'s process died.',
    );
  });

  it("a card title with terminal escapes is shown escaped, never obeyed", async () => {
    const { muster, dir } = newTeam();
    await joinedTeam(dir, { alice: "alice-id" });
    await boardWith(dir, alice, ["honest"]);
    const file = path.join(dir, "board", "c1.json");
    const card = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(
      file,
      JSON.stringify({ ...card, title: "evil \u001b]52;c;aGk=\u0007 \u001b[2J" }),
      { mode: 0o600 },
    );
    const list = await muster(["board"]);
    expect(list.stdout).not.toContain("\u001b");
    expect(list.stdout).toContain("evil \\x1b]52;c;aGk=\\x07 \\x1b[2J");
  });
});
