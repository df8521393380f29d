// The three-engine team of mixed-team.test.ts, started: a real Codex (test-support's realCodex,
// `muster install codex --wake`), a real Claude Code TUI in a window of the same private tmux
// server (claudeKit, `muster install claude`) and a real pi in RPC mode (MUSTER_MAIL=wakes), each
// in its own HOME on one team folder, with the scripts of mixed-route.ts; and the probes the test
// reads them by (a member's record, its idleness, the turn a mail started, what went wrong).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readProcessTable } from "@muster/node";
import type { Member } from "@muster/roster";
import { eventually, realCodex, userTexts } from "@muster/test-support";
import { Pi, type PiRecord } from "../../pi-extension/test/pi-rpc.ts";
import { CLAUDE, claudeKit, MUSTER, requestText } from "./claude.js";
import {
  AUTH_FILE,
  AUTH_SOURCE,
  claudeScript,
  codexScript,
  type Engine,
  type Gate,
  LABEL,
  piScript,
} from "./mixed-route.ts";

const CODEX = path.resolve(import.meta.dirname, "..", "node_modules", ".bin", "codex");

/** Signal `pid` and every process under it, by pid; the pids signalled. */
export async function signalTree(pid: number, signal: NodeJS.Signals): Promise<number[]> {
  const table = await readProcessTable();
  if (!table.ok) throw new Error(`the process table: ${table.error}`);
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1)
    for (const row of table.processes) if (row.ppid === tree[index]) tree.push(row.pid);
  for (const each of tree)
    try {
      process.kill(each, signal);
    } catch {
      // gone already
    }
  return tree;
}

/** Each engine's scripted model, from the gates (and the file Claude Code edits, pi's gate files). */
export type MixedScripts = {
  codex: (gates: readonly Gate[]) => ReturnType<typeof codexScript>;
  claude: (gates: readonly Gate[], authFile: string) => ReturnType<typeof claudeScript>;
  pi: (gateFile: (number: number) => string) => unknown[];
};
const ROUTE_SCRIPTS: MixedScripts = { codex: codexScript, claude: claudeScript, pi: piScript };

