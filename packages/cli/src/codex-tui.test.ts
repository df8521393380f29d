// The proof with a real Codex TUI: Codex 0.171.0 in a private tmux pane (a bare bash, a throwaway
// HOME set up by `muster install codex --wake` over a config with the user's own notify), offline against the scripted Responses-API model,
// beside a real pi member (RPC mode, the faux model). Codex's model sends the pi member mail; the
// pi member replies; the idle Codex TUI starts a turn for it (through `codex queue`, run by the
// muster MCP server Codex's daemon started) whose user message names the mail, and its model's
// team_inbox call returns it. Every Codex daemon the test starts is ended by pid.
// Whole real Codex and pi sessions: `pnpm test:long` (MUSTER_LONG_TESTS), which CI runs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eventually, LONG_TESTS, realCodex, userTexts } from "@muster/test-support";
import { openTestTeam } from "@muster/test-team";
import { afterEach, expect, it } from "vitest";
import { Pi, type PiRecord } from "../../pi-extension/test/pi-rpc.ts";

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

const isMail = (record: PiRecord) =>
  record.type === "message_start" &&
  (record.message as { customType?: string })?.customType === "muster-mail";

type Input = { type?: string; output?: string };
const inputOf = (request: Record<string, unknown>) =>
  (Array.isArray(request.input) ? request.input : []) as Input[];

const toolOutputs = (request: Record<string, unknown>) =>
  inputOf(request)
    .filter((item) => item.type === "function_call_output")
    .map((item) => item.output);

const musterTools = (request: Record<string, unknown>) =>
  (Array.isArray(request.tools) ? (request.tools as { name?: string }[]) : [])
    .map((tool) => tool.name ?? "")
    .filter((name) => name.startsWith("mcp__muster"));

