// The proof that a Codex teammate spawned with a task has muster's tools in that task's turn, on a
// machine too loaded for muster's server to start within the second Codex 0.171 gives an optional
// MCP server before a turn goes on without it. Real Codex (offline, the scripted model) in a private
// tmux pane opened by `muster spawn codex --task`, run from a bare bash pane of that server; muster's
// server starts 3 s late (a wrapper sleeps first), and the recipe keeps the grace `muster install
// codex` wrote. The launch row passes no `-c` (any `-c` runs Codex without its app-server daemon):
// the spawned Codex runs with its daemon.
// Whole real Codex session: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, managedDaemons, realCodex } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  const errors: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch((error) => errors.push(error));
  if (errors.length > 0) throw errors[0];
});

const toolNames = (request: Record<string, unknown>) =>
  (Array.isArray(request.tools) ? (request.tools as { name?: string }[]) : []).map(
    (tool) => tool.name ?? "",
  );

const readOr = (file: string, otherwise: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return otherwise;
  }
};

it.skipIf(!LONG_TESTS)(
  "a Codex spawned with a task calls muster's tools in its first turn, though muster's server starts 3 s late",
  async () => {
    const codex = await realCodex({
      prefix: "muster-codex-spawn-",
      codex: CODEX,
      muster: MUSTER,
      codexGrace: true,
      script: [
        {
          call: {
            name: "team_send",
            namespace: "mcp__muster",
            arguments: { to: "reviewer", message: "on it" },
          },
        },
        { text: "Told them." },
      ],
    });
    cleanups.push(() => codex.close());
    const { home, bin, teamDir, model, server } = codex;
    // The loaded machine: muster's server answers 3 s after Codex starts it.
    const config = path.join(home, ".codex", "config.toml");
    const installed = readFileSync(config, "utf8");
    expect(installed).toMatch(/^mcp_optional_startup_grace_ms = 10000$/m);
    const line = /^command = (".*")$/m.exec(
      installed.slice(installed.indexOf("[mcp_servers.muster]")),
    );
    if (!line) throw new Error(`no command line for muster's server in:\n${installed}`);
    const late = path.join(bin, "late-muster");
    writeFileSync(late, `#!/bin/sh\nsleep 3\nexec ${line[1]} "$@"\n`, { mode: 0o755 });
    writeFileSync(config, installed.replace(line[0], `command = "${late}"`));

    const roster = await openTestTeam(teamDir);
    await joinAsThisProcess(roster, "reviewer");

    const out = path.join(home, "spawn");
    server.tmux(
      "send-keys",
      "-t",
      "main",
      "-l",
      `'${process.execPath}' '${MUSTER}' spawn codex --label coder --task 'tell the reviewer you are on it' --json > ${out}.json 2> ${out}.err; echo $? > ${out}.status`,
    );
    server.tmux("send-keys", "-t", "main", "Enter");
    const status = await eventually(
      () => readOr(`${out}.status`, "").trim(),
      (text) => text !== "",
      "muster spawn to finish",
      { attempts: 600, intervalMs: 100 },
    );
    const diagnose = () =>
      [
        `spawn: ${status} ${readOr(`${out}.json`, "")} ${readOr(`${out}.err`, "")}`,
        `the tools offered: ${JSON.stringify(model.requests.map(toolNames))}`,
      ].join("\n");
    expect(status, diagnose()).toBe("0");
    expect(JSON.parse(readOr(`${out}.json`, "{}")), diagnose()).toMatchObject({
      ok: true,
      label: "coder",
    });

    // The task's turn offered muster's tools, and its team_send reached the reviewer from coder.
    const mail = await eventually(
      async () => {
        const history = await roster.history("peer-reviewer");
        return history.ok ? history.messages : [];
      },
      (messages) => messages.some((message) => message.body === "on it"),
      "the spawned Codex's mail",
      { attempts: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${diagnose()}`);
    });
    expect(mail.find((message) => message.body === "on it")?.from.label).toBe("coder");
    // The task's turn is the first request that offers tools (Codex's title request offers none).
    const turn = model.requests.find((request) => toolNames(request).length > 0);
    expect(turn && toolNames(turn)).toContain("mcp__muster");
    // Plain `codex` from the launch row: Codex runs with its app-server daemon (a `-c` gives none).
    const daemons = managedDaemons(home);
    cleanups.push(() => {
      for (const pid of managedDaemons(home).filter((pid) => daemons.includes(pid)))
        process.kill(pid, "SIGKILL");
    });
    expect(daemons, diagnose()).toHaveLength(1);
  },
  120_000,
);