/** The team started, every engine waiting for its scripted model; `close()` ends them all. */
export async function startMixedTeam(gates: readonly Gate[], scripts = ROUTE_SCRIPTS) {
  const codex = await realCodex({
    prefix: "muster-mixed-codex-",
    codex: CODEX,
    muster: MUSTER,
    install: ["--wake"],
    label: LABEL.codex,
    script: scripts.codex(gates),
  });
  const closing: (() => unknown)[] = [() => codex.close()];
  const close = async () => {
    for (const step of closing.splice(0).reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
  };
  try {
    const claude = await claudeKit([], LABEL.claude, codex.teamDir);
    closing.push(() => claude.close());
    const authFile = path.join(claude.repo, AUTH_FILE);
    mkdirSync(path.dirname(authFile), { recursive: true });
    writeFileSync(authFile, AUTH_SOURCE);
    claude.model.script.push(...scripts.claude(gates, authFile));
    const gateFiles = path.join(codex.home, "gates");
    mkdirSync(gateFiles);
    const gateFile = (number: number) => path.join(gateFiles, String(number));
    const pi = new Pi({
      cwd: codex.repo,
      args: ["--muster-label", LABEL.pi],
      env: { MUSTER_TEAM_DIR: codex.teamDir, MUSTER_MAIL: "wakes" },
      script: scripts.pi(gateFile),
    });
    closing.push(() => pi.kill());
    const debugLog = path.join(claude.home, "claude-debug.log");
    const claudePane = codex.server
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
    // Claude Code has outlived the tmux server's end once: its pane's processes end by pid.
    const panePid = Number(
      codex.server.tmux("display-message", "-p", "-t", claudePane, "#{pane_pid}").trim(),
    );
    closing.push(() => signalTree(panePid, "SIGKILL"));
    /** Let send `number` go: its model's promise, and pi's gate file (holding `args`, whole). */
    const open = (number: number, args: Record<string, unknown> = {}) => {
      gates[number - 1]?.open();
      writeFileSync(`${gateFile(number)}.tmp`, JSON.stringify(args));
      renameSync(`${gateFile(number)}.tmp`, gateFile(number));
    };
    return { codex, claude, pi, authFile, debugLog, claudePane, open, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export type MixedTeam = Awaited<ReturnType<typeof startMixedTeam>>;

const readOr = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** What the test reads the team by; every wait that fails says what each engine showed. */
export function probes(team: MixedTeam) {
  const { codex, claude, pi } = team;
  const roster = claude.roster;
  const member = async (label: string): Promise<Member | undefined> => {
    const read = await roster.read();
    return read.ok ? read.members.find((entry) => entry.label === label) : undefined;
  };
  const diagnose = async () =>
    [
      `Codex's pane:\n${codex.screen()}`,
      `Claude Code's pane:\n${codex.server.tmux("capture-pane", "-p", "-t", team.claudePane)}`,
      `Codex was asked: ${JSON.stringify(codex.model.requests.map(userTexts))}`,
      `pi's last records: ${JSON.stringify(pi.records.slice(-8))}`,
      `the roster: ${JSON.stringify(await roster.read())}`,
    ].join("\n");
  const explain = async (error: Error): Promise<never> => {
    throw new Error(`${error.message}\n${await diagnose()}`);
  };
  const idle = (label: string) =>
    eventually(
      () => member(label),
      (record) => record?.activity?.state === "idle",
      `${label} to be idle`,
      { attempts: 600 },
    ).catch(explain);
  /** Mail `body` in the mailbox of member `id`, once it is there. */
  const received = async (id: string, body: string, what: string) =>
    (await eventually(
      async () => {
        const history = await roster.history(id);
        return history.ok ? history.messages.find((entry) => entry.body.includes(body)) : undefined;
      },
      (found) => found !== undefined,
      what,
      { attempts: 600 },
    ).catch(explain))!;
  /** How a message woke its recipient (the door that marked its receipt woke). */
  const wokeBy = async (messageId: string, what: string) => {
    const receipt = await eventually(
      () => roster.receipt(messageId),
      (read) => read.ok && read.recipients[0]?.phases.woke !== undefined,
      `${what}'s receipt to say woke`,
      { attempts: 200 },
    ).catch(explain);
    return receipt.ok ? (receipt.recipients[0]?.phases.woke?.how ?? "") : "";
  };
  const claudeSaw = () =>
    claude.model.requests
      .filter((request) => request.scripted)
      .map((request) => requestText(request.body));
  const mailbox = () => readOr(team.debugLog);
  return { roster, member, idle, received, wokeBy, explain, claudeSaw, mailbox };
}

export type Probes = ReturnType<typeof probes>;

/**
 * When `engine`'s turn for `body` started (its first request to the model); for pi, the start of
 * the turn `piTurn` heard since the mail's gate opened, once the mail is shown in the session.
 */
export function turnFor(
  team: MixedTeam,
  probe: Probes,
  engine: Engine,
  body: string,
  piTurn: () => number | undefined,
) {
  return eventually(
    (): number | undefined => {
      if (engine === "codex") {
        const index = team.codex.model.requests.findIndex((request) =>
          userTexts(request).at(-1)?.includes(body),
        );
        return index < 0 ? undefined : team.codex.model.receivedAt[index];
      }
      if (engine === "claude")
        return team.claude.model.requests.find(
          (request) => request.scripted && requestText(request.body).includes(body),
        )?.at;
      const shown = team.pi.records.some(
        (record: PiRecord) =>
          record.type === "message_start" &&
          (record.message as { details?: { body?: string } })?.details?.body === body,
      );
      return shown ? piTurn() : undefined;
    },
    (at) => at !== undefined,
    `${engine}'s turn for "${body}"`,
    { attempts: 600 },
  ).catch(probe.explain);
}

/** pi's next turn start, as its RPC stream says it, heard from now on. */
export function nextPiTurn(pi: Pi): () => number | undefined {
  let started: number | undefined;
  const seen = pi.records.length;
  void pi
    .waitFor(
      (record) => record.type === "agent_start" && pi.records.indexOf(record) >= seen,
      "pi's woken turn",
      120_000,
    )
    .then(
      () => {
        started = Date.now();
      },
      () => undefined,
    );
  return () => started;
}
