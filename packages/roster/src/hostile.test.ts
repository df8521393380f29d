// The roster in a hostile world, on a real filesystem: folders that are not teams, shared and
// borrowed folders, symlinks planted inside the team, entries that are not what their names say,
// and a member in another pid namespace. Files planted outside are checked byte for byte.
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFs, processFacts, processStart } from "@muster/node";
import { lineQueue } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { type JoinInput, openRoster } from "./index.js";

const scratch = mkdtempSync(path.join(tmpdir(), "muster-hostile-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let count = 0;
const fresh = (name: string) => {
  count += 1;
  return path.join(scratch, `${name}-${count}`);
};
const open = (dir: string) =>
  openRoster({ dir, fs: nodeFs, clock: Date.now, processes: processFacts });
async function team(dir = fresh("team")) {
  const opened = await open(dir);
  if (!opened.ok) throw new Error(opened.error);
  return { dir, roster: opened.roster };
}
const me = (id: string, label: string): JoinInput => ({
  id,
  label,
  agent: "pi",
  pid: process.pid,
  pidStart: processStart(process.pid),
  watching: { armed: true, wake: false },
  liveness: "heartbeat",
});

/** Every file under `folder` with its bytes, to prove nothing outside the team was touched. */
function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(folder, full)] = readFileSync(full, "base64");
    }
  };
  walk(folder);
  return files;
}
/** A folder outside every team, with files named like roster files. */
function outside() {
  const folder = fresh("outside");
  mkdirSync(folder, { recursive: true });
  const old = { v: 1, id: "victim", label: "victim", at: "2000-01-01T00:00:00.000Z", pid: 1 };
  writeFileSync(path.join(folder, "victim.json"), JSON.stringify(old));
  writeFileSync(path.join(folder, "m1.json"), "precious bytes");
  writeFileSync(path.join(folder, "notes.lock"), "mine");
  return folder;
}

