// The extension inside the real pi host: RPC mode, a throwaway HOME per process, --offline, no
// key, pi's faux model driving the tools. Team folders are temporary; files are read back with
// @muster/roster to check what pi did.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processFacts } from "@muster/node";
import { openRoster } from "@muster/roster";
import { eventually } from "@muster/test-support";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Pi, type PiOptions, type PiRecord } from "../test/pi-rpc.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-pi-"));
const running: Pi[] = [];
let teams = 0;

afterEach(async () => {
  for (const pi of running.splice(0)) pi.kill();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function team() {
  teams += 1;
  const dir = path.join(scratch, `team-${teams}`);
  const cwd = path.join(scratch, `work-${teams}`);
  mkdirSync(cwd);
  return {
    dir,
    start(options: Partial<PiOptions> & { label?: string } = {}) {
      const pi = new Pi({
        cwd,
        ...options,
        args: [
          ...(options.label ? ["--muster-label", options.label] : []),
          ...(options.args ?? []),
        ],
        env: { MUSTER_TEAM_DIR: dir, MUSTER_HEARTBEAT_MS: "300", ...options.env },
      });
      running.push(pi);
      return pi;
    },
    async members() {
      const opened = await openRoster({
        dir,
        fs: nodeFs,
        clock: Date.now,
        processes: processFacts,
      });
      if (!opened.ok) throw new Error(opened.error);
      const read = await opened.roster.read({ all: true });
      if (!read.ok) throw new Error(read.error);
      return read.members;
    },
  };
}

/** Wait until the extension has set a footer that says it joined. */
const joined = (pi: Pi) =>
  pi.waitFor(
    (record) => record.method === "setStatus" && String(record.statusText).startsWith("⚑"),
    "the join to land",
  );

const isMail = (record: PiRecord) =>
  record.type === "message_start" &&
  (record.message as { role?: string; customType?: string })?.customType === "muster-mail";

describe("two pi sessions on one team", () => {
  it("both join under distinct labels; /team shows both; team_send wakes the other with a custom message", async () => {
    const shared = team();
    const alice = shared.start({
      label: "alice",
      script: [
        { tool: "team_send", args: { to: "bob", message: "the API moved to src/api.ts" } },
        { text: "sent" },
      ],
    });
    const bob = shared.start({ label: "bob" });
    await Promise.all([joined(alice), joined(bob)]);
    expect(await bob.prompt("/team join bob --wake")).toMatchObject({
      success: true,
      data: { disposition: "handled" },
    });
    expect(bob.notices().at(-1)).toBe("On the team as bob; mail: wakes.");

    await alice.prompt("/team");
    const status = alice.notices().at(-1)!;
    expect(status).toMatch(/^You are "alice"/);
    expect(status).toMatch(/- alice: pi, live.*\(you\)/);
    expect(status).toMatch(/- bob: pi, live/);
    // A subcommand is looked up in the table's own names, never its prototype's.
    for (const word of ["constructor", "toString", "__proto__", "nonsense"]) {
      await alice.prompt(`/team ${word}`);
      expect(alice.notices().at(-1)).toBe(
        `muster: unknown /team subcommand "${word}"; try status, join, leave, send, inbox, board`,
      );
    }

    expect(await alice.prompt("tell bob")).toMatchObject({ data: { disposition: "started" } });
    const result = await alice.waitFor(
      (record) => record.type === "tool_execution_end" && record.toolName === "team_send",
      "team_send to finish",
    );
    expect(JSON.stringify(result.result)).toMatch(/Sent \(id [^)]+\) to bob\./);

    const mail = await bob.waitFor(isMail, "the mail to arrive in bob's session");
    const message = mail.message as {
      content: string;
      details: { from: { label: string }; body: string };
    };
    expect(message.details).toMatchObject({
      from: { label: "alice" },
      body: "the API moved to src/api.ts",
    });
    expect(message.content).toMatch(/Reply with team_send to "alice"/);
    // It woke bob: a run started after the mail, and the mail was acknowledged, once.
    await bob.waitFor((record) => record.type === "agent_start", "bob to wake");
    const members = await shared.members();
    const bobId = members.find((member) => member.label === "bob")!.id;
    await eventually(
      async () => readdirSync(path.join(shared.dir, "mail", bobId, "cur")).length,
      (count) => count === 1,
      "the ack",
    );
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(bob.records.filter(isMail)).toHaveLength(1);
  }, 60_000);

  it("a label collision: the second session gets the one-line refusal with the fix, and pi keeps working", async () => {
    const shared = team();
    const first = shared.start({ label: "lead" });
    await joined(first);
    const second = shared.start({ label: "lead" });
    const warning = await second.waitFor(
      (record) => record.method === "notify" && record.notifyType === "warning",
      "the refusal",
    );
    expect(warning.message).toMatch(
      /^Could not join as "lead": label "lead" is held by a live pi session \(pid \d+\); only that session's stop frees "lead", or join under another name\.$/,
    );
    expect(await second.prompt("/team")).toMatchObject({ success: true });
    expect(second.statuses().at(-1)).toBe("muster: not joined (label-held)");
  }, 60_000);
});

describe("membership", () => {
  it("/team join renames; --no-listen is respected by a later re-join", async () => {
    const shared = team();
    const pi = shared.start({ label: "first" });
    await joined(pi);
    await pi.prompt("/team join second --no-listen");
    expect(await shared.members()).toMatchObject([
      { label: "second", watching: { armed: false, wake: false }, holdsLabel: true },
    ]);
    await pi.prompt("/team join third");
    expect(await shared.members()).toMatchObject([
      { label: "third", watching: { armed: false, wake: false } },
    ]);
    expect(readdirSync(path.join(shared.dir, "labels"))).toEqual(["third.json"]);
  }, 60_000);

  it("the label comes from MUSTER_LABEL, then the session name, then a generated one", async () => {
    const shared = team();
    const fromEnv = shared.start({ env: { MUSTER_LABEL: "from-env" } });
    const generated = shared.start();
    await Promise.all([joined(fromEnv), joined(generated)]);
    const labels = (await shared.members()).map((member) => member.label).sort();
    expect(labels).toHaveLength(2);
    expect(labels[0]).toBe("from-env");
    expect(labels[1]).toMatch(/^pi-[a-z]+$/);
  }, 60_000);

  it("a session killed with SIGKILL turns gone, and its label is reclaimable once its death is proven", async () => {
    const shared = team();
    const doomed = shared.start({ label: "lead" });
    await joined(doomed);
    doomed.kill();
    await new Promise((resolve) => doomed.child.once("exit", resolve));
    expect(await shared.members()).toMatchObject([
      { label: "lead", state: "gone", why: "process-dead" },
    ]);
    const heir = shared.start({ label: "lead" });
    await joined(heir);
    expect(await shared.members()).toMatchObject([
      { label: "lead", state: "live", pid: heir.child.pid },
    ]);
  }, 60_000);

  it("the roster folder deleted under a running session: the next heartbeat joins again", async () => {
    const shared = team();
    const pi = shared.start({ label: "keeper" });
    await joined(pi);
    rmSync(shared.dir, { recursive: true, force: true });
    const members = await eventually(
      () => shared.members().catch(() => []),
      (list) => list.length === 1,
      "the re-join",
    );
    expect(members).toMatchObject([{ label: "keeper", state: "live", pid: pi.child.pid }]);
  }, 60_000);

  it("session_shutdown leaves: the record and the label are gone after pi exits", async () => {
    const shared = team();
    const pi = shared.start({ label: "leaver" });
    await joined(pi);
    expect(await pi.close()).toBe(0);
    expect(await shared.members()).toEqual([]);
    expect(readdirSync(path.join(shared.dir, "labels"))).toEqual([]);
  }, 60_000);
});

describe("mail policy inside pi", () => {
  it("without wake, mail waits quietly for the next turn; not listening, it waits for team_inbox", async () => {
    const shared = team();
    const sender = shared.start({ label: "sender" });
    const quiet = shared.start({ label: "quiet" });
    const deaf = shared.start({
      label: "deaf",
      script: [{ tool: "team_inbox", args: {} }, { text: "read it" }],
    });
    await Promise.all([joined(sender), joined(quiet), joined(deaf)]);
    await deaf.prompt("/team join deaf --no-listen");
    await sender.prompt("/team send all standup in 5");
    // Delivered into the session (and acknowledged) without starting a run.
    const quietId = (await shared.members()).find((member) => member.label === "quiet")!.id;
    await eventually(
      async () => readdirSync(path.join(shared.dir, "mail", quietId, "cur")).length,
      (count) => count === 1,
      "quiet's ack",
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(quiet.records.some((record) => record.type === "agent_start")).toBe(false);
    await quiet.prompt("anything new?");
    const mail = await quiet.waitFor(isMail, "the queued mail at the next turn");
    expect((mail.message as { details: { body: string } }).details.body).toBe("standup in 5");
    expect(deaf.records.some(isMail)).toBe(false);
    await deaf.prompt("check mail");
    const inbox = await deaf.waitFor(
      (record) => record.type === "tool_execution_end" && record.toolName === "team_inbox",
      "team_inbox",
    );
    expect(JSON.stringify(inbox.result)).toMatch(/standup in 5/);
  }, 60_000);
});

describe("hostile text from peers", () => {
  it("mail, /team, a refusal and the footer reach pi with no raw control byte; details stay exact", async () => {
    const shared = team();
    const hostile = "\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u009b31m\u202Egnp";
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these bytes
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    const opened = await openRoster({
      dir: shared.dir,
      fs: nodeFs,
      clock: Date.now,
      processes: processFacts,
    });
    if (!opened.ok) throw new Error(opened.error);
    const planted = await opened.roster.join({
      id: "planted",
      label: "lead",
      agent: hostile,
      pid: process.pid,
      watching: { armed: false, wake: false },
      liveness: "heartbeat",
    });
    expect(planted).toMatchObject({ ok: true });
    const bob = shared.start({ label: "lead" });
    const refusal = await bob.waitFor(
      (record) => record.method === "notify" && record.notifyType === "warning",
      "the refusal naming the holder",
    );
    expect(String(refusal.message)).toContain("\\x1b]52;");
    await bob.prompt("/team join bob --wake");
    await bob.prompt("/team");
    const body = `line one\n\t${hostile}`;
    expect(await opened.roster.send({ from: "planted", to: "bob", body })).toMatchObject({
      ok: true,
    });
    const mail = await bob.waitFor(isMail, "the hostile mail");
    const message = mail.message as { content: string; details: { body: string } };
    expect(message.details.body).toBe(body);
    expect(message.content).toContain("line one\n\t\\x1b]52;");
    for (const text of [message.content, ...bob.notices(), ...bob.statuses()])
      expect(text).not.toMatch(raw);
    expect(bob.notices().join("\n")).toContain("\\x9b31m");
  }, 60_000);
});

describe("packaging", () => {
  it("loads in pi from its packed tarball, as pi install would use it, with its skill", async () => {
    const packDir = mkdtempSync(path.join(scratch, "pack-"));
    const root = path.resolve(import.meta.dirname, "..");
    execFileSync("pnpm", ["pack", "--pack-destination", packDir], { cwd: root, stdio: "pipe" });
    const tarball = path.join(packDir, readdirSync(packDir).find((name) => name.endsWith(".tgz"))!);
    // Unpacked where an install puts it. It has no runtime dependency (muster's packages are
    // bundled), and pi provides its peers, so nothing else is installed: the test needs no registry.
    const installed = path.join(packDir, "project", "node_modules", "@muster", "pi-extension");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    // pi shows a package's CHANGELOG.md after an update, so it ships.
    expect(readdirSync(installed).sort()).toEqual([
      "CHANGELOG.md",
      "LICENSE",
      "README.md",
      "dist",
      "package.json",
      "skills",
    ]);
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8"));
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toEqual({
      "@earendil-works/pi-coding-agent": "*",
      typebox: "*",
    });
    expect(manifest.pi).toEqual({ extensions: ["./dist/index.js"], skills: ["./skills"] });
    const shared = team();
    const pi = shared.start({ label: "packed", extension: installed });
    await joined(pi);
    const commands = await pi.command({ type: "get_commands" });
    const names = (commands.data as { commands: { name: string }[] }).commands.map(
      (command) => command.name,
    );
    expect(names).toContain("team");
    expect(names).toContain("skill:team-etiquette");
  }, 120_000);
});
