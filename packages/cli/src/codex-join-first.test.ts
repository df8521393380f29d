// A real Codex 0.171.0 TUI (offline, the scripted model, a private tmux pane, set up by `muster
// install codex`) whose first act on the team is `muster join` from its own shell tool, before any
// call to muster's MCP tools. Codex runs that command in its Linux sandbox, as pid 1 of a pid
// namespace of its own: muster cannot see Codex from there, so cannot seat the member or prove it
// alive. The rule: such a join is refused in one line that says how Codex joins (any team_ tool
// call: its MCP server joins the thread as `codex-<thread>`), and once it has, commands from its
// shell act as that member (CODEX_THREAD_ID names it). A real Codex costs seconds: `pnpm test:long`.
import path from "node:path";
import { eventually, LONG_TESTS, realCodex } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve().then(cleanup);
});

type Input = { type?: string; output?: unknown };
const toolOutputs = (request: Record<string, unknown>) =>
  (Array.isArray(request.input) ? (request.input as Input[]) : [])
    .filter((item) => item.type === "function_call_output")
    .map((item) => String(item.output));

/** The command's output in the shell tool's answer (after its own lines), or "". */
const commandOutput = (answer: string) => answer.slice(answer.indexOf("Output:\n") + 8);

/**
 * A `--json` command's document (stdout) and its other lines (stderr), in whichever order the two
 * streams reached Codex's terminal: a refusal's line on stderr has been seen before the document.
 */
function documentAndLines(output: string) {
  const found = /^\{[\s\S]*?^\}\r?$/m.exec(output);
  const rest = found
    ? output.slice(0, found.index) + output.slice(found.index + found[0].length)
    : output;
  const lines = rest
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return { document: found?.[0], lines };
}

it.skipIf(!LONG_TESTS)(
  "muster join from Codex's sandboxed shell before any MCP call is refused with the way; after it, the shell acts as the MCP server's member",
  async () => {
    const muster = (args: string) => `'${process.execPath}' '${MUSTER}' ${args}`;
    const codex = await realCodex({
      prefix: "muster-codex-join-",
      codex: CODEX,
      muster: MUSTER,
      label: "coder",
      script: [
        { call: { name: "exec_command", arguments: { cmd: muster("join coder --json") } } },
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { call: { name: "exec_command", arguments: { cmd: muster("inbox --json") } } },
        { text: "Joined." },
      ],
    });
    cleanups.push(() => codex.close());
    const { model, screen } = codex;
    await codex.start();
    await codex.submit("join the team from the shell");
    const outputs = await eventually(
      () => [...new Set(model.requests.flatMap(toolOutputs))],
      (answers) => answers.length >= 3,
      "the three tool calls to be answered",
      { attempts: 300 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${screen()}`);
    });
    const diagnose = `the tools answered: ${JSON.stringify(outputs)}\n${screen()}`;
    // The join: refused, in one line that says how Codex joins.
    const { document, lines } = documentAndLines(commandOutput(outputs[0]!));
    expect(JSON.parse(document ?? "null"), diagnose).toMatchObject({
      ok: false,
      reason: "sandboxed",
    });
    expect(lines, diagnose).toEqual([
      "muster: this command runs in codex's sandbox, where muster cannot see codex itself to seat it or prove it alive; let codex join through muster's team tools first (any team_ tool call joins its session); commands from its shell then act as that member",
    ]);
    // The MCP call joined the thread; the shell's next command acts as that member.
    const joined = JSON.parse(commandOutput(outputs[1]!)) as { you: { id: string; label: string } };
    expect(joined.you, diagnose).toMatchObject({ label: "coder", joined: true });
    expect(JSON.parse(commandOutput(outputs[2]!)), diagnose).toMatchObject({
      ok: true,
      id: joined.you.id,
    });
    const roster = await openTestTeam(codex.teamDir);
    const read = await roster.read({ all: true });
    const members = read.ok ? read.members : [];
    expect(members.map((member) => member.id)).toEqual([
      expect.stringMatching(/^codex-[0-9a-f-]{36}$/),
    ]);
    // Seated in Codex's own pane.
    const pane = codex.server.tmux("display-message", "-p", "-t", "main", "#{pane_id}").trim();
    expect(members[0]?.seat?.pane).toBe(pane);
  },
  120_000,
);
