// The SIGKILL storm: members joining, reclaiming dead members' labels, sending, reading and
// leaving, a pruner racing their reclaims and re-joins, and a taker that stops itself inside a
// takeover lock (continued after the others broke it), all SIGKILLed at random steps in a team
// folder with hostile symlinks planted to files outside it. Afterwards: one holder per label, no
// live member without its claim, no message with a receipt lost, and nothing outside touched.
import { type ChildProcess, spawn } from "node:child_process";
import {
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
import { nodeFs, processFacts as procFacts } from "@muster/node";
import { lineQueue, rounds } from "@muster/test-support";
import { afterAll, afterEach, expect, it } from "vitest";
import { openRoster } from "./index.js";

const WORKER = path.join(import.meta.dirname, "..", "test", "storm-worker.ts");
const scratch = mkdtempSync(path.join(tmpdir(), "muster-storm-"));
const children = new Set<ChildProcess>();
/** Set when the test ends (or times out): no new worker is started after that. */
let stopping = false;

afterEach(() => {
  stopping = true;
  for (const child of children) child.kill("SIGKILL");
  children.clear();
});
// Tens of thousands of files after a long storm: removing them takes longer than a hook's 10 s.
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 120_000);

type Worker = ReturnType<typeof worker>;
function worker(mode: string, dir: string, id: string) {
  if (stopping) throw new Error("the storm is over");
  const child = spawn(process.execPath, [WORKER, mode, dir, id], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.add(child);
  const queue = lineQueue(child.stdout!);
  let killed = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // A worker that dies on its own (a throw) fails the storm instead of hanging it.
  const died = exited.then(() => {
    if (!killed) throw new Error(`${id} (${mode}) exited by itself`);
    return "";
  });
  died.catch(() => undefined);
  const next = () => Promise.race([queue.next(), died]);
  const closed = new Promise((resolve) => child.stdout!.once("close", resolve));
  const seen: string[] = [];
  /**
   * SIGKILL it; what it printed before it died (not read yet) is kept in `seen`. A mailbox it was
   * moving aside when it died ("forgetting" with no "forgot" after it) counts as forgotten then.
   */
  const kill = async () => {
    killed = true;
    child.kill("SIGKILL");
    await exited;
    await closed;
    await new Promise((resolve) => setImmediate(resolve));
    seen.push(...queue.lines.splice(0));
    const unfinished = [...seen].reverse().find((line) => /^(forgetting|forgot) /.test(line));
    if (unfinished?.startsWith("forgetting "))
      seen.push(`forgot ${unfinished.split(" ")[1]} ${Date.now()}`);
  };
  return { child, mode, id, next, kill, exited, seen };
}

/** Every regular file under `folder`; symlinks are neither followed nor listed. */
const walk = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? walk(path.join(folder, entry.name))
      : entry.isFile()
        ? [path.join(folder, entry.name)]
        : [],
  );
const snapshot = (folder: string) =>
  new Map(walk(folder).map((file) => [file, readFileSync(file).toString("base64")]));
const isLeftover = (dir: string, file: string) => {
  const name = path.basename(file);
  return (
    (name.startsWith(".") && name.endsWith(".tmp")) ||
    path.relative(dir, file).split(path.sep).at(-2) === "tmp"
  );
};

/** Files outside the team, and symlinks to them planted where the roster reads and writes. */
function plantOutside(dir: string) {
  const outside = path.join(scratch, "outside");
  mkdirSync(path.join(outside, "box"), { recursive: true });
  writeFileSync(path.join(outside, "secret.txt"), `keep me ${Math.random()}\n`);
  writeFileSync(path.join(outside, "claim.json"), '{"v":1,"key":"evil","holder":"w0"}\n');
  writeFileSync(path.join(outside, "box", "m1.json"), '{"v":1,"id":"m1"}\n');
  symlinkSync(path.join(outside, "claim.json"), path.join(dir, "labels", "evil.json"));
  symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "sessions", "evil.json"));
  // A mailbox of nobody whose folders lead out: prune forgets it, and must follow nothing.
  mkdirSync(path.join(dir, "mail", "w9"), { mode: 0o700 });
  symlinkSync(path.join(outside, "box"), path.join(dir, "mail", "w9", "new"));
  symlinkSync(path.join(outside, "box"), path.join(dir, "mail", "w9", "tmp"));
  return { outside, before: snapshot(outside) };
}

