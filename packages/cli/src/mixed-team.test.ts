// A mixed team of the three real engines, offline, each in its own HOME and set up only by
// muster's own installers and extension: pi 1.6.0 (RPC mode, the faux model, MUSTER_MAIL=wakes),
// Codex 0.171.0 and Claude Code 2.1.332 (TUIs in windows of one private tmux server, scripted
// models, `muster install codex --wake` and `muster install claude`). Every action is an engine's
// model's, through its own door; nothing is typed into a pane after Codex's first prompt.
// Fifteen mails go round the team, each sent from the turn the mail before woke, so every engine
// mails both others and each receives 5 from both: every one wakes its idle recipient (a turn that
// starts for it, its receipt marked woke by that engine's door), none is lost. A sender's send is
// held until the others are idle, so no mail can ride along in a turn already running. On the way
// (mixed-route.ts): pi leads and lays out cards, Codex claims c1 and leases `src/auth/**`, Claude
// Code is refused c2 (blocked by c1) and its Edit of a leased file (the PreToolUse hook). Then
// Codex is SIGKILLed: its card is open again, its lease gone, the lead told and woken
// (mixed-board.ts). A real Codex and Claude Code cost minutes here: `pnpm test:long` only.
import { eventually, LONG_TESTS } from "@muster/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { expectBoardWork, expectRecovery, type Members } from "../test/mixed-board.ts";
import { ENGINES, gate, LABEL, mails } from "../test/mixed-route.ts";
import {
  type MixedTeam,
  nextPiTurn,
  type Probes,
  probes,
  startMixedTeam,
  turnFor,
} from "../test/mixed-team.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
});

/** Every member on the team, idle, with mail that wakes it; Claude Code watching its mailbox. */
async function joined(team: MixedTeam, probe: Probes): Promise<Members> {
  await team.codex.start();
  await team.codex.submit("join the team");
  await eventuallyWatching(probe);
  const members = {} as Members;
  for (const engine of ENGINES) {
    const record = (await probe.idle(LABEL[engine]))!;
    expect(record, engine).toMatchObject({ agent: engine, watching: { wake: true } });
    members[engine] = record;
  }
  expect(new Set(Object.values(members).map((record) => record.id)).size).toBe(3);
  return members;
}

async function eventuallyWatching(probe: Probes) {
  await eventually(
    probe.mailbox,
    // The mailbox and the doorbell (its bells removed by each delivery).
    (log) => log.includes("FileChanged: watching 2 paths"),
    "Claude Code to watch its mailbox",
    { attempts: 600 },
  ).catch(probe.explain);
}

type Woken = { mail: number; engine: string; how: string; ms: number };

/** The fifteen mails, each let go once the others are idle; how and how fast each one woke. */
async function round(team: MixedTeam, probe: Probes, members: Members): Promise<Woken[]> {
  const woken: Woken[] = [];
  for (const mail of mails) {
    for (const engine of ENGINES) if (engine !== mail.from) await probe.idle(LABEL[engine]);
    // A moment for the recipient's engine to settle after its turn (Claude Code's Stop hook).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const piTurn = nextPiTurn(team.pi);
    if (mail.number === 1) await team.pi.prompt("start the round");
    else team.open(mail.number);
    const recipient = members[mail.to];
    const message = await probe.received(
      recipient.id,
      mail.body,
      `mail #${mail.number} in ${recipient.label}'s mailbox`,
    );
    expect(message.from.id, `mail #${mail.number}'s sender`).toBe(members[mail.from].id);
    const at = (await turnFor(team, probe, mail.to, mail.body, piTurn))!;
    const how = await probe.wokeBy(message.id, `mail #${mail.number}`);
    woken.push({ mail: mail.number, engine: mail.to, how, ms: at - Date.parse(message.sentAt) });
  }
  return woken;
}

/** Each wake by that engine's own door, five per engine, from both others; none lost. */
async function expectAllWoke(probe: Probes, members: Members, woken: Woken[]) {
  const how = { pi: "pi", codex: "codex-queue", claude: "claude-rewake" };
  for (const entry of woken)
    expect(entry.how, `mail #${entry.mail}`).toBe(how[entry.engine as keyof typeof how]);
  for (const engine of ENGINES) {
    const received = mails.filter((mail) => mail.to === engine);
    expect(received).toHaveLength(5);
    expect(new Set(received.map((mail) => mail.from)).size, engine).toBe(2);
  }
  for (const engine of ENGINES)
    await eventually(
      () => probe.roster.unread(members[engine].id),
      (count) => count === 0,
      `${engine}'s inbox to be read`,
    ).catch(probe.explain);
  for (const mail of mails) {
    const message = await probe.received(members[mail.to].id, mail.body, `mail #${mail.number}`);
    const receipt = await probe.roster.receipt(message.id);
    expect(
      receipt.ok && receipt.recipients[0]!.phases.delivered,
      `mail #${mail.number}`,
    ).toBeTruthy();
  }
}

describe.skipIf(!LONG_TESTS)("a team of pi, Codex and Claude Code", () => {
  it("15 mails round the engines, each a wake; the board and leases refuse; a SIGKILLed Codex's work is released", async () => {
    const team = await startMixedTeam(mails.map(() => gate()));
    cleanups.push(team.close);
    const probe = probes(team);
    const members = await joined(team, probe);
    const woken = await round(team, probe, members);
    await expectAllWoke(probe, members, woken);
    await expectBoardWork(team, probe, members);
    const recovered = await expectRecovery(team, probe, members);
    console.info(
      `mail written → recipient's turn: ${woken.map((entry) => `#${entry.mail} ${entry.engine} ${entry.ms} ms`).join(", ")}; lead's wake window waited out: ${recovered.waitedMs} ms; Codex SIGKILLed → c1 open again: ${recovered.openAt - recovered.killedAt} ms`,
    );
  }, 600_000);
});
