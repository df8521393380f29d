// A Codex member muster.toml declares comes back in its own thread: `muster up` starts it with its
// task (its thread, named at that first turn, is recorded once it joins), `muster down` ends it, the
// tmux server is killed, and `muster up` resumes it (`codex resume <thread>`) as the same member
// (`codex-<thread>`); mailed then, it is woken, and the scripted model sees its earlier turn in the
// request. Real Codex 0.171.0, offline (the scripted Responses model), set up by `muster install
// codex`. Whole real Codex sessions: `pnpm test:long` (MUSTER_LONG_TESTS) only.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, realCodex } from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const TASK = "tell the reviewer you are on it";
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
});

it.skipIf(!LONG_TESTS)(
  "a declared Codex member: up, down, tmux kill-server, up: the same member in the same thread",
  async () => {
    const codex = await realCodex({
      prefix: "muster-codex-up-",
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
        // The resume's rejoin prompt, then the turn its mail wakes: each reads the inbox.
        { call: { name: "team_inbox", namespace: "mcp__muster", arguments: {} } },
        { text: "Rejoined." },
        { call: { name: "team_inbox", namespace: "mcp__muster", arguments: {} } },
        { text: "Back on it." },
      ],
    });
    cleanups.push(() => codex.close());
    const { repo, bin, teamDir, model, server } = codex;
    const roster = await openTestTeam(teamDir);
    await joinAsThisProcess(roster, "reviewer");
    writeFileSync(
      path.join(repo, "muster.toml"),
      `[[member]]\nlabel = "coder"\nengine = "codex"\ntask = "${TASK}"\n`,
    );
    const env = {
      ...codex.env,
      PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    };
    const muster = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [MUSTER, ...args, "-L", server.name], {
          cwd: repo,
          env,
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
    const memberId = async () => {
      const read = await roster.read();
      return read.ok ? read.members.find((member) => member.label === "coder")?.id : undefined;
    };

    const first = await muster(["up", "--json", "--timeout", "120"]);
    expect(first.status, first.stderr).toBe(0);
    const [coder] = JSON.parse(first.stdout).members;
    expect(coder).toMatchObject({ label: "coder", engine: "codex", outcome: "fresh" });
    // Joined at its first turn's tool call: its thread is its member, and is recorded.
    expect(coder.session).toMatch(/^[0-9a-f-]{36}$/);
    expect(await memberId()).toBe(`codex-${coder.session}`);

    const down = await muster(["down", "--json"]);
    expect(down.status, down.stderr).toBe(0);
    expect(JSON.parse(down.stdout).members).toMatchObject([
      { label: "coder", outcome: "down", kept: { session: coder.session } },
    ]);
    server.tmux("kill-server");

    const again = await muster(["up", "--json", "--timeout", "120"]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).members).toMatchObject([
      { label: "coder", outcome: "resumed", session: coder.session },
    ]);
    // Its resume's first prompt had it rejoin (a Codex joins at a team tool's call): mailed, woken.
    const asked = model.requests.length;
    const sent = await muster(["send", "coder", "the second task", "--json"]);
    expect(sent.status, sent.stderr).toBe(0);
    const request = await eventually(
      () =>
        model.requests
          .slice(asked)
          .find((each) => JSON.stringify(each.input ?? []).includes("the second task")),
      (found) => found !== undefined,
      "the woken turn",
      { attempts: 900 },
    );
    expect(JSON.stringify(request!.input)).toContain(TASK);
    expect(await memberId()).toBe(`codex-${coder.session}`);
    await muster(["down"]);
  },
  300_000,
);
