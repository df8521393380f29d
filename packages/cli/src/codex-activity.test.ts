// A real Codex 0.171.0 TUI's activity, heard by muster: in a private tmux pane, offline against the
// scripted Responses-API model, set up by `muster install codex`, asking for approval
// (`approval_policy = "on-request"`, `sandbox_mode = "read-only"`). Its first tool call joins it;
// the muster MCP server that Codex's daemon started takes the team's listener claim for the Codex
// home and hears the control socket: the next turn shows `working` to Codex's own tool call, an
// approval prompt is `needs-you` in `muster status --json` (the socket is the only signal of it),
// and the end of the turn is `idle`. A whole Codex session costs a minute here: `pnpm test:long`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, realCodex } from "@muster/test-support";
import { afterAll, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup);
});

type Input = { type?: string; output?: unknown };
const toolOutputs = (request: Record<string, unknown>) =>
  (Array.isArray(request.input) ? (request.input as Input[]) : [])
    .filter((item) => item.type === "function_call_output")
    .map((item) => String(item.output));

it.skipIf(!LONG_TESTS)(
  "a real Codex's turn is working, its approval prompt needs-you, and its end idle",
  async () => {
    const codex = await realCodex({
      prefix: "muster-codex-activity-",
      codex: CODEX,
      muster: MUSTER,
      label: "coder",
      script: [
        // Turn 1: a muster tool call joins the member.
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Listed." },
        // Turn 2: the roster again (what does it say of Codex itself?), then a command that asks.
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        {
          call: {
            name: "exec_command",
            arguments: {
              cmd: "touch made.txt",
              sandbox_permissions: "require_escalated",
              justification: "make the file",
            },
          },
        },
        { text: "Made." },
      ],
    });
    cleanups.push(() => codex.close());
    const { home, repo, teamDir, model, env, server: tmux, screen, submit } = codex;
    const config = path.join(home, ".codex", "config.toml");
    writeFileSync(
      config,
      `approval_policy = "on-request"\nsandbox_mode = "read-only"\n${readFileSync(config, "utf8")}`,
    );
    const coder = () => {
      const status = JSON.parse(
        execFileSync(process.execPath, [MUSTER, "status", "--json"], {
          cwd: repo,
          env,
          encoding: "utf8",
        }),
      ) as { members: { label: string; activity: { state: string; signal: string | null } }[] };
      return status.members.find((member) => member.label === "coder");
    };
    await codex.start();
    await submit("list the team");
    await eventually(
      coder,
      (member) => member?.activity.state === "idle",
      "the first turn to end idle",
      { attempts: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${screen()}`);
    });

    // One listener for the Codex home: the claim names a muster MCP server that Codex started.
    const claims = readdirSync(path.join(teamDir, "listeners"));
    expect(claims).toHaveLength(1);
    const claim = JSON.parse(readFileSync(path.join(teamDir, "listeners", claims[0]!), "utf8"));
    expect(claim.data.home).toBe(path.join(home, ".codex"));
    const listener = readFileSync(`/proc/${claim.data.pid}/cmdline`, "utf8")
      .split("\0")
      .filter(Boolean);
    expect(listener.slice(-2)).toEqual([MUSTER, "mcp"]);

    await submit("make a file");
    const waiting = await eventually(
      coder,
      (member) => member?.activity.state === "needs-you",
      "the approval prompt to show as needs-you",
      { attempts: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${screen()}`);
    });
    expect(waiting?.activity.signal).toBe("codex/status-waiting-approval");
    // The socket says it about when the TUI draws the dialog (either may come first).
    await eventually(
      screen,
      (text) => text.includes("Would you like to run the following command?"),
      "the approval dialog",
    );
    // Mid-turn, Codex's own roster call saw itself working (the socket's `active`, heard before
    // the turn's first request; the turn before ended idle).
    const roster = JSON.parse(
      String(model.requests.flatMap(toolOutputs).at(-1)).replace(/^[^{]*/, ""),
    ) as { members: { label: string; you: boolean; activity: string }[] };
    expect(roster.members.find((member) => member.you)).toMatchObject({
      label: "coder",
      activity: "working",
    });

    tmux.tmux("send-keys", "-t", "main", "y");
    const ended = await eventually(
      coder,
      (member) => member?.activity.state === "idle",
      "the turn to end idle once approved",
      { attempts: 200 },
    );
    expect(ended?.activity.signal).toMatch(/^codex\/(status-idle|turn-complete)$/);
    await eventually(screen, (text) => text.includes("Made."), "the turn's last words");
    expect(model.script).toEqual([]);
  },
  240_000,
);
