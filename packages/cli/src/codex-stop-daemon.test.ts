// `muster stop` of a Codex member ends the app-server daemon its spawn's Codex started (Codex
// 0.171.0 re-parents it to pid 1 when the TUI exits, and it would run on for minutes), proven by
// ancestry before the stop and by pid and start time after; where another Codex of the same home
// still runs, it stays and stop says why. Real Codex, offline (the scripted model), spawned from a
// bare bash pane of a private tmux server. Whole real Codex sessions: `pnpm test:long`.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { eventually, LONG_TESTS, managedDaemons, realCodex } from "@muster/test-support";
import { afterEach, expect, it } from "vitest";

const run = promisify(execFile);
const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

it.skipIf(!LONG_TESTS)(
  "stop ends the Codex daemon its spawn started when no other Codex of that home runs; else it stays, said",
  async () => {
    const codex = await realCodex({
      prefix: "muster-codex-stop-",
      codex: CODEX,
      muster: MUSTER,
      // Each task's turn: one call of muster's tools (a Codex member joins at its first), a reply.
      script: [1, 2, 3].flatMap(() => [
        { call: { name: "team_cards", namespace: "mcp__muster", arguments: {} } },
        { text: "On it." },
      ]),
    });
    cleanups.push(() => codex.close());
    const { home, server, env } = codex;
    /** `muster spawn codex` typed in the bare bash pane (its seat), as a person would. */
    const spawnCodex = async (label: string) => {
      const out = path.join(home, `spawn-${label}`);
      server.tmux(
        "send-keys",
        "-t",
        "main",
        "-l",
        `'${process.execPath}' '${MUSTER}' spawn codex --label ${label} --task 'say on it' --json > ${out}.json 2> ${out}.err; echo $? > ${out}.status`,
      );
      server.tmux("send-keys", "-t", "main", "Enter");
      const status = await eventually(
        () => readOr(`${out}.status`).trim(),
        (text) => text !== "",
        `muster spawn codex --label ${label}`,
        { attempts: 900, intervalMs: 100 },
      );
      const panes = () =>
        server
          .tmux("list-panes", "-a", "-F", "#{pane_id}")
          .trim()
          .split("\n")
          .map((pane) => `${pane}:\n${server.tmux("capture-pane", "-p", "-t", pane)}`)
          .join("\n");
      if (status !== "0")
        expect.fail(`${readOr(`${out}.json`)} ${readOr(`${out}.err`)}\n${panes()}`);
    };
    const stop = async (label: string) => {
      const result = await run(
        process.execPath,
        [MUSTER, "stop", label, "--json", "-L", server.name],
        {
          cwd: codex.repo,
          env,
        },
      );
      return JSON.parse(result.stdout);
    };

    await spawnCodex("first");
    const daemons = managedDaemons(home);
    expect(daemons).toHaveLength(1);
    // A second Codex of the same home: it uses the first one's daemon.
    await spawnCodex("second");
    expect(managedDaemons(home)).toEqual(daemons);

    // The first stopped while the second runs: the daemon stays, and stop says why.
    const first = await stop("first");
    expect(first, first.daemon?.note).toMatchObject({ ok: true, daemon: { ended: false } });
    expect(first.daemon.pids).toContain(daemons[0]);
    expect(first.daemon.note).toMatch(/stays: another Codex of .* \(pid \d+\) may use it/);
    expect(managedDaemons(home)).toEqual(daemons);

    // The second did not start it, but the first's stop kept it for the second: stopping the last
    // Codex of that home ends it, proven by the pid and start time the first's stop kept.
    const second = await stop("second");
    expect(second, second.daemon?.note).toMatchObject({ ok: true, daemon: { ended: true } });
    expect(second.daemon.pids).toEqual(first.daemon.pids);
    expect(managedDaemons(home)).toEqual([]);

    // A third Codex started alone in the home: its own daemon, ended by its stop.
    await spawnCodex("third");
    const own = managedDaemons(home);
    expect(own).toHaveLength(1);
    const third = await stop("third");
    expect(third, third.daemon?.note).toMatchObject({ ok: true, daemon: { ended: true } });
    expect(third.daemon.note).toMatch(/ended: no other Codex of .* runs$/);
    expect(managedDaemons(home)).toEqual([]);
  },
  240_000,
);
