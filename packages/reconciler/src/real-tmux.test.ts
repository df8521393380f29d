// Discovery and the loop against a real tmux (a private server) and real processes whose argv
// look like each engine, through a scan built here from @muster/tmux parsing and /proc.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readProcessTable } from "@muster/node";
import { eventually, type PrivateTmux, startPrivateTmux } from "@muster/test-support";
import { listPanes } from "@muster/tmux";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILTIN_ENGINES,
  createAgentRegistry,
  createReconciler,
  type FoundAgent,
  scanResult,
} from "./index.js";

let server: PrivateTmux;
let fakes: string;
let piCommand: string;

/** A file at `relative` under the fake install tree that idles when run by node or a shell. */
function fake(relative: string, body = "setInterval(() => {}, 1 << 30);\n") {
  const file = path.join(fakes, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, body, { mode: 0o755 });
  return file;
}

/** One scan through the real tmux and /proc; `between` runs after the listing, before the table. */
async function scan(between: () => Promise<void> = async () => undefined) {
  const listed = await listPanes(server.run, { name: server.name });
  await between();
  const table = await readProcessTable();
  return scanResult(
    {
      servers: [
        { server: server.socket, panes: listed.ok ? listed.inventory.panes : "unavailable" },
      ],
      processes: table.ok ? table.processes : { error: table.error },
      exclude: [process.pid],
    },
    BUILTIN_ENGINES,
  );
}

const paneOf = (target: string) =>
  server.tmux("display-message", "-p", "-t", target, "#{pane_id}").trim();

beforeAll(() => {
  fakes = mkdtempSync(path.join(tmpdir(), "muster-engines-"));
  const codex = fake("node_modules/@openai/codex/bin/codex.js");
  const pi = fake("node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
  const gemini = fake("bin/gemini", "#!/bin/sh\nsleep 600\n");
  const node = process.execPath;
  piCommand = `${node} ${pi}`;
  server = startPrivateTmux({ command: `bash -c '${node} ${codex}; sleep 600'` });
  server.tmux("rename-window", "-t", "main:0", "codex");
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main:1",
    "-n",
    "claude",
    "bash -c 'exec -a claude sleep 600'",
  );
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main:2",
    "-n",
    "pi",
    `bash -c 'env MUSTER_X=1 ${node} ${pi}; sleep 600'`,
  );
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main:3",
    "-n",
    "gemini",
    `bash -c 'bash ${gemini}; sleep 600'`,
  );
  server.tmux("new-window", "-d", "-t", "main:4", "-n", "shell", "sleep 600");
  server.tmux(
    "new-window",
    "-d",
    "-t",
    "main:5",
    "-n",
    "inline",
    `${node} -e 'require("${codex}")'`,
  );
});
afterAll(() => {
  server.kill();
  rmSync(fakes, { recursive: true, force: true });
});

describe("discovery on a real tmux server", () => {
  it("finds each engine in its pane, and nothing in a shell or an inline node -e", async () => {
    const result = await eventually(
      scan,
      (value) => value.ok && value.agents.length >= 4,
      "four agents",
    );
    if (!result.ok) throw new Error(result.error);
    const byPane = Object.fromEntries(result.agents.map((agent) => [agent.pane, agent.engine]));
    expect(byPane).toEqual({
      [paneOf("main:codex")]: "codex",
      [paneOf("main:claude")]: "claude",
      [paneOf("main:pi")]: "pi",
      [paneOf("main:gemini")]: "gemini",
    });
    expect(result.agents.every((agent) => agent.seatKey.startsWith(`${server.socket}#%`))).toBe(
      true,
    );
  });

  it("the loop marks a pane whose agent exited dormant, and a closed pane removed, after 2 scans each", async () => {
    const registry = createAgentRegistry();
    const reconciler = createReconciler({
      scan,
      ...registry,
      current: registry.entries,
      clock: Date.now,
    });
    await eventually(
      async () => {
        await reconciler.trigger();
        return registry.entries().length;
      },
      (count) => count === 4,
      "the panes to settle",
    );
    const codex = registry.entries().find((entry) => entry.engine === "codex")!;
    process.kill(codex.agent.pid, "SIGKILL");
    server.tmux("kill-pane", "-t", paneOf("main:gemini"));
    await eventually(
      async () => {
        await reconciler.trigger();
        return registry
          .entries()
          .map((entry) => `${entry.engine}:${entry.state}`)
          .sort();
      },
      (states) => states.join() === "claude:live,codex:dormant,pi:live",
      "the panes to settle",
    );
  });
});

describe("an agent restarted in place (respawn-pane -k) during a scan", () => {
  const restarts = [
    ["between the pane listing and the process table", "between"],
    ["after the whole listing, before the scan answers", "after"],
  ] as const;

  it.each(restarts)("%s: neither removed nor duplicated", async (_, when) => {
    server.tmux(
      "new-window",
      "-d",
      "-t",
      `main:${when === "between" ? 6 : 7}`,
      "-n",
      when,
      piCommand,
    );
    const pane = paneOf(`main:${when}`);
    const inPane = async () => {
      const result = await scan();
      return result.ok ? result.agents.find((agent) => agent.pane === pane) : undefined;
    };
    const events: string[] = [];
    const registry = createAgentRegistry();
    let restart: (() => Promise<void>) | undefined;
    const reconciler = createReconciler({
      scan: async () => {
        const once = restart;
        restart = undefined;
        const result = await scan(when === "between" && once ? once : undefined);
        if (when === "after" && once) await once();
        return result;
      },
      ...registry,
      current: registry.entries,
      onDiscovered: (agent) => {
        if (agent.pane === pane) events.push(`discovered ${agent.pid}`);
        registry.onDiscovered(agent);
      },
      onDormant: (tracked) => {
        if (tracked.seatKey.endsWith(`#${pane}`)) events.push("dormant");
        registry.onDormant(tracked);
      },
      onRemoved: (tracked) => {
        if (tracked.seatKey.endsWith(`#${pane}`)) events.push("removed");
        registry.onRemoved(tracked);
      },
      clock: Date.now,
    });
    const first = await eventually(inPane, Boolean, "the pi in its pane");
    await reconciler.trigger();
    const entry = registry.entries().find((tracked) => tracked.agent.pane === pane)!;
    // The pi session binds its entry, as the extension does once it joins.
    registry.bind(entry.key);
    let second: FoundAgent | undefined;
    // The restart as a restarter does it: hold the pane, respawn, wait for the new process and
    // tell the registry the session runs there now, release.
    restart = async () => {
      const release = reconciler.holdSeat(entry.seatKey, 10_000);
      server.tmux("respawn-pane", "-k", "-t", pane, piCommand);
      second = await eventually(
        inPane,
        (agent) => agent !== undefined && agent.pid !== first!.pid,
        "the restarted pi",
      );
      registry.bind(entry.key, second);
      release();
    };
    await reconciler.trigger();
    expect(second).toBeDefined();
    for (let scan = 0; scan < 3; scan += 1) await reconciler.trigger();
    const mine = registry.entries().filter((tracked) => tracked.agent.pane === pane);
    expect(mine.map((tracked) => [tracked.agent.pid, tracked.state])).toEqual([
      [second!.pid, "live"],
    ]);
    expect(events).toEqual([`discovered ${first!.pid}`]);
  });
});
