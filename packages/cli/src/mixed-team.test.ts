// A mixed team of the three real engines, offline, each in its own HOME and set up only by
// muster's own installers and extension: pi 1.6.0 (RPC mode, the faux model, MUSTER_MAIL=wakes),
// Codex 0.171.0 and Claude Code 2.1.332 (TUIs in windows of one private tmux server, scripted
// models, `muster install codex --wake` and `muster install claude`). Fifteen mails go round
// the team, each sent by an engine's own model from the turn the mail before woke it, so every
// engine mails both others and each receives 5 from both: every one of them wakes its idle
// recipient (a turn that starts for it, its receipt marked woke by that engine's door), none is
// lost (all delivered, no inbox left unread). A sender's send is held until its recipient is
// idle, so no mail can ride along in a turn already running. A real Codex and Claude Code cost a
// minute here: `pnpm test:long` only.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Member } from "@muster/roster";
import { eventually, LONG_TESTS, realCodex, userTexts } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { Pi, type PiRecord } from "../../pi-extension/test/pi-rpc.ts";
import { CLAUDE, claudeKit, requestText } from "../test/claude.js";

const MUSTER = path.resolve(import.meta.dirname, "..", "dist", "muster.js");
const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");

type Engine = "pi" | "codex" | "claude";
const LABEL: Record<Engine, string> = { pi: "planner", codex: "coder", claude: "writer" };
const ENGINE: Record<string, Engine> = { p: "pi", x: "codex", c: "claude" };
/** The recipients in order; mail 1 is sent by pi, each later one by the previous recipient. */
const ROUTE = [..."xcpcxpxcpcxpxcp"].map((letter) => ENGINE[letter]!);
const mails = ROUTE.map((to, index) => {
  const from = index === 0 ? "pi" : ROUTE[index - 1]!;
  const number = index + 1;
  return { number, from, to, body: `mail #${number} from ${LABEL[from]} to ${LABEL[to]}` };
});

/** A promise per mail that holds its sender's send until the test lets it go. */
const gates = mails.map(() => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
});

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
});

