// A Codex started by hand (`MUSTER_LABEL=bob codex` typed in a pane, no `muster spawn`) into a HOME
// whose app-server daemon already serves another Codex: the daemon starts muster's MCP server for
// bob's thread with the first window's environment (MUSTER_LABEL=alice), and no spawn record names
// bob's launch. bob still joins, and mails, as bob: the label his own Codex process was started
// with (its /proc environ, on Linux). Real Codex (offline, the scripted model) in a private tmux
// server; the first Codex hand-started in one case, spawned in the other: `pnpm test:long`.
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  eventually,
  LONG_TESTS,
  managedDaemons,
  type RealCodex,
  realCodex,
  type ScriptStep,
} from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach, describe, expect, it } from "vitest";

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

const readOr = (file: string, otherwise: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return otherwise;
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const tell = (message: string) => [
  { call: { name: "team_send", namespace: "mcp__muster", arguments: { to: "reviewer", message } } },
  { text: "Sent." },
];

/** The home with the reviewer joined, and helpers to read its mail and the team's labels. */
async function team(
  prefix: string,
  script: ScriptStep[] = [...tell("alice here"), ...tell("bob here")],
) {
  const codex = await realCodex({ prefix, codex: CODEX, muster: MUSTER, script });
  cleanups.push(() => codex.close());
  const roster = await openTestTeam(codex.teamDir);
  await joinAsThisProcess(roster, "reviewer");
  const mail = async (body: string, context: () => string) => {
    const messages = await eventually(
      async () => {
        const history = await roster.history("peer-reviewer");
        return history.ok ? history.messages : [];
      },
      (found) => found.some((message) => message.body === body),
      `the mail "${body}"`,
      { attempts: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${context()}`);
    });
    return messages.find((message) => message.body === body)?.from.label;
  };
  const labels = async () => {
    const read = await roster.read();
    return read.ok ? read.members.map((member) => `${member.label} ${member.agent}`).sort() : [];
  };
  return { codex, mail, labels };
}

/** Type `MUSTER_LABEL=<label> codex` in a new window, as a person would, and wait for its prompt. */
async function byHand(codex: RealCodex, label: string, window: string, flags = "") {
  codex.server.tmux("new-window", "-d", "-n", window, "-c", codex.repo, "bash --norc --noprofile");
  codex.server.tmux("send-keys", "-t", window, "-l", `MUSTER_LABEL=${label} codex${flags}`);
  codex.server.tmux("send-keys", "-t", window, "Enter");
  await eventually(
    () => codex.screen(window),
    (text) => text.includes("Ask Codex"),
    `${label}'s Codex prompt`,
    { attempts: 400 },
  );
}

/** The home's one daemon serves both (the precondition), ended at cleanup. */
function oneDaemon(home: string) {
  const daemons = managedDaemons(home);
  cleanups.push(() => {
    for (const pid of managedDaemons(home).filter((pid) => daemons.includes(pid)))
      process.kill(pid, "SIGKILL");
  });
  return daemons;
}

describe("a Codex started by hand into a HOME whose daemon serves another Codex", () => {
  // Two whole TUI sessions (5.9 s in CI's pnpm test): behind MUSTER_LONG_TESTS, with the others;
  // the rule itself (which launch's label a thread takes) runs in core's and the wiring's tests.
  it.skipIf(!LONG_TESTS)(
    "joins as the MUSTER_LABEL it was started with, after a hand-started first",
    async () => {
      const { codex, mail, labels } = await team("muster-codex-hand-");
      await byHand(codex, "alice", "first");
      await codex.submit("tell the reviewer, alice", "first");
      expect(await mail("alice here", () => codex.screen("first"))).toBe("alice");
      await byHand(codex, "bob", "second");
      expect(oneDaemon(codex.home)).toHaveLength(1);
      await codex.submit("tell the reviewer, bob", "second");
      expect(await mail("bob here", () => codex.screen("second"))).toBe("bob");
      expect(await labels()).toEqual(["alice codex", "bob codex", "reviewer pi"]);
    },
    240_000,
  );

  // The first TUI's native binary is the daemon's parent, and every thread's tools run under the
  // daemon: a codex-named tool there (with its own MUSTER_LABEL) is not the first window's launch.
  // Another whole TUI session (3.9 s alone, 6.5 s beside another): behind MUSTER_LONG_TESTS; the
  // rule's own cases, this tree among them, run in core's and the wiring's started-label tests.
  it.skipIf(!LONG_TESTS)(
    "the first keeps its label while a tool runs a codex-named process under the daemon",
    async () => {
      const tool = 'echo $$ > "$HOME/tool.pid"; MUSTER_LABEL=mallory exec -a codex sleep 40';
      const { codex, mail, labels } = await team("muster-codex-hand-tool-", [
        { call: { name: "exec_command", arguments: { cmd: tool, yield_time_ms: 1000 } } },
        ...tell("alice here"),
      ]);
      const pidFile = path.join(codex.home, "tool.pid");
      cleanups.push(() => {
        const pid = Number(readOr(pidFile, "0"));
        if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
      });
      await byHand(codex, "alice", "first", " --dangerously-bypass-approvals-and-sandbox");
      await codex.submit("start a background tool, then tell the reviewer, alice", "first");
      expect(await mail("alice here", () => codex.screen("first"))).toBe("alice");
      // The precondition: the codex-named tool (run under the daemon) was alive as alice joined.
      const pid = Number(readOr(pidFile, "0"));
      expect(pid > 0 && alive(pid)).toBe(true);
      expect(readOr(`/proc/${pid}/cmdline`, "").split("\0")[0]).toBe("codex");
      expect(await labels()).toEqual(["alice codex", "reviewer pi"]);
    },
    240_000,
  );

  // The same after a spawned first (about 4 s more): behind MUSTER_LONG_TESTS.
  it.skipIf(!LONG_TESTS)(
    "joins as the MUSTER_LABEL it was started with, after a spawned first",
    async () => {
      const { codex, mail, labels } = await team("muster-codex-hand-spawned-");
      const out = path.join(codex.home, "spawn-alice");
      codex.server.tmux(
        "send-keys",
        "-t",
        "main",
        "-l",
        `'${process.execPath}' '${MUSTER}' spawn codex --label alice --timeout 60 --task 'tell the reviewer' --json > ${out}.json 2> ${out}.err; echo $? > ${out}.status`,
      );
      codex.server.tmux("send-keys", "-t", "main", "Enter");
      const spawned = () => `${readOr(`${out}.status`, "")} ${readOr(`${out}.err`, "")}`;
      expect(await mail("alice here", spawned)).toBe("alice");
      await byHand(codex, "bob", "second");
      expect(oneDaemon(codex.home)).toHaveLength(1);
      await codex.submit("tell the reviewer, bob", "second");
      expect(await mail("bob here", () => codex.screen("second"))).toBe("bob");
      expect(await labels()).toEqual(["alice codex", "bob codex", "reviewer pi"]);
    },
    240_000,
  );
});