describe("folders that are not teams", () => {
  it("a repository with labels/, locks/, mail/ and sessions/ is refused; nothing in it moves", async () => {
    const repo = fresh("repo");
    for (const sub of ["labels", "locks", "mail/alice", "sessions"]) {
      mkdirSync(path.join(repo, sub), { recursive: true });
      writeFileSync(path.join(repo, sub, "old.json"), '{"v":1,"user":"data"}');
    }
    writeFileSync(path.join(repo, "README.md"), "# my project\n");
    const before = snapshot(repo);
    const opened = await open(repo);
    expect(opened).toMatchObject({ ok: false, reason: "not-a-team" });
    expect(opened.ok === false && opened.error).toMatch(/is not a muster team folder/);
    expect(snapshot(repo)).toEqual(before);
    expect(readdirSync(repo).sort()).toEqual(["README.md", "labels", "locks", "mail", "sessions"]);
  });

  it("a new or empty folder becomes a team, marked so; the mark lets it open again", async () => {
    const empty = fresh("empty");
    mkdirSync(empty, { mode: 0o700 });
    const { roster } = await team(empty);
    expect(readdirSync(empty)).toContain("muster-team.json");
    expect(await roster.join(me("s1", "alice"))).toMatchObject({ ok: true });
    expect((await open(empty)).ok).toBe(true);
  });

  it("a new folder opened by 8 processes at once is a team to every one of them", async () => {
    const dir = fresh("together");
    const worker = path.join(import.meta.dirname, "..", "test", "worker.ts");
    const children = Array.from({ length: 8 }, (_, index) =>
      spawn(process.execPath, [worker, "hold", dir, `s${index}`, `member-${index}`], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    try {
      const answers = await Promise.all(
        children.map(async (child) => JSON.parse(await lineQueue(child.stdout!).next())),
      );
      expect(answers.filter((answer) => answer.ok)).toHaveLength(8);
    } finally {
      for (const child of children) child.kill("SIGKILL");
    }
  });

  it("/tmp itself (shared, sticky) is refused, with a fix that does not weaken it", async () => {
    const shared = fresh("shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const opened = await open(shared);
    expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
    const error = opened.ok ? "" : opened.error;
    expect(error).toMatch(/shared/);
    expect(error).not.toMatch(/chmod/);
    expect(statSync(shared).mode & 0o7777).toBe(0o1777);
    expect(readdirSync(shared)).toEqual([]);
    const tmp = await open("/tmp");
    expect(tmp.ok === false && tmp.error).not.toMatch(/chmod 700 \/tmp/);
  });

  it.runIf(process.getuid?.() === 0)(
    "a team folder reached through another user's symlink in a sticky folder is refused",
    async () => {
      const shared = fresh("sticky");
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      const mine = fresh("mine");
      mkdirSync(mine, { mode: 0o700 });
      const link = path.join(shared, "team");
      symlinkSync(mine, link);
      lchownSync(link, 65534, 65534);
      const opened = await open(link);
      expect(opened).toMatchObject({ ok: false, reason: "unsafe-folder" });
      expect(opened.ok === false && opened.error).toMatch(/symlink .*uid 65534/);
      expect(readdirSync(mine)).toEqual([]);
    },
  );
});

describe("symlinks planted inside the team", () => {
  it.each(["labels", "locks", "sessions"])(
    "%s/ replaced by a symlink: prune and read follow nothing out",
    async (sub) => {
      const { dir, roster } = await team();
      await roster.join(me("s1", "alice"));
      const victim = outside();
      const before = snapshot(victim);
      rmSync(path.join(dir, sub), { recursive: true, force: true });
      symlinkSync(victim, path.join(dir, sub));
      const later = await openRoster({
        dir,
        fs: nodeFs,
        clock: () => Date.now() + 3 * 3_600_000,
        processes: processFacts,
      });
      if (later.ok) {
        await later.roster.prune();
        await later.roster.read({ all: true });
      }
      expect(snapshot(victim)).toEqual(before);
    },
  );

  it("mail/<id>/new and tmp replaced by symlinks: inbox and send follow nothing out", async () => {
    const { dir, roster } = await team();
    await roster.join(me("s1", "alice"));
    await roster.join(me("s2", "bob"));
    const victim = outside();
    const before = snapshot(victim);
    for (const sub of ["new", "tmp"]) {
      rmSync(path.join(dir, "mail", "s2", sub), { recursive: true });
      symlinkSync(victim, path.join(dir, "mail", "s2", sub));
    }
    const inbox = await roster.receive("s2");
    expect(inbox).toMatchObject({ ok: false, reason: "unreadable" });
    expect(inbox.ok === false && inbox.error).toMatch(/symlink/);
    expect(await roster.ack("s2", ["m1"])).toMatchObject({ ok: false });
    const receipt = await roster.send({ from: "alice", to: "bob", body: "hi", id: "m1" });
    expect(receipt.ok).toBe(false);
    await roster.prune();
    expect(snapshot(victim)).toEqual(before);
    expect(readdirSync(path.join(dir, "quarantine"))).toEqual([]);
  });

  it("a broadcast with one mailbox unwritable reaches the others, and names the one it did not", async () => {
    const { dir, roster } = await team();
    await roster.join(me("s1", "alice"));
    await roster.join(me("s2", "bob"));
    await roster.join(me("s3", "carol"));
    // As root, chmod blocks nothing: a file where tmp/ should be is what the lstat check refuses.
    rmSync(path.join(dir, "mail", "s3", "tmp"), { recursive: true });
    writeFileSync(path.join(dir, "mail", "s3", "tmp"), "not a folder");
    const receipt = await roster.send({ from: "alice", to: "all", body: "standup" });
    expect(receipt).toMatchObject({
      ok: true,
      to: [{ id: "s2", label: "bob", duplicate: false }],
      refused: [{ id: "s3", label: "carol", reason: "unwritable" }],
    });
    expect(receipt.ok && receipt.refused[0]?.error).toMatch(/mailbox of "carol".*not a folder/);
    const bob = await roster.receive("s2");
    expect(bob.ok && bob.messages.map((message) => message.body)).toEqual(["standup"]);
    // Nothing written at all: the whole send is refused, still per recipient.
    const alone = await roster.send({ from: "alice", to: "carol", body: "hi" });
    expect(alone).toMatchObject({
      ok: false,
      reason: "unwritable",
      refused: [{ id: "s3", label: "carol", reason: "unwritable" }],
    });
  });

  it("a symlink planted at a predictable temp name is never written through", async () => {
    const { dir, roster } = await team();
    await roster.join(me("s1", "alice"));
    await roster.join(me("s2", "bob"));
    const victim = outside();
    const before = snapshot(victim);
    symlinkSync(path.join(victim, "m1.json"), path.join(dir, "mail", "s2", "tmp", "m-9.json"));
    expect(await roster.send({ from: "alice", to: "bob", body: "hi", id: "m-9" })).toMatchObject({
      ok: true,
    });
    expect(snapshot(victim)).toEqual(before);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["hi"]);
  });
});

describe("entries that are not what their names say", () => {
  it("folders and FIFOs named like records, claims and messages are named warnings, never fatal", async () => {
    const { dir, roster } = await team();
    await roster.join(me("s1", "alice"));
    await roster.join(me("s2", "bob"));
    await roster.send({ from: "alice", to: "bob", body: "still served" });
    mkdirSync(path.join(dir, "sessions", "x.json"));
    mkdirSync(path.join(dir, "labels", "y.json"));
    mkdirSync(path.join(dir, "mail", "s2", "new", "z.json"));
    execFileSync("mkfifo", [path.join(dir, "sessions", "fifo.json")]);
    execFileSync("mkfifo", [path.join(dir, "mail", "s2", "new", "f.json")]);
    const read = await roster.read();
    expect(read.ok && read.members.map((member) => member.label)).toEqual(["alice", "bob"]);
    expect(read.ok && read.warnings.join("\n")).toMatch(/sessions\/x\.json/);
    expect(read.ok && read.warnings.join("\n")).toMatch(/labels\/y\.json/);
    expect(await roster.unread("s2")).toBe(1);
    const inbox = await roster.receive("s2");
    expect(inbox.ok && inbox.messages.map((message) => message.body)).toEqual(["still served"]);
    expect(inbox.ok && inbox.warnings.join("\n")).toMatch(/mail\/s2\/new\/z\.json/);
    const pruned = await roster.prune();
    expect(pruned).toMatchObject({ ok: true });
    expect((await roster.read()).ok).toBe(true);
  });
});

describe("liveness across pid namespaces", () => {
  const unshared = (() => {
    try {
      execFileSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" });
      return true;
    } catch {
      console.log("skipped: unshare --pid is not available here");
      return false;
    }
  })();

  it.runIf(unshared)(
    "a live member in another pid namespace keeps its label: the host proves nothing",
    async () => {
      const { dir, roster } = await team();
      const worker = path.join(import.meta.dirname, "..", "test", "worker.ts");
      const child = spawn(
        "unshare",
        [
          "--pid",
          "--fork",
          "--kill-child",
          "--mount-proc",
          process.execPath,
          worker,
          "hold",
          dir,
          "boxed",
          "lead",
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      try {
        const queue = lineQueue(child.stdout!);
        expect(JSON.parse(await queue.next())).toMatchObject({ ok: true });
        const read = await roster.read();
        expect(read.ok && read.members[0]).toMatchObject({ label: "lead", state: "live" });
        expect(await roster.join(me("s2", "lead"))).toMatchObject({
          ok: false,
          reason: "label-held",
        });
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});