describe.skipIf(!LONG_TESTS)("a team of pi, Codex and Claude Code", () => {
  it("15 mails round the engines, each sent by an engine, each a wake, none lost", async () => {
    // Codex: a first turn that joins it, then per wake: read the mail, send the next, done.
    const sendsFrom = (engine: Engine) => mails.filter((mail) => mail.from === engine);
    const codex = await realCodex({
      prefix: "muster-mixed-codex-",
      codex: CODEX,
      muster: MUSTER,
      install: ["--wake"],
      label: LABEL.codex,
      script: [
        { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
        { text: "Joined." },
        ...sendsFrom("codex").flatMap((mail) => [
          { call: { name: "team_inbox", namespace: "mcp__muster", arguments: {} } },
          {
            call: {
              name: "team_send",
              namespace: "mcp__muster",
              arguments: { to: LABEL[mail.to], message: mail.body },
            },
            after: gates[mail.number - 1]!.opened,
          },
          { text: "Sent." },
        ]),
      ],
    });
    cleanups.push(() => codex.close());
    const { teamDir, server } = codex;
    // Claude Code: its wake turn carries the mail; it sends the next.
    const claude = await claudeKit(
      sendsFrom("claude").flatMap((mail) => [
        {
          call: {
            name: "mcp__muster__team_send",
            arguments: { to: LABEL[mail.to], message: mail.body },
          },
          after: gates[mail.number - 1]!.opened,
        },
        { text: "Sent." },
      ]),
      LABEL.claude,
      teamDir,
    );
    cleanups.push(() => claude.close());
    // pi: the first send from a prompt, each later one from a wake, held by a gate file (pi's
    // model runs in pi's process: its bash tool waits for the file).
    const gateFiles = path.join(codex.home, "gates");
    mkdirSync(gateFiles);
    const gateFile = (number: number) => path.join(gateFiles, String(number));
    const pi = new Pi({
      cwd: codex.repo,
      args: ["--muster-label", LABEL.pi],
      env: { MUSTER_TEAM_DIR: teamDir, MUSTER_MAIL: "wakes" },
      script: sendsFrom("pi").flatMap((mail) => [
        ...(mail.number === 1
          ? []
          : [
              {
                tool: "bash",
                args: {
                  command: `for i in $(seq 1200); do [ -e '${gateFile(mail.number)}' ] && exit 0; sleep 0.05; done; exit 1`,
                },
              },
            ]),
        { tool: "team_send", args: { to: LABEL[mail.to], message: mail.body } },
        { text: "Sent." },
      ]),
    });
    cleanups.push(() => pi.kill());
    const open = (number: number) => {
      gates[number - 1]!.open();
      writeFileSync(gateFile(number), "");
    };

    const debugLog = path.join(claude.home, "claude-debug.log");
    const claudePane = server
      .tmux(
        "new-window",
        "-d",
        "-P",
        "-F",
        "#{pane_id}",
        "-c",
        claude.repo,
        ...Object.entries(claude.env).flatMap(([key, value]) => ["-e", `${key}=${value}`]),
        `${CLAUDE} --dangerously-skip-permissions --debug-file ${debugLog}`,
      )
      .trim();
    const roster = claude.roster;
    const member = async (label: string) => {
      const read = await roster.read();
      return read.ok ? read.members.find((entry) => entry.label === label) : undefined;
    };
    const readOr = (file: string) => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return "";
      }
    };
    const diagnose = async () =>
      [
        `Codex's pane:\n${codex.screen()}`,
        `Claude Code's pane:\n${server.tmux("capture-pane", "-p", "-t", claudePane)}`,
        `Codex was asked: ${JSON.stringify(codex.model.requests.map(userTexts))}`,
        `pi's last records: ${JSON.stringify(pi.records.slice(-8))}`,
        `the roster: ${JSON.stringify((await roster.read()).ok ? await roster.read() : "")}`,
      ].join("\n");
    const explain = async (error: Error) => {
      throw new Error(`${error.message}\n${await diagnose()}`);
    };
    const idle = (label: string) =>
      eventually(
        () => member(label),
        (record) => record?.activity?.state === "idle",
        `${label} to be idle`,
        { attempts: 600 },
      ).catch(explain);

    // Every member on the team, idle, with mail that wakes it; Claude Code watching its mailbox.
    await codex.start();
    await codex.submit("join the team");
    await eventually(
      () => readOr(debugLog),
      // The mailbox and the doorbell (its bells removed by each delivery).
      (log) => log.includes("FileChanged: watching 2 paths"),
      "Claude Code to watch its mailbox",
      { attempts: 600 },
    ).catch(explain);
    const members = {} as Record<Engine, Member>;
    for (const engine of ["pi", "codex", "claude"] as const) {
      const record = (await idle(LABEL[engine]))!;
      expect(record, engine).toMatchObject({ agent: engine, watching: { wake: true } });
      members[engine] = record;
    }
    expect(new Set(Object.values(members).map((record) => record.id)).size).toBe(3);

    /** The engine's turn that started for `body`: when its first request reached the model. */
    const turnFor = (engine: Engine, body: string) =>
      eventually(
        (): number | undefined => {
          if (engine === "codex") {
            const index = codex.model.requests.findIndex((request) =>
              userTexts(request).at(-1)?.includes(body),
            );
            return index < 0 ? undefined : codex.model.receivedAt[index];
          }
          if (engine === "claude")
            return claude.model.requests.find(
              (request) => request.scripted && requestText(request.body).includes(body),
            )?.at;
          // pi: the mail shown in the session, and the turn the test heard start (piStarted).
          const shown = pi.records.some(
            (record: PiRecord) =>
              record.type === "message_start" &&
              (record.message as { details?: { body?: string } })?.details?.body === body,
          );
          return shown ? piStarted : undefined;
        },
        (at) => at !== undefined,
        `${engine}'s turn for "${body}"`,
        { attempts: 600 },
      ).catch(explain);

    /** When pi's next turn started, as its RPC stream said (heard from the gate's opening on). */
    let piStarted: number | undefined;
    const nextPiTurn = () => {
      piStarted = undefined;
      const seen = pi.records.length;
      void pi
        .waitFor(
          (record) => record.type === "agent_start" && pi.records.indexOf(record) >= seen,
          "pi's woken turn",
          120_000,
        )
        .then(
          () => {
            piStarted = Date.now();
          },
          () => undefined,
        );
    };
    const woken: { mail: number; engine: Engine; how: string; ms: number }[] = [];
    for (const mail of mails) {
      const recipient = members[mail.to];
      await idle(recipient.label);
      // A moment for the recipient's engine to settle after its turn (Claude Code's Stop hook).
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (mail.to === "pi") nextPiTurn();
      if (mail.number === 1) await pi.prompt("start the round");
      else open(mail.number);
      const message = (await eventually(
        async () => {
          const history = await roster.history(recipient.id);
          return history.ok
            ? history.messages.find((entry) => entry.body === mail.body)
            : undefined;
        },
        (found) => found !== undefined,
        `mail #${mail.number} in ${recipient.label}'s mailbox`,
        { attempts: 600 },
      ).catch(explain))!;
      expect(message.from.id, `mail #${mail.number}'s sender`).toBe(members[mail.from].id);
      const at = (await turnFor(mail.to, mail.body))!;
      const receipt = await eventually(
        () => roster.receipt(message.id),
        (read) => read.ok && read.recipients[0]?.phases.woke !== undefined,
        `mail #${mail.number}'s receipt to say woke`,
        { attempts: 200 },
      ).catch(explain);
      const phases = receipt.ok ? receipt.recipients[0]!.phases : undefined;
      woken.push({
        mail: mail.number,
        engine: mail.to,
        how: phases?.woke?.how ?? "",
        ms: at - Date.parse(message.sentAt),
      });
    }

    // Each wake by that engine's own door, five per engine, from both other engines.
    const how: Record<Engine, string> = { pi: "pi", codex: "codex-queue", claude: "claude-rewake" };
    for (const entry of woken) expect(entry.how, `mail #${entry.mail}`).toBe(how[entry.engine]);
    for (const engine of ["pi", "codex", "claude"] as const) {
      const received = mails.filter((mail) => mail.to === engine);
      expect(received).toHaveLength(5);
      expect(new Set(received.map((mail) => mail.from)).size, engine).toBe(2);
    }
    // None lost: every mail delivered, no inbox left with mail unread.
    for (const engine of ["pi", "codex", "claude"] as const) {
      await eventually(
        () => roster.unread(members[engine].id),
        (count) => count === 0,
        `${engine}'s inbox to be read`,
      ).catch(explain);
    }
    for (const mail of mails) {
      const history = await roster.history(members[mail.to].id);
      const message = history.ok
        ? history.messages.find((entry) => entry.body === mail.body)
        : undefined;
      const receipt = await roster.receipt(message!.id);
      expect(
        receipt.ok && receipt.recipients[0]!.phases.delivered,
        `mail #${mail.number}`,
      ).toBeTruthy();
    }
    console.info(
      `mail written → recipient's turn: ${woken.map((entry) => `#${entry.mail} ${entry.engine} ${entry.ms} ms`).join(", ")}`,
    );
  }, 420_000);
});