const stopped = (pid: number) => {
  try {
    return /^\d+ \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/\n/g, " "));
  } catch {
    return true; // gone: nothing to wait for
  }
};

/** Continue a worker that said it stops itself, once it has (it prints, then stops). */
async function continueStopped(member: Worker, afterMs: number) {
  for (let tries = 0; tries < 400 && !stopped(member.child.pid!); tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  member.child.kill("SIGCONT");
}

/** Kill `victim` after it finished `steps` steps; continue it at once if it stopped itself. */
async function killAfter(victim: Worker, steps: number) {
  for (let done = 0; done < steps; ) {
    const line = await victim.next();
    victim.seen.push(line);
    if (line === "stalled") {
      // Stopped inside a takeover lock that already looks stale: the others break it meanwhile.
      await continueStopped(victim, 20 + Math.random() * 150);
    } else if (/^(step|left|joined |sent |acked )/.test(line)) done += 1;
    else if (!/^(forgetting|forgot|acking) /.test(line))
      throw new Error(`${victim.id} said: ${line}`);
  }
  await victim.kill();
}

/** Ask a worker to stop after its current step; the label it believes it holds. */
async function quieten(member: Worker): Promise<string | undefined> {
  member.child.kill("SIGCONT");
  member.child.stdin!.write("quiet\n");
  for (;;) {
    const line = await member.next();
    if (line === "stalled") await continueStopped(member, 0);
    else if (line.startsWith("idle ")) return line === "idle -" ? undefined : line.slice(5);
    else member.seen.push(line);
  }
}

// The long variant: 120 kills (10× the short one). 240 outlasted the test's 240 s on the 2-core
// machine once the store contract and receipt folding landed; why it slowed is not yet found.
// `pnpm test` keeps 12 (about 5 s): every kind of kill still lands (a chaos step, the staller, the
// pruner); more kills only make a rare interleaving likelier, which test:long (CI) is for.
const KILLS = rounds(12, 120);
it(
  `a SIGKILL storm of ${KILLS} kills with a pruner and a stalled taker: one holder per label, no message lost, nothing outside touched`,
  async () => {
    const dir = path.join(scratch, "team");
    const opened = await openRoster({ dir, fs: nodeFs, clock: Date.now, processes: procFacts });
    if (!opened.ok) throw new Error(opened.error);
    const { outside, before } = plantOutside(dir);
    const modes = ["chaos", "chaos", "chaos", "chaos", "staller", "prune"];
    const start = (slot: number) =>
      worker(modes[slot]!, dir, modes[slot] === "prune" ? "p0" : `w${slot}`);
    const pool = modes.map((_, slot) => start(slot));
    const history: string[] = [];
    for (let kills = 0; kills < KILLS; kills += 1) {
      const slot = Math.floor(Math.random() * pool.length);
      const victim = pool[slot]!;
      await killAfter(victim, 1 + Math.floor(Math.random() * 12));
      history.push(...victim.seen);
      pool[slot] = start(slot);
    }

    // Every member finishes its step and stays alive: what each believes is checked against the files.
    const beliefs = await Promise.all(pool.map((member) => quieten(member)));
    for (const member of pool) history.push(...member.seen);
    const read = await opened.roster.read();
    if (!read.ok) throw new Error(read.error);
    const alive = new Map(pool.map((member) => [member.child.pid, member.id]));
    for (const [index, label] of beliefs.entries()) {
      if (label === undefined) continue;
      const claim = await opened.roster.readClaim("labels", label);
      expect(claim !== "unreadable" && claim?.holder, `${pool[index]!.id} holds ${label}`).toBe(
        pool[index]!.id,
      );
    }
    // One holder per label: no two members believe they hold the same one.
    const held = beliefs.filter((label) => label !== undefined).map((label) => label.toLowerCase());
    expect(new Set(held).size).toBe(held.length);
    for (const member of read.members.filter((entry) => alive.get(entry.pid) === entry.id)) {
      expect(member.holdsLabel, `live ${member.id} holds ${member.label}`).toBe(true);
    }

    // Nothing outside the team folder changed, byte for byte.
    expect(snapshot(outside)).toEqual(before);

    // No message with a receipt is lost: it is in a mailbox (forwarded or not) or moved aside.
    const sent = history.filter((line) => line.startsWith("sent ")).map((line) => line.split(" "));
    // Ids are reused by every life of a slot: what counts is whether prune forgot the reader after
    // it read, by the wall clock both print: a forget that ended (its mailbox moved aside) at or
    // after the moment an ack began may have taken the acked mail with it. Counting from the end of
    // the ack instead (after its receipts were written) missed a forget that landed between the
    // ack's move to cur/ and its receipt, and failed main's baseline on 2026-12-01.
    const forgets = new Map<string, number[]>();
    for (const line of history.filter((entry) => entry.startsWith("forgot "))) {
      const [, id, at] = line.split(" ");
      forgets.set(id!, [...(forgets.get(id!) ?? []), Number(at)]);
    }
    const forgotSince = (reader: string, began: number) =>
      (forgets.get(reader) ?? []).some((forgotAt) => forgotAt >= began);
    const acked = history
      .filter((line) => line.startsWith("acked "))
      .map((line) => line.split(" "))
      .map(([, reader, id, at]) => ({ reader: reader!, id: id!, at: Number(at) }));
    // A reader killed between moving its mail to cur/ and printing "acked" printed "acking" first.
    const acking = history
      .filter((line) => line.startsWith("acking "))
      .flatMap((line) => {
        const [, reader, at, ...ids] = line.split(" ");
        return ids.map((id) => ({ reader: reader!, id, at: Number(at) }));
      });
    expect(sent.length).toBeGreaterThan(5);
    const files = walk(dir).filter((file) => !isLeftover(dir, file));
    // Mail lives in mailboxes, or under expired/ once prune moved it aside: nowhere else counts.
    const stored = new Set(
      files
        .filter((file) => /^(mail|expired)\//.test(path.relative(dir, file)))
        .map((file) => path.basename(file)),
    );
    // Read by a member prune forgot afterwards (its own copy, or one forwarded to it): read mail goes
    // with its member, as documented. A member that took a dead member's label over, read the mail
    // forwarded to it and was killed before it said so, then was forgotten, made this storm report
    // lost messages on 2026-11-30 (24 in one run, all after an "acking" line of that member).
    const readThenForgotten = new Set(
      [...acked, ...acking]
        .filter((read) => forgotSince(read.reader, read.at))
        .map((read) => read.id),
    );
    const lost = sent.filter(
      ([, , id]) => !readThenForgotten.has(id!) && !stored.has(`${id}.json`),
    );
    // What the workers said of each lost message, and where its file is, kept for the post-mortem.
    const trace = path.join(tmpdir(), `muster-storm-lost-${process.pid}.txt`);
    if (lost.length > 0) {
      const said = lost.map(([, to, id]) =>
        [
          `${to}/${id}: ${walk(dir)
            .filter((file) => file.includes(id!))
            .join(" ")}`,
          ...history.filter((line) => line.includes(id!) || line.startsWith("forgot ")),
        ].join("\n  "),
      );
      writeFileSync(trace, `${said.join("\n")}\n\nall lines:\n${history.join("\n")}\n`);
    }
    for (const [, to, id] of sent) {
      if (readThenForgotten.has(id!)) continue;
      expect(stored.has(`${id}.json`), `${to}/${id} (see ${trace})`).toBe(true);
    }
    for (const { reader, id, at } of acked) {
      if (forgotSince(reader, at)) continue; // its read mail went with it, as prune documents
      const file = path.join(dir, "mail", reader, "cur", `${id}.json`);
      expect(statSync(file, { throwIfNoEntry: false }), `${reader}/cur/${id}`).toBeTruthy();
    }

    // Every file parses, or is a named leftover that a later prune clears.
    await Promise.all(pool.map((member) => member.kill()));
    for (const file of files) {
      if (statSync(file, { throwIfNoEntry: false }) === undefined) continue;
      expect(() => JSON.parse(readFileSync(file, "utf8")), path.relative(dir, file)).not.toThrow();
    }
    const later = await openRoster({
      dir,
      fs: nodeFs,
      clock: () => Date.now() + 11_000,
      processes: procFacts,
    });
    if (!later.ok) throw new Error(later.error);
    expect((await later.roster.prune()).ok).toBe(true);
    expect(walk(dir).filter((file) => isLeftover(dir, file))).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    // 240 kills (test:long) took 60-83 s in four runs on 2 cores at load 12-17; 24 kills about 10 s, 12 about 5.
  },
  rounds(120_000, 240_000),
);
