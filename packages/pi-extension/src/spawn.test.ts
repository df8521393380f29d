// The pi door to spawning, in the real pi host: a pi in a pane of a private tmux server (its TUI,
// the faux model, a throwaway home) whose model calls team_spawn; the new pi opens beside pi's own
// pane and joins under the label, with the task as its first mail. And /team spawn from a pi that
// sits in no pane: refused, nothing opened.
// Whole real pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { EXTENSION, PI_CLI } from "../test/pi-rpc.js";
import { removeScratch, team } from "../test/team.js";
import { parseSpawnWords } from "./_spawn.ts";

const FAUX = path.join(import.meta.dirname, "..", "test", "faux-extension.ts");
const servers: PrivateTmux[] = [];
afterAll(() => {
  for (const server of servers) server.kill();
  removeScratch();
});

/** A `pi` on PATH that starts the real pi with the extension and the faux model, as a user's would. */
function piOnPath(home: string): string {
  const bin = path.join(home, "bin");
  mkdirSync(bin, { recursive: true });
  const quoted = [process.execPath, PI_CLI, "-e", EXTENSION, "-e", FAUX]
    .map((word) => `'${word}'`)
    .join(" ");
  writeFileSync(
    path.join(bin, "pi"),
    `#!/bin/sh\nexec ${quoted} --provider faux --model faux-1 --offline "$@"\n`,
  );
  chmodSync(path.join(bin, "pi"), 0o755);
  return bin;
}

type Pane = { id: string; window: string; left: number };
const panesOf = (server: PrivateTmux): Pane[] =>
  server
    .tmux("list-panes", "-a", "-F", "#{pane_id} #{window_id} #{pane_left}")
    .trim()
    .split("\n")
    .map((line) => {
      const [id = "", window = "", left = "0"] = line.split(" ");
      return { id, window, left: Number(left) };
    });

/** Every entry of every pi session file under this home. */
function sessionEntries(home: string): Record<string, unknown>[] {
  const root = path.join(home, ".pi", "agent", "sessions");
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) =>
    name.endsWith(".jsonl"),
  );
  return files.flatMap((name) =>
    readFileSync(path.join(root, name), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
}

describe.skipIf(!LONG_TESTS)("team_spawn in the real pi host", () => {
  it("the model's team_spawn opens a pane beside pi's own; the new pi joins under the label and gets the task as mail", async (test) => {
    const shared = team(test);
    const home = path.join(shared.cwd, "home");
    mkdirSync(path.join(home, "tmp"), { recursive: true });
    const bin = piOnPath(home);
    const server = startPrivateTmux({
      env: {
        HOME: home,
        TMPDIR: path.join(home, "tmp"),
        PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
        MUSTER_TEAM_DIR: shared.dir,
        MUSTER_HEARTBEAT_MS: "300",
      },
    });
    servers.push(server);
    const task = "read src/a.ts and report";
    const script = [{ tool: "team_spawn", args: { engine: "pi", label: "kid", task } }];
    // Only the caller's pane has the script: the new pane gets the server's environment.
    const boss = server
      .tmux(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-c",
        shared.cwd,
        "-e",
        `MUSTER_FAUX_SCRIPT=${JSON.stringify(script)}`,
        "-e",
        "MUSTER_LABEL=boss",
        "--",
        "pi",
        "--",
        "spawn a helper",
      )
      .trim();

    const members = await eventually(
      () => shared.members(),
      (all) => all.some((member) => member.label === "kid" && member.state === "live"),
      "the spawned pi to join as kid",
      { attempts: 300, intervalMs: 100 },
    );
    const kid = members.find((member) => member.label === "kid")!;
    // Spawned to take work by mail: its mail wakes it, from pi's door as from every other.
    expect(kid.watching).toEqual({ armed: true, wake: true });
    const all = panesOf(server);
    const mine = all.find((pane) => pane.id === boss)!;
    const theirs = all.find((pane) => pane.id === kid.seat?.pane)!;
    expect(theirs).toBeDefined();
    expect(theirs.id).not.toBe(boss);
    expect(theirs.window).toBe(mine.window);
    expect(theirs.left).toBeGreaterThan(mine.left);

    // The spawn record names the caller: its pane and its label.
    const record = JSON.parse(readFileSync(path.join(shared.dir, "spawned", "kid.json"), "utf8"));
    expect(record).toMatchObject({
      label: "kid",
      pane: theirs.id,
      by: { pane: boss, label: "boss" },
    });

    // The tool answered the model with the state reached.
    const result = await eventually(
      () =>
        sessionEntries(home)
          .map((entry) => entry.message as { role?: string; toolName?: string; content?: unknown })
          .find((message) => message?.role === "toolResult" && message.toolName === "team_spawn"),
      (found) => found !== undefined,
      "team_spawn's result in pi's session",
      { attempts: 100, intervalMs: 100 },
    );
    expect(JSON.stringify(result?.content)).toMatch(
      new RegExp(
        `pane ${theirs.id} opened in main; pi started \\(pid \\d+\\); joined as kid; woken by its mail; task mailed`,
      ),
    );

    // The task is the kid's first mail, from boss.
    const roster = await shared.roster();
    const mail = await eventually(
      async () => {
        const folder = path.join(shared.dir, "mail", kid.id);
        return ["new", "cur"].flatMap((box) => {
          try {
            return readdirSync(path.join(folder, box)).map((name) =>
              JSON.parse(readFileSync(path.join(folder, box, name), "utf8")),
            );
          } catch {
            return [];
          }
        });
      },
      (messages) => messages.length > 0,
      "the task's mail",
    );
    expect(mail.map((message) => [message.from.label, message.body])).toEqual([["boss", task]]);
    expect((await roster.read()).ok).toBe(true);
  });
});

describe.skipIf(!LONG_TESTS)("/team spawn", () => {
  it("from a pi whose seat cannot be proven: refused with the seat's reason, nothing opened", async (test) => {
    const shared = team(test);
    const pi = shared.start({ label: "alone" });
    await pi.prompt("/team spawn pi --label kid do things");
    const notice = await pi.waitFor(
      (record) => record.method === "notify" && String(record.message).startsWith("Not spawned"),
      "the refusal",
    );
    expect(String(notice.message)).toMatch(
      /^Not spawned: no seat to spawn beside, nothing opened: this session runs outside tmux/,
    );
    expect(() => readdirSync(path.join(shared.dir, "spawned"))).toThrow();
  });

  it("without an engine: the usage", async (test) => {
    const shared = team(test);
    const pi = shared.start({ label: "alone" });
    await pi.prompt("/team spawn --window");
    expect(pi.notices().at(-1)).toBe(
      "usage: /team spawn <engine> [--label L] [--window] [--worktree] [--quiet] [task…]",
    );
  });
});

describe("/team spawn's words", () => {
  it("--quiet asks for a member whose mail does not wake it; by default it wakes (no quiet)", () => {
    expect(parseSpawnWords(["pi", "--label", "kid", "--quiet", "read", "a.ts"])).toEqual({
      engine: "pi",
      label: "kid",
      quiet: true,
      task: "read a.ts",
    });
    expect(parseSpawnWords(["pi", "read"])).toEqual({ engine: "pi", task: "read" });
  });
});
