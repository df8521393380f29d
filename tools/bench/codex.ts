// Codex wake latency: mail written → the idle Codex TUI's turn started, as the scripted model server
// sees it (the request carrying the wake line arrives). Real Codex 0.171.0 TUIs in a private tmux
// server, a throwaway HOME set up by `muster install codex --wake`, offline against the scripted
// Responses-API model; mail sent through the roster by a member this process keeps live. The core
// wake policy allows 6 wakes a minute per member, so the samples go round several Codex threads.
import path from "node:path";
import type { Member, Roster } from "@muster/roster";
import {
  eventually,
  type PrivateTmux,
  type RealCodex,
  realCodex,
  type ScriptedModel,
  userTexts,
} from "@muster/test-support";
import { joinAsThisProcess, openTestTeam } from "@muster/test-team";
import { type BenchRow, percentile } from "../src/bench-kit.ts";

const CLI = path.resolve(import.meta.dirname, "..", "..", "packages", "cli");
const MUSTER = path.join(CLI, "dist", "muster.js");
const CODEX = path.join(CLI, "node_modules", ".bin", "codex");
/** Codex threads (one TUI each), and wakes per thread: the first is a warm-up. */
const THREADS = 3;
const WAKES = 6;

/** The request whose last user message contains `text`, once it has arrived. */
const arrival = (model: ScriptedModel, text: string) =>
  eventually(
    () => model.requests.findIndex((request) => userTexts(request).at(-1)?.includes(text)),
    (index) => index >= 0,
    `a model request with "${text}"`,
    { attempts: 600, intervalMs: 10 },
  );

/** The pane shows the turn for `marker` answered, and nothing working. */
const idle = (server: PrivateTmux, pane: string, marker: string) =>
  eventually(
    () => server.tmux("capture-pane", "-p", "-J", "-t", pane),
    (screen) => {
      // The transcript, above the prompt (the footer repeats the thread's first prompt).
      const text = screen.slice(0, screen.lastIndexOf("Ask Codex"));
      return (
        text.includes(marker) &&
        text.slice(text.lastIndexOf(marker)).includes("Done.") &&
        !screen.includes("esc to interrupt")
      );
    },
    `pane ${pane} to be idle`,
    { attempts: 400 },
  );

/** Open a Codex TUI in a new window and give it a first turn (it joins on its tool call). */
async function openThread(codex: RealCodex, index: number) {
  const pane = codex.server
    .tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-c", codex.repo, "bash --norc --noprofile")
    .trim();
  await codex.start(pane);
  const prompt = `join the team, thread ${index}`;
  await codex.submit(prompt, pane);
  await idle(codex.server, pane, prompt);
  return pane;
}

async function codexMembers(roster: Roster): Promise<Member[]> {
  const read = await roster.read();
  return read.ok ? read.members.filter((member) => member.agent === "codex") : [];
}

export async function run(): Promise<BenchRow[]> {
  const joins = Array.from({ length: THREADS }, () => [
    { call: { name: "team_roster", namespace: "mcp__muster", arguments: {} } },
    { text: "Done." },
  ]).flat();
  const codex = await realCodex({
    prefix: "muster-bench-codex-",
    codex: CODEX,
    muster: MUSTER,
    install: ["--wake"],
    script: joins,
  });
  const { model, server } = codex;
  try {
    const roster = await openTestTeam(codex.teamDir);
    await joinAsThisProcess(roster, "bench", "bench-sender");
    const panes: string[] = [];
    for (let index = 0; index < THREADS; index += 1) {
      panes.push(await openThread(codex, index));
      await eventually(
        () => codexMembers(roster),
        (members) => members.length === index + 1,
        "the thread to join",
      );
    }
    const members = await codexMembers(roster);
    const paneOf = (member: Member) => member.seat?.pane ?? "";
    const times: number[] = [];
    for (let round = 0; round < WAKES; round += 1) {
      for (const member of members) {
        const body = `bench mail ${round}.${member.label}`;
        const receipt = await roster.send({ from: "bench-sender", to: member.label, body });
        if (!receipt.ok) throw new Error(receipt.error);
        const index = await arrival(model, body);
        if (round > 0) times.push(model.receivedAt[index]! - Date.parse(receipt.sentAt));
        await idle(server, paneOf(member), body);
        // Read it, as the model would, so the next round's batch is one message.
        await roster.ack(member.id, [receipt.id]);
      }
    }
    const median = percentile(times, 50);
    const p95 = percentile(times, 95);
    return [
      {
        name: "codex: wake, mail written → idle TUI's turn reaches the model (codex queue), median",
        medianMs: median,
        target: { text: "p95 < 2 s", met: p95 < 2000 },
        note: `p95 ${p95.toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms; ${times.length} wakes over ${THREADS} threads`,
      },
    ];
  } finally {
    await codex.close();
  }
}
