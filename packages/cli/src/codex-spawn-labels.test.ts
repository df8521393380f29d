// Two Codex teammates spawned into one HOME, `muster spawn codex --label alice` and then `--label
// bob`: Codex 0.171.0 serves both from one app-server daemon, which starts muster's MCP server for
// every thread with the first window's environment (MUSTER_LABEL=alice). Each still joins, and
// mails, under the label its own spawn gave it: the record of its launch names it. Real Codex
// (offline, the scripted model) in a private tmux server, spawned from a bare bash pane of it.
// Whole real Codex sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, managedDaemons, realCodex } from "@muster/test-support";
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

const tell = (message: string) => [
  {
    call: {
      name: "team_send",
      namespace: "mcp__muster",
      arguments: { to: "reviewer", message },
    },
  },
  { text: "Sent." },
];

describe.skipIf(!LONG_TESTS)("two Codex teammates spawned into one HOME", () => {
  it("each joins and mails under the label its spawn gave it, though one daemon serves both", async () => {
    const codex = await realCodex({
      prefix: "muster-codex-labels-",
      codex: CODEX,
      muster: MUSTER,
      script: [...tell("alice here"), ...tell("bob here")],
    });
    cleanups.push(() => codex.close());
    const { home, teamDir, server } = codex;
    const roster = await openTestTeam(teamDir);
    await joinAsThisProcess(roster, "reviewer");

    const spawned: string[] = [];
    const spawn = async (label: string) => {
      const out = path.join(home, `spawn-${label}`);
      server.tmux(
        "send-keys",
        "-t",
        "main",
        "-l",
        `'${process.execPath}' '${MUSTER}' spawn codex --label ${label} --timeout 60 --task 'tell the reviewer' --json > ${out}.json 2> ${out}.err; echo $? > ${out}.status`,
      );
      server.tmux("send-keys", "-t", "main", "Enter");
      const status = await eventually(
        () => readOr(`${out}.status`, "").trim(),
        (text) => text !== "",
        `muster spawn ${label} to finish`,
        { attempts: 900, intervalMs: 100 },
      );
      spawned.push(`${label}: ${status} ${readOr(`${out}.json`, "")} ${readOr(`${out}.err`, "")}`);
    };
    const mail = async (body: string) => {
      const messages = await eventually(
        async () => {
          const history = await roster.history("peer-reviewer");
          return history.ok ? history.messages : [];
        },
        (found) => found.some((message) => message.body === body),
        `the mail "${body}"`,
        { attempts: 300 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${spawned.join("\n")}`);
      });
      return messages.find((message) => message.body === body)?.from.label;
    };
    const labels = async () => {
      const read = await roster.read();
      return read.ok ? read.members.map((member) => `${member.label} ${member.agent}`).sort() : [];
    };

    await spawn("alice");
    expect(await mail("alice here")).toBe("alice");
    await spawn("bob");
    // The precondition: bob's Codex is served by the daemon alice's started (one per HOME).
    const daemons = managedDaemons(home);
    cleanups.push(() => {
      for (const pid of managedDaemons(home).filter((pid) => daemons.includes(pid)))
        process.kill(pid, "SIGKILL");
    });
    expect(daemons, spawned.join("\n")).toHaveLength(1);
    expect(await mail("bob here"), spawned.join("\n")).toBe("bob");
    expect(spawned[1], "bob's spawn saw bob join").toMatch(/^bob: 0 .*"state": ?"joined"/s);
    expect(await labels()).toEqual(["alice codex", "bob codex", "reviewer pi"]);
  }, 240_000);
});