it.skipIf(!LONG_TESTS)(
  "a real Codex TUI mails a pi member, and the pi member's reply wakes it while idle",
  async () => {
    // The user's own notify program, which muster's install chains: it logs each turn's argument.
    let notified = "";
    const codex = await realCodex({
      prefix: "muster-codex-tui-",
      codex: CODEX,
      muster: MUSTER,
      install: ["--wake"],
      label: "coder",
      prepare: ({ home, bin }) => {
        notified = path.join(home, "notified.log");
        const userNotify = path.join(bin, "user-notify");
        writeFileSync(userNotify, `#!/bin/sh\nprintf '%s %s\\n' "$1" "$2" >> "${notified}"\n`, {
          mode: 0o755,
        });
        mkdirSync(path.join(home, ".codex"));
        writeFileSync(
          path.join(home, ".codex", "config.toml"),
          `# mine\nnotify = ["${userNotify}", "--from-codex"] # a desktop ping\n`,
        );
      },
      script: [
        {
          call: {
            name: "team_send",
            namespace: "mcp__muster",
            arguments: { to: "reviewer", message: "please review src/parser.ts" },
          },
        },
        { text: "Sent." },
        { call: { name: "team_inbox", namespace: "mcp__muster", arguments: {} } },
        { text: "Read it." },
      ],
    });
    cleanups.push(() => codex.close());
    const { repo, teamDir, model, screen } = codex;

    // The pi member: it wakes for mail; its faux model notes the first, then replies when asked.
    const pi = new Pi({
      cwd: repo,
      args: ["--muster-label", "reviewer"],
      env: { MUSTER_TEAM_DIR: teamDir, MUSTER_HEARTBEAT_MS: "300" },
      script: [
        { text: "noted" },
        { tool: "team_send", args: { to: "coder", message: "looks good; one nit in parse()" } },
        { text: "replied" },
      ],
    });
    cleanups.push(() => pi.kill());
    const piJoined = pi
      .waitFor(
        (record) => record.method === "setStatus" && String(record.statusText).startsWith("⚑"),
        "pi to join",
      )
      .then(() => pi.prompt("/team join reviewer --wake"));

    // On a failure: the pane, what the model was asked and what its tools answered, pi's last
    // records, and the team folder's files.
    const diagnose = () =>
      [
        `the pane:\n${screen()}`,
        `the model's requests: ${JSON.stringify(model.requests.map(userTexts))}`,
        `the muster tools offered: ${JSON.stringify(model.requests.map(musterTools))}`,
        `the tools' answers: ${JSON.stringify(model.requests.flatMap(toolOutputs))}`,
        `pi's last records: ${JSON.stringify(pi.records.slice(-12))}`,
        `the team folder: ${execFileSync("find", [teamDir, "-type", "f"], { encoding: "utf8" })}`,
      ].join("\n");
    await codex.start();
    await piJoined;
    await codex.submit("tell the reviewer to look at the parser").catch((error: Error) => {
      throw new Error(`${error.message}\n${diagnose()}`);
    });

    // Codex's model sent the mail through muster; the pi member received it from "coder".
    const mail = await pi
      .waitFor(isMail, "Codex's mail to reach the pi member", 30_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${diagnose()}`);
      });
    expect((mail.message as { details: unknown }).details).toMatchObject({
      from: { label: "coder" },
      body: "please review src/parser.ts",
    });
    // Codex's turn is over: "Sent." is shown and nothing is working.
    await eventually(
      () => screen(),
      (text) => text.includes("Sent.") && !text.includes("esc to interrupt"),
      "Codex to be idle",
      { attempts: 200 },
    );
    const before = model.requests.length;

    await pi.prompt("reply to coder");
    await pi.waitFor(
      (record) => record.type === "tool_execution_end" && record.toolName === "team_send",
      "the pi member's reply",
    );
    const roster = await openTestTeam(teamDir);
    const read = await roster.read();
    const coder = read.ok ? read.members.find((member) => member.label === "coder") : undefined;
    expect(coder).toMatchObject({ agent: "codex", state: "live", watching: { wake: true } });
    const history = await roster.history(coder!.id);
    const reply = history.ok
      ? history.messages.find((message) => message.body === "looks good; one nit in parse()")
      : undefined;
    expect(reply).toBeDefined();

    // The idle TUI started a turn whose user message names the mail.
    const woke = await eventually(
      () =>
        model.requests.findIndex(
          (request, index) =>
            index >= before && userTexts(request).some((text) => text.startsWith("Team mail")),
        ),
      (index) => index >= 0,
      "the wake to reach Codex's model",
      { attempts: 400 },
    );
    expect(userTexts(model.requests[woke]!).at(-1)).toBe(
      `Team mail from "reviewer" (pi, verified (a live member holding this label under this id); a teammate's message, not the person's instruction), beginning “looks good; one nit in parse()” — read it with team_inbox`,
    );
    // The same thread: the turn carries the conversation that sent the first mail.
    expect(userTexts(model.requests[woke]!)).toContain("tell the reviewer to look at the parser");
    // How fast is the benchmark's (`pnpm bench codex`: median 153 ms); here only a bound that a wake
    // by the mail meets on a loaded machine and a turn from anything slower (a user, a minute's
    // idle notice) would not.
    const latency = model.receivedAt[woke]! - Date.parse(reply!.sentAt);
    expect(latency, "ms from the reply's writing to the turn's request").toBeLessThan(15_000);

    // Its model's team_inbox call returned the reply.
    const read2 = await eventually(
      () =>
        model.requests.find((request) =>
          inputOf(request).some(
            (item) =>
              item.type === "function_call_output" &&
              String(item.output).includes("looks good; one nit in parse()"),
          ),
        ),
      (found) => found !== undefined,
      "team_inbox's answer",
      { attempts: 200 },
    );
    expect(read2).toBeDefined();
    // The reply's receipt: Codex woke for it through codex queue, and team_inbox delivered it.
    const receipt = await roster.receipt(reply!.id);
    expect(receipt.ok && receipt.recipients).toEqual([
      {
        id: coder!.id,
        phases: expect.objectContaining({
          woke: expect.objectContaining({ how: "codex-queue" }),
          delivered: expect.objectContaining({ how: "mcp" }),
        }),
      },
    ]);
    // Codex ran muster's notify after its turns, and muster ran the user's program it chained.
    const thread = coder!.id.slice("codex-".length);
    await eventually(
      () => (existsSync(notified) ? readFileSync(notified, "utf8") : ""),
      (text) => text.includes(`--from-codex {"type":"agent-turn-complete","thread-id":"${thread}"`),
      "the chained notify program to run for Codex's thread",
    );
    expect(model.script).toEqual([]);
  },
  120_000,
);
